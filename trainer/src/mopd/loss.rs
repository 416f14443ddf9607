//! The MOPD token advantage, truncated importance weights and loss:
//!
//! - `a_t = log π_teacher(y_t|s_t) − log π_train(y_t|s_t)` on the sampled token only;
//! - `r_t = π_train / π_inf`, `w_t = sg(r_t)·1[0.5 ≤ r_t ≤ 2]` (zeroed outside, not clipped);
//! - `L = −(1/|V|) Σ_t w_t · sg(a_t) · log π_train(y_t|s_t)`, with `|V|` the batch's
//!   response tokens (so micro-batches add up to the full-batch loss).

use tch::{Kind, Tensor};

/// The importance-weight gate; Cascade uses [0.5, 2.0].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightGate {
    pub low: f64,
    pub high: f64,
}

impl Default for WeightGate {
    fn default() -> Self {
        Self {
            low: 0.5,
            high: 2.0,
        }
    }
}

/// `a_t`, detached.
pub fn mopd_advantage(teacher_logp: &Tensor, train_logp: &Tensor) -> Tensor {
    (teacher_logp - train_logp).detach()
}

/// `w_t = r_t·1[low ≤ r_t ≤ high]`, detached, with `r_t = exp(log π_train − log π_inf)`.
pub fn truncated_weights(train_logp: &Tensor, sampling_logp: &Tensor, gate: WeightGate) -> Tensor {
    let r = (train_logp.detach() - sampling_logp).exp();
    let inside = r.ge(gate.low).logical_and(&r.le(gate.high));
    r * inside.to_kind(Kind::Float)
}

/// The MOPD loss of one micro-batch (all tensors `[B, C]`; `mask` false at padding).
pub fn mopd_loss(
    train_logp: &Tensor,
    sampling_logp: &Tensor,
    teacher_logp: &Tensor,
    mask: &Tensor,
    gate: WeightGate,
    num_tokens: f64,
) -> Tensor {
    let w = truncated_weights(train_logp, sampling_logp, gate);
    let a = mopd_advantage(teacher_logp, train_logp);
    let m = mask.to_kind(Kind::Float);
    -(w * a * train_logp * m).sum(train_logp.kind()) / num_tokens.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_zeroed_outside_the_gate_not_clipped() {
        crate::numerics::pin_for_tests();
        let train = Tensor::from_slice(&[-1.0f32, -1.0, -1.0, -1.0]);
        // r = exp(train − sampling) = 1, 3, 0.4, 2
        let sampling = Tensor::from_slice(&[
            -1.0f32,
            -1.0 - 3f32.ln(),
            -1.0 - 0.4f32.ln(),
            -1.0 - 2f32.ln(),
        ]);
        let w: Vec<f32> =
            Vec::try_from(truncated_weights(&train, &sampling, WeightGate::default())).unwrap();
        assert!(
            (w[0] - 1.0).abs() < 1e-6 && w[1] == 0.0 && w[2] == 0.0 && (w[3] - 2.0).abs() < 1e-5,
            "{w:?}"
        );
    }

    #[test]
    fn gradient_is_weighted_advantage_times_score() {
        crate::numerics::pin_for_tests();
        // One token, r = 1: dL/dlogp = −a/N with a = teacher − train.
        let logp = Tensor::from_slice(&[-2.0f32, -1.0]).set_requires_grad(true);
        let sampling = logp.detach();
        let teacher = Tensor::from_slice(&[-0.5f32, -1.5]);
        let mask = Tensor::from_slice(&[true, true]);
        let loss = mopd_loss(
            &logp,
            &sampling,
            &teacher,
            &mask,
            WeightGate::default(),
            2.0,
        );
        let value = f64::try_from(&loss).unwrap();
        // −(1.5·(−2) + (−0.5)·(−1)) / 2 = −(−3 + 0.5)/2 = 1.25
        assert!((value - 1.25).abs() < 1e-6, "{value}");
        loss.backward();
        let g: Vec<f32> = Vec::try_from(logp.grad()).unwrap();
        assert!(
            (g[0] + 0.75).abs() < 1e-6 && (g[1] - 0.25).abs() < 1e-6,
            "{g:?}"
        );
    }
}
