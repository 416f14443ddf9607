//! The short supervised warm-up before GRPO on the toy task (TRL needed one too: from
//! random weights the reward stays near 0, so there is nothing to reinforce):
//! cross-entropy on `"a+b="` → `"sum<eos>"`, with AdamW.

use tch::{Kind, Tensor};

use super::addition::Problem;
use crate::logprobs::{token_logprobs, SequenceBatch};
use crate::model::Transformer;
use crate::optim::AdamW;
use crate::rng::SplitMix64;
use crate::sampling::PromptBatch;
use crate::tokenizer::{TextTokenizer, TokenizerError};

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
        let prompt_batch = PromptBatch::new(&prompts, tokenizer.pad_id, model.device());
        let width = answers.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = Vec::new();
        let mut valid = Vec::new();
        for a in &answers {
            ids.extend(
                a.iter()
                    .copied()
                    .chain(std::iter::repeat_n(tokenizer.pad_id, width - a.len())),
            );
            valid.extend(
                std::iter::repeat_n(true, a.len())
                    .chain(std::iter::repeat_n(false, width - a.len())),
            );
        }
        let shape = [answers.len() as i64, width as i64];
        let completion_ids = Tensor::from_slice(&ids)
            .view(shape)
            .to_device(model.device());
        let completion_valid = Tensor::from_slice(&valid)
            .view(shape)
            .to_device(model.device());
        let seq = SequenceBatch {
            prompt_ids: &prompt_batch.ids,
            prompt_valid: &prompt_batch.valid,
            completion_ids: &completion_ids,
            completion_valid: &completion_valid,
        };
        optimizer.zero_grad();
        let (logp, _) = token_logprobs(model, &seq);
        let mask = completion_valid.to_kind(Kind::Float);
        let loss = -(logp * &mask).sum(Kind::Float) / mask.sum(Kind::Float);
        loss.backward();
        optimizer.clip_grad_norm(1.0);
        optimizer.step(lr);
        last = f64::try_from(&loss).unwrap_or(f64::NAN);
    }
    Ok(last)
}
