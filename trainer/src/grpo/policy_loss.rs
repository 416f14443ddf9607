//! The token-level clipped policy loss of GRPO (paper symbols in comments):
//!
//! `L = (1/N) Σ_i Σ_t [ −min(ρ_{i,t} Â_i, clip(ρ_{i,t}, 1−ε_low, 1+ε_high) Â_i) + β·KL_{i,t} ]`
//!
//! with `ρ = exp(log π_θ − log π_old)`, `N` the number of response tokens in the whole
//! batch (token-level normalisation, so micro-batches sum to the full-batch loss), and
//! the k3 estimator `KL = exp(δ) − δ − 1` with `δ = log π_ref − log π_θ` clamped to
//! ±[`KL_DELTA_CLAMP`] first (NeMo-RL's `calculate_kl` does the same), so that an
//! extreme reference cannot overflow `exp` into `inf · 0 = NaN` on masked positions,
//! and the value clamped to ±[`KL_VALUE_CLAMP`] (NeMo-RL, verl).
//!
//! The k3 value's own gradient `(1 − π_ref/π_θ)∇log π_θ` has, under sampling from π_θ,
//! the expectation of ∇KL(π_ref‖π_θ), the *forward* KL. Multiplying the value by
//! `exp(log π_θ − sg(log π_θ))` (= 1) adds the score-function term `KL·∇log π_θ`, so
//! the gradient becomes `(log π_θ − log π_ref)∇log π_θ`, whose expectation is
//! ∇KL(π_θ‖π_ref), the reverse KL the metric reports (NeMo-RL's "fix: KL backward").
//! In strict on-policy mode `log π_old` is `log π_θ` detached: ρ is exactly 1 and the
//! gradient is `−Â ∇log π_θ`, the Cascade loss.

use tch::{Kind, Tensor};

/// |δ| bound of the k3 KL estimator: `exp(20)` ≈ 4.9e8 is finite in f32 (and bf16),
/// and NeMo-RL's `calculate_kl(input_clamp_value=20.0)` uses the same.
pub const KL_DELTA_CLAMP: f64 = 20.0;

/// Bound on the k3 value per token: NeMo-RL's `kl_output_clamp_value` and verl's
/// `kl_penalty` both clamp it to ±10, so one token far from the reference cannot
/// swamp the batch.
pub const KL_VALUE_CLAMP: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyLossOptions {
    pub epsilon_low: f64,
    pub epsilon_high: f64,
    /// β of the k3 KL term; 0 disables it (and the reference model is not needed).
    pub kl_coef: f64,
    /// Total response tokens in the whole batch (N above), across micro-batches.
    pub num_tokens: f64,
}

/// The loss of one micro-batch. `logp`, `mask` `[B, C]`; `advantages` `[B]`;
/// `old_logp` `[B, C]` or `None` for strict on-policy; `ref_logp` needed when `kl_coef > 0`.
pub fn policy_loss(
    logp: &Tensor,
    old_logp: Option<&Tensor>,
    ref_logp: Option<&Tensor>,
    advantages: &Tensor,
    mask: &Tensor,
    opts: &PolicyLossOptions,
) -> Tensor {
    weighted_policy_loss(logp, old_logp, ref_logp, advantages, mask, None, opts)
}

/// [`policy_loss`] with each token's clipped policy term multiplied by a detached
/// importance weight `w_t` `[B, C]` (see [`super::importance`]); the KL term is not
/// weighted, as in NeMo-RL's `ClippedPGLossFn`, where
/// `actor_loss = masked_mean(importance_weights * clip_loss)` and the KL is added
/// after. `None` leaves the loss exactly as [`policy_loss`] computes it.
#[allow(clippy::assign_op_pattern)]
pub fn weighted_policy_loss(
    logp: &Tensor,
    old_logp: Option<&Tensor>,
    ref_logp: Option<&Tensor>,
    advantages: &Tensor,
    mask: &Tensor,
    weights: Option<&Tensor>,
    opts: &PolicyLossOptions,
) -> Tensor {
    let old = match old_logp {
        Some(old) => old.shallow_clone(),
        None => logp.detach(),
    };
    let ratio = (logp - old).exp(); // ρ
    let adv = advantages.unsqueeze(-1); // Â_i for every token t
    let unclipped = &ratio * &adv;
    let clipped = ratio.clamp(1.0 - opts.epsilon_low, 1.0 + opts.epsilon_high) * &adv;
    let mut per_token = -unclipped.minimum(&clipped);
    if let Some(w) = weights {
        per_token = per_token * w.detach();
    }
    if opts.kl_coef > 0.0 {
        if let Some(ref_logp) = ref_logp {
            let delta = (ref_logp - logp).clamp(-KL_DELTA_CLAMP, KL_DELTA_CLAMP);
            let k3 = (delta.exp() - &delta - 1.0).clamp(-KL_VALUE_CLAMP, KL_VALUE_CLAMP);
            let reverse = k3 * (logp - logp.detach()).exp(); // value unchanged, see above
            per_token = per_token + reverse * opts.kl_coef; // not `+=`: in-place ops would break autograd
        }
    }
    // `where`, not a product: a non-finite value on a masked position stays out.
    let per_token = per_token.where_self(&mask.to_kind(Kind::Bool), &per_token.zeros_like());
    per_token.sum(logp.kind()) / opts.num_tokens.max(1.0)
}

