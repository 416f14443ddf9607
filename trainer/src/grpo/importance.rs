//! Truncated importance-sampling correction for the mismatch between the policy that
//! sampled a batch (`π_sampler`: the local sampler in bf16, or later an external
//! engine) and the policy the loss differentiates (`π_θ`, in fp32).
//!
//! Both GRPO and MOPD weigh each response token's loss term by a detached weight
//! derived from the token ratio `r_t = exp(log π_θ(y_t) − log π_sampler(y_t))`
//! (non-finite ratios count 0). The three kinds, their formulas and default bounds
//! follow NeMo-RL's `ClippedPGLossFn.__call__` in
//! `nemo_rl/algorithms/loss/loss_functions.py` (the "Truncated Importance Sampling"
//! block; `truncated_importance_sampling_type`, `truncated_importance_sampling_ratio`
//! as `max`, `truncated_importance_sampling_ratio_min` as `min`):
//!
//! - `tis`: `w_t = clamp(r_t, min, max)`, `min` 0 unless set;
//! - `icepop`: `w_t = r_t` when `min ≤ r_t ≤ max`, else 0 (the token leaves the loss);
//! - `seq-mask-tis`: a sequence whose geometric-mean ratio
//!   `exp(mean_t log r_t)` lies outside `[min, max]` is masked out whole; the tokens of
//!   the others keep their *raw*, untruncated `r_t` (NeMo-RL: "retained sequences keep
//!   raw (non-truncated) token-level IS weights").
//!
//! NeMo-RL's ratio uses `prev_logprobs`, the policy's log-probs from a no-grad pass
//! before the update; strictly on-policy these are `log π_θ` itself, so we use the
//! training pass's `log π_θ`, detached. The sequence mask needs a whole row's
//! log-probs before the first chunk's backward, so it is read from a no-grad pass of
//! the policy (exactly NeMo-RL's `prev_logprobs`).
//!
//! The default bounds are the reference values NeMo-RL ships, since its config class
//! leaves them unset: `tis` max 2 (`examples/configs/grpo_math_1B_dynamo.yaml` and the
//! DAPO recipes), `icepop` [0.5, 5] (`prorlv2.v2.yaml`, "ref bounds: 0.5–5"),
//! `seq-mask-tis` [0.999, 1.002] (`prorlv2_1_moe.v2.yaml`, "ref bounds: 0.999–1.002").
//!
//! The mismatch itself is reported as NeMo-RL's `gen_kl_error`: the k3 estimate of
//! KL(π_sampler ‖ π_θ), `exp(log r_t) − 1 − log r_t`, unclamped, over the loss tokens.

use serde::Deserialize;
use tch::{Kind, Tensor};

/// `tis`'s upper bound by default.
pub const TIS_MAX: f64 = 2.0;
/// `icepop`'s bounds by default.
pub const ICEPOP_MIN: f64 = 0.5;
pub const ICEPOP_MAX: f64 = 5.0;
/// `seq-mask-tis`'s bounds on the geometric-mean ratio by default.
pub const SEQ_MASK_MIN: f64 = 0.999;
pub const SEQ_MASK_MAX: f64 = 1.002;

/// The `importance_correction` stage key: `{ kind = "tis" | "icepop" |
/// "seq-mask-tis" | "off", min = …, max = … }`, bounds defaulting per kind.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ImportanceCorrection {
    /// Every weight 1: the loss exactly as without correction.
    #[default]
    Off,
    /// Truncated importance sampling: weights clamped to `[min, max]`.
    Tis {
        #[serde(default)]
        min: f64,
        #[serde(default = "tis_max")]
        max: f64,
    },
    /// ICE-POP: tokens whose ratio is outside `[min, max]` get weight 0.
    Icepop {
        #[serde(default = "icepop_min")]
        min: f64,
        #[serde(default = "icepop_max")]
        max: f64,
    },
    /// Sequences whose geometric-mean ratio is outside `[min, max]` get weight 0;
    /// the others' tokens their raw ratio.
    SeqMaskTis {
        #[serde(default = "seq_mask_min")]
        min: f64,
        #[serde(default = "seq_mask_max")]
        max: f64,
    },
}

fn tis_max() -> f64 {
    TIS_MAX
}
fn icepop_min() -> f64 {
    ICEPOP_MIN
}
fn icepop_max() -> f64 {
    ICEPOP_MAX
}
fn seq_mask_min() -> f64 {
    SEQ_MASK_MIN
}
fn seq_mask_max() -> f64 {
    SEQ_MASK_MAX
}

/// A bound that [`ImportanceCorrection::check`] refused: its key and why.
#[derive(Debug, Clone, PartialEq)]
pub struct BadBound {
    pub key: &'static str,
    pub message: String,
}

