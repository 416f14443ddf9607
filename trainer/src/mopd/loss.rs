//! The MOPD token advantage, importance weights and loss:
//!
//! - `a_t = log π_teacher(y_t|s_t) − log π_train(y_t|s_t)` on the sampled token only;
//! - `r_t = π_train / π_inf`, `w_t` the stage's importance correction of `r_t`
//!   (see [`crate::grpo::importance`]); by default Cascade's gate,
//!   `w_t = sg(r_t)·1[0.5 ≤ r_t ≤ 2]` (zeroed outside, not clipped: ICE-POP);
//! - `L = −(1/|V|) Σ_t w_t · sg(a_t) · log π_train(y_t|s_t)`, with `|V|` the batch's
//!   response tokens (so micro-batches add up to the full-batch loss).

use tch::{Kind, Tensor};

use crate::grpo::ImportanceCorrection;

/// `a_t`, detached.
pub fn mopd_advantage(teacher_logp: &Tensor, train_logp: &Tensor) -> Tensor {
    (teacher_logp - train_logp).detach()
}

/// The MOPD loss of one micro-batch (all tensors `[B, C]`; `mask` false at padding),
/// its weights from `correction` token by token (a sequence-level correction needs
/// its sequence verdict: use [`mopd_loss_weighted`]).
pub fn mopd_loss(
    train_logp: &Tensor,
    sampling_logp: &Tensor,
    teacher_logp: &Tensor,
    mask: &Tensor,
    correction: ImportanceCorrection,
    num_tokens: f64,
) -> Tensor {
    let w = correction.token_weights(train_logp, sampling_logp, None);
    mopd_loss_weighted(train_logp, w.as_ref(), teacher_logp, mask, num_tokens)
}

/// [`mopd_loss`] given the detached weights `w_t` (`None`: every weight 1).
pub fn mopd_loss_weighted(
    train_logp: &Tensor,
    weights: Option<&Tensor>,
    teacher_logp: &Tensor,
    mask: &Tensor,
    num_tokens: f64,
) -> Tensor {
    let a = mopd_advantage(teacher_logp, train_logp);
    let m = mask.to_kind(Kind::Float);
    let weighted = match weights {
        Some(w) => w * a,
        None => a,
    };
    -(weighted * train_logp * m).sum(train_logp.kind()) / num_tokens.max(1.0)
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
        let w: Vec<f32> = Vec::try_from(
            ImportanceCorrection::CASCADE_MOPD
                .token_weights(&train, &sampling, None)
                .unwrap(),
        )
        .unwrap();
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
            ImportanceCorrection::CASCADE_MOPD,
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
