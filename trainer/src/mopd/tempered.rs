//! Response-token log-probabilities at the sampling temperature, for MOPD.
//!
//! The student samples from `softmax(z / T)`, and the sampler records that
//! distribution's log-probabilities (`π_inf`). The importance ratio
//! `r_t = π_train / π_inf` only means "how far has training moved from sampling"
//! when `π_train` is the *same* tempered distribution: at `T ≠ 1` an untempered
//! `π_train` would put `r_t` systematically away from 1 and the [0.5, 2] gate would
//! zero most tokens. The teacher is read at the same temperature, so the advantage
//! `log π_teacher − log π_train` compares like with like (as NeMo-RL does, which
//! divides every policy's logits by the generation temperature).

use tch::Tensor;

use crate::logprobs::{token_logprobs_at, SamplingDistribution, SequenceBatch};
use crate::model::Transformer;

/// `(logp [B, C], entropy [B, C])` of `batch`'s response tokens under
/// `softmax(logits / temperature)`; `temperature` ≤ 0 (greedy) or 1 reads the model
/// as is. Gradients flow through `logp` when the model's parameters require them.
/// No nucleus: recipe validation refuses MOPD stages with `top_p < 1`, since the
/// teacher's full distribution and the student's nucleus would not compare like
/// with like.
pub fn tempered_logprobs(
    model: &Transformer,
    batch: &SequenceBatch,
    temperature: f64,
) -> (Tensor, Tensor) {
    token_logprobs_at(model, batch, tempered(temperature))
}

/// `softmax(logits / temperature)` without a nucleus; `temperature` ≤ 0 (greedy)
/// reads the model as is.
pub fn tempered(temperature: f64) -> SamplingDistribution {
    SamplingDistribution {
        temperature: if temperature <= 0.0 { 1.0 } else { temperature },
        top_p: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logprobs::token_logprobs;
    use crate::toy::bench::ToyTask;
    use tch::Kind;

    #[test]
    fn matches_a_softmax_of_scaled_logits() {
        crate::numerics::pin_for_tests();
        let task = ToyTask::new().expect("toy task");
        let model = task.new_model(3).expect("model");
        let prompt = Tensor::from_slice(&[6i64, 40, 7, 44]).view([1, 4]);
        let completion = Tensor::from_slice(&[4i64, 3, 2]).view([1, 3]);
        let yes = |t: &Tensor| t.ones_like().to_kind(Kind::Bool);
        let batch = SequenceBatch {
            prompt_ids: &prompt,
            prompt_valid: &yes(&prompt),
            completion_ids: &completion,
            completion_valid: &yes(&completion),
        };
        let plain = token_logprobs(&model, &batch).0;
        let same = tempered_logprobs(&model, &batch, 1.0).0;
        assert!(plain.allclose(&same, 0.0, 0.0, false));
        // By hand: log_softmax(z / 0.5) at the response positions.
        let logits = model.forward(
            &Tensor::cat(&[&prompt, &completion], 1),
            &yes(&Tensor::cat(&[&prompt, &completion], 1)),
            None,
        );
        let want = (logits.narrow(1, 3, 3) / 0.5)
            .log_softmax(-1, Kind::Float)
            .gather(-1, &completion.unsqueeze(-1), false)
            .squeeze_dim(-1);
        let got = tempered_logprobs(&model, &batch, 0.5).0;
        assert!(got.allclose(&want, 1e-5, 1e-5, false), "{got} vs {want}");
        assert!(!got.allclose(&plain, 1e-3, 1e-3, false));
    }
}