impl ImportanceCorrection {
    /// MOPD's gate in Nemotron-Cascade 2 (`w_t = r_t·1[0.5 ≤ r_t ≤ 2]`): ICE-POP with
    /// the paper's bounds, MOPD's default.
    pub const CASCADE_MOPD: Self = Self::Icepop { min: 0.5, max: 2.0 };

    pub fn is_off(&self) -> bool {
        *self == Self::Off
    }

    /// `(min, max)`, or `None` when off.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match *self {
            Self::Off => None,
            Self::Tis { min, max } | Self::Icepop { min, max } | Self::SeqMaskTis { min, max } => {
                Some((min, max))
            }
        }
    }

    /// Whether the weights need each sequence's geometric-mean ratio.
    pub fn masks_sequences(&self) -> bool {
        matches!(self, Self::SeqMaskTis { .. })
    }

    /// NeMo-RL's checks in `ClippedPGLossFn.__init__`: `max` positive, `min ≤ max`;
    /// and, since a ratio is never negative, `min ≥ 0`.
    pub fn check(&self) -> Result<(), BadBound> {
        let Some((min, max)) = self.bounds() else {
            return Ok(());
        };
        let bad = |key, message: String| Err(BadBound { key, message });
        if !(max > 0.0 && max.is_finite()) {
            return bad("max", format!("must be positive, got {max}"));
        }
        if !(min >= 0.0 && min.is_finite()) {
            return bad("min", format!("must be ≥ 0, got {min}"));
        }
        if min > max {
            return bad("min", format!("must be ≤ max ({max}), got {min}"));
        }
        Ok(())
    }

    /// `seq-mask-tis`'s per-sequence verdict `[B]` (true = kept): the geometric mean
    /// `exp(Σ_t m_t log r_t / (Σ_t m_t + 1e-8))` inside `[min, max]`, with non-finite
    /// `log r_t` counted 0 (NeMo-RL's `masked_mean` and `nan_to_num`). `None` for the
    /// other kinds. `mask` `[B, C]` marks the tokens of each sequence.
    pub fn sequence_keep(
        &self,
        train_logp: &Tensor,
        sampler_logp: &Tensor,
        mask: &Tensor,
    ) -> Option<Tensor> {
        let Self::SeqMaskTis { min, max } = *self else {
            return None;
        };
        tch::no_grad(|| {
            let log_ratio = (train_logp.detach() - sampler_logp).nan_to_num(0.0, 0.0, 0.0);
            let m = mask.to_kind(log_ratio.kind());
            let count = m.sum_dim_intlist(-1, false, log_ratio.kind()) + 1e-8;
            let mean = (log_ratio * &m).sum_dim_intlist(-1, false, m.kind()) / count;
            let geo = mean.exp();
            Some(geo.ge(min).logical_and(&geo.le(max)))
        })
    }

    /// The detached per-token weights `[B, C]`, or `None` when off (the loss is then
    /// left exactly as it was). `keep` is [`Self::sequence_keep`]'s verdict for these
    /// rows, needed by `seq-mask-tis` (a missing one keeps every sequence).
    pub fn token_weights(
        &self,
        train_logp: &Tensor,
        sampler_logp: &Tensor,
        keep: Option<&Tensor>,
    ) -> Option<Tensor> {
        let (min, max) = self.bounds()?;
        let r = token_ratio(train_logp, sampler_logp);
        Some(match self {
            Self::Off => unreachable!("bounds() is None when off"),
            Self::Tis { .. } => r.clamp(min, max),
            Self::Icepop { .. } => {
                let kept = r.ge(min).logical_and(&r.le(max));
                r.where_self(&kept, &r.zeros_like())
            }
            Self::SeqMaskTis { .. } => match keep {
                Some(keep) => r * keep.unsqueeze(-1).to_kind(train_logp.kind()),
                None => r,
            },
        })
    }

    /// Tokens outside the bounds `[B, C]` (bool): those `tis` clamps, those
    /// `icepop` zeroes (NeMo-RL's `is_oob_ratio` numerator at token level).
    fn out_of_bounds(&self, ratio: &Tensor) -> Option<Tensor> {
        match *self {
            Self::Tis { min, max } | Self::Icepop { min, max } => {
                Some(ratio.gt(max).logical_or(&ratio.lt(min)))
            }
            Self::Off | Self::SeqMaskTis { .. } => None,
        }
    }
}

/// `r_t = exp(log π_θ − log π_sampler)`, detached, non-finite values 0 (NeMo-RL's
/// `nan_to_num(nan=0, posinf=0, neginf=0)`).
pub fn token_ratio(train_logp: &Tensor, sampler_logp: &Tensor) -> Tensor {
    (train_logp.detach() - sampler_logp)
        .exp()
        .nan_to_num(0.0, 0.0, 0.0)
}