/// The importance ratio `exp(logp − old)`, exposed for tests and metrics.
pub fn ratio(logp: &Tensor, old_logp: Option<&Tensor>) -> Tensor {
    match old_logp {
        Some(old) => (logp - old).exp(),
        None => (logp - logp.detach()).exp(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over a small categorical distribution, the expected autograd gradient of the
    /// KL term, `Σ_a π(a)·∇loss(a)` (the samples come from π, so π is not
    /// differentiated), equals the analytic reverse-KL gradient
    /// `∂KL(π‖π_ref)/∂θ_j = π_j (log(π_j/π_ref,j) − KL)` of softmax logits θ.
    #[test]
    fn kl_gradient_is_the_reverse_kl_gradient() {
        let theta_values = [0.3f64, -1.2, 0.8, 0.0, -0.4];
        let ref_logp =
            Tensor::from_slice(&[-1.0f64, -2.5, -0.9, -1.7, -3.0]).log_softmax(0, Kind::Double);
        let theta = Tensor::from_slice(&theta_values).set_requires_grad(true);
        let opts = PolicyLossOptions {
            epsilon_low: 0.2,
            epsilon_high: 0.2,
            kl_coef: 1.0,
            num_tokens: 1.0,
        };
        let pi = tch::no_grad(|| theta.softmax(0, Kind::Double));
        let mut expected_grad = theta.zeros_like();
        for a in 0..theta_values.len() as i64 {
            let logp = theta.log_softmax(0, Kind::Double).get(a).view([1, 1]);
            let reference = ref_logp.get(a).view([1, 1]);
            let adv = Tensor::zeros([1], (Kind::Double, tch::Device::Cpu));
            let mask = Tensor::ones([1, 1], (Kind::Bool, tch::Device::Cpu));
            let loss = policy_loss(&logp, None, Some(&reference), &adv, &mask, &opts);
            let grad = Tensor::run_backward(&[loss], &[&theta], false, false).remove(0);
            expected_grad += grad * pi.get(a);
        }
        let log_ratio = pi.log() - &ref_logp;
        let kl = (&pi * &log_ratio).sum(Kind::Double);
        let analytic = &pi * (log_ratio - kl);
        let diff = f64::try_from((expected_grad - &analytic).abs().max()).expect("scalar");
        assert!(diff < 1e-12, "expected autograd gradient differs by {diff}");
        assert!(f64::try_from(analytic.abs().max()).expect("scalar") > 1e-2);
    }

    /// The value is the clamped k3: a token whose k3 is above 10 counts 10.
    #[test]
    fn kl_value_is_clamped() {
        let logp = Tensor::from_slice(&[-15.0f64]).view([1, 1]);
        let reference = Tensor::from_slice(&[-1.0f64]).view([1, 1]);
        let adv = Tensor::zeros([1], (Kind::Double, tch::Device::Cpu));
        let mask = Tensor::ones([1, 1], (Kind::Bool, tch::Device::Cpu));
        let opts = PolicyLossOptions {
            epsilon_low: 0.2,
            epsilon_high: 0.2,
            kl_coef: 1.0,
            num_tokens: 1.0,
        };
        let loss = policy_loss(&logp, None, Some(&reference), &adv, &mask, &opts);
        assert_eq!(f64::try_from(loss).expect("scalar"), KL_VALUE_CLAMP);
    }
}
