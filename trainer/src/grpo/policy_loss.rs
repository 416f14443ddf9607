//! The token-level clipped policy loss of GRPO (paper symbols in comments):
//!
//! `L = (1/N) Σ_i Σ_t [ −min(ρ_{i,t} Â_i, clip(ρ_{i,t}, 1−ε_low, 1+ε_high) Â_i) + β·KL_{i,t} ]`
//!
//! with `ρ = exp(log π_θ − log π_old)`, `N` the number of response tokens in the whole
//! batch (token-level normalisation, so micro-batches sum to the full-batch loss), and
//! the k3 estimator `KL = exp(δ) − δ − 1` with `δ = log π_ref − log π_θ` clamped to
//! ±[`KL_DELTA_CLAMP`] first (NeMo-RL's `calculate_kl` does the same), so that an
//! extreme reference cannot overflow `exp` into `inf · 0 = NaN` on masked positions.
//! In strict on-policy mode `log π_old` is `log π_θ` detached: ρ is exactly 1 and the
//! gradient is `−Â ∇log π_θ`, the Cascade loss.

use tch::{Kind, Tensor};

/// |δ| bound of the k3 KL estimator: `exp(20)` ≈ 4.9e8 is finite in f32 (and bf16),
/// and NeMo-RL's `calculate_kl(input_clamp_value=20.0)` uses the same.
pub const KL_DELTA_CLAMP: f64 = 20.0;

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
#[allow(clippy::assign_op_pattern)]
pub fn policy_loss(
    logp: &Tensor,
    old_logp: Option<&Tensor>,
    ref_logp: Option<&Tensor>,
    advantages: &Tensor,
    mask: &Tensor,
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
    if opts.kl_coef > 0.0 {
        if let Some(ref_logp) = ref_logp {
            let delta = (ref_logp - logp).clamp(-KL_DELTA_CLAMP, KL_DELTA_CLAMP);
            let k3 = delta.exp() - &delta - 1.0;
            per_token = per_token + k3 * opts.kl_coef; // not `+=`: in-place ops would break autograd
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