/// The k3 estimate of KL(π_sampler ‖ π_θ) per token, `exp(δ) − 1 − δ` with
/// `δ = log π_θ − log π_sampler`, unclamped (NeMo-RL's `gen_kl_error`:
/// `calculate_kl(generation_logprobs, prev_logprobs, "k3", None, None)`). Detached.
pub fn sampler_kl(train_logp: &Tensor, sampler_logp: &Tensor) -> Tensor {
    let delta = train_logp.detach() - sampler_logp;
    delta.exp() - 1.0 - delta
}

/// Sums over the tokens of a step, for its metrics (see [`MismatchFigures::add`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MismatchFigures {
    pub tokens: f64,
    kl_sum: f64,
    weight_sum: f64,
    /// Tokens whose weight is 0 (ICE-POP's, and those of masked sequences).
    zeroed: f64,
    /// Tokens outside the bounds (TIS: clamped; ICE-POP: the zeroed ones).
    out_of_bounds: f64,
    pub sequences: f64,
    pub masked_sequences: f64,
}

impl MismatchFigures {
    /// Adds one chunk's tokens (`mask` `[b, c]`, float or bool) and, when the
    /// correction is on, their `weights`.
    pub fn add(
        &mut self,
        correction: &ImportanceCorrection,
        train_logp: &Tensor,
        sampler_logp: &Tensor,
        weights: Option<&Tensor>,
        mask: &Tensor,
    ) {
        let sum = |t: &Tensor| -> f64 {
            let m = mask.to_kind(Kind::Bool);
            f64::try_from(t.where_self(&m, &t.zeros_like()).sum(Kind::Double)).unwrap_or(f64::NAN)
        };
        tch::no_grad(|| {
            self.tokens += sum(&mask.to_kind(Kind::Double));
            self.kl_sum += sum(&sampler_kl(train_logp, sampler_logp));
            let Some(w) = weights else { return };
            self.weight_sum += sum(w);
            self.zeroed += sum(&w.eq(0.0).to_kind(Kind::Double));
            let ratio = token_ratio(train_logp, sampler_logp);
            if let Some(oob) = correction.out_of_bounds(&ratio) {
                self.out_of_bounds += sum(&oob.to_kind(Kind::Double));
            }
        });
    }

    /// Counts the sequences of a step (`keep` `[B]`, true = kept) among those in the
    /// loss (`in_loss` `[B]`).
    pub fn add_sequences(&mut self, keep: &Tensor, in_loss: &Tensor) {
        let count = |t: Tensor| f64::try_from(t.sum(Kind::Double)).unwrap_or(f64::NAN);
        let in_loss = in_loss.to_kind(Kind::Bool);
        self.sequences += count(in_loss.to_kind(Kind::Double));
        self.masked_sequences += count(
            keep.logical_not()
                .logical_and(&in_loss)
                .to_kind(Kind::Double),
        );
    }

    fn share(&self, part: f64) -> f64 {
        part / self.tokens.max(1.0)
    }

    /// Mean k3 KL(π_sampler ‖ π_θ) per token.
    pub fn kl_mean(&self) -> f64 {
        self.share(self.kl_sum)
    }

    /// Mean weight per token (NeMo-RL's `sampling_importance_ratio`).
    pub fn weight_mean(&self) -> f64 {
        self.share(self.weight_sum)
    }

    /// Share of tokens whose weight is 0.
    pub fn masked_share(&self) -> f64 {
        self.share(self.zeroed)
    }

    /// Share of tokens outside the bounds (NeMo-RL's `is_oob_ratio` for `tis` and
    /// `icepop`).
    pub fn out_of_bounds_share(&self) -> f64 {
        self.share(self.out_of_bounds)
    }

    /// Share of sequences masked out (NeMo-RL's `is_oob_ratio` for `seq-mask-tis`).
    pub fn masked_sequence_share(&self) -> f64 {
        self.masked_sequences / self.sequences.max(1.0)
    }
}

/// The importance keys of a step's `metrics.jsonl` line beyond the always-present
/// mismatch KL; absent when the correction is off (or, per key, for kinds it does
/// not apply to).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct ImportanceMetrics {
    /// Share of response tokens outside the bounds (`tis`: clamped; `icepop`: zeroed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance_out_of_bounds_share: Option<f64>,
    /// `seq-mask-tis`: share of the loss's sequences masked out whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance_masked_sequence_share: Option<f64>,
}

impl ImportanceMetrics {
    pub fn of(correction: &ImportanceCorrection, figures: &MismatchFigures) -> Self {
        let tokenwise = matches!(
            correction,
            ImportanceCorrection::Tis { .. } | ImportanceCorrection::Icepop { .. }
        );
        Self {
            importance_out_of_bounds_share: tokenwise.then(|| figures.out_of_bounds_share()),
            importance_masked_sequence_share: correction
                .masks_sequences()
                .then(|| figures.masked_sequence_share()),
        }
    }
}

#[cfg(test)]
#[path = "importance_tests.rs"]
mod tests;
