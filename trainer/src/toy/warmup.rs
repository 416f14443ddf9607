//! The toy task's supervised warm-up ([`supervised_warmup`]: `"a+b="` → `"sum<eos>"`),
//! built on the production SFT step ([`crate::sft::supervised_step`]). GRPO needs it
//! from random weights: the reward stays near 0 and there is nothing to reinforce (TRL
//! needed one too).

use super::addition::Problem;
use crate::model::Transformer;
use crate::optim::AdamW;
use crate::sft::supervised_step;
use crate::tokenizer::{TextTokenizer, TokenizerError};
use cascade_verifiers::seeded::SplitMix64;

/// Runs `steps` steps of `batch` random problems at learning rate `lr`; returns the
/// last step's loss.
pub fn supervised_warmup(
    model: &Transformer,
    tokenizer: &TextTokenizer,
    optimizer: &mut AdamW,
    rng: &mut SplitMix64,
    steps: usize,
    batch: usize,
    lr: f64,
) -> Result<f64, TokenizerError> {
    let eos = tokenizer.stop_ids.first().copied().unwrap_or(0);
    let mut last = f64::NAN;
    for _ in 0..steps {
        let problems: Vec<Problem> = (0..batch).map(|_| Problem::random(rng)).collect();
        let prompts = problems
            .iter()
            .map(|p| tokenizer.encode(&p.prompt()))
            .collect::<Result<Vec<_>, _>>()?;
        let answers = problems
            .iter()
            .map(|p| {
                let mut ids = tokenizer.encode(&p.answer())?;
                ids.push(eos);
                Ok(ids)
            })
            .collect::<Result<Vec<_>, TokenizerError>>()?;
        last = supervised_step(
            model,
            optimizer,
            &prompts,
            &answers,
            tokenizer.pad_id,
            lr,
            1.0,
        )
        .loss;
    }
    Ok(last)
}
