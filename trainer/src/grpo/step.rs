//! One strictly on-policy GRPO step: a rollout source produces the step's sampled,
//! scored groups with the log-probs they were sampled at ([`super::rollout`]: today
//! the local sampler, each group scored on a separate thread as soon as its responses
//! end), and the update computes group advantages and takes one AdamW step with the
//! token-level loss accumulated over micro-batches ([`super::update`]). This module
//! holds what both share: the step's settings and figures.

use std::time::Instant;

use serde::Deserialize;

use crate::model::Transformer;
use crate::optim::AdamW;
use crate::sampling::SamplingParams;

use super::importance::ImportanceMetrics;
use super::{AdvantageOptions, ImportanceCorrection};
use crate::logprobs::{MicroBatching, PassMemory};

pub use super::rollout::{
    reference_logprobs, sample_and_score, sample_and_score_batch, sample_episodes, BatchScoreFn,
    BatchScorer, GroupScoreFn, ScoreFn, ScoredGroups,
};
pub use super::update::grpo_update;

/// What happens to responses cut off at the new-token cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unfinished {
    /// Scored like any other response.
    #[default]
    Keep,
    /// Reward 0 (Cascade's IF-RL "truncated → reward 0").
    Zero,
    /// Left out of the loss.
    Filter,
}

#[derive(Debug, Clone)]
pub struct GrpoConfig {
    pub group_size: usize,
    pub sampling: SamplingParams,
    pub advantages: AdvantageOptions,
    pub epsilon_low: f64,
    pub epsilon_high: f64,
    pub kl_coef: f64,
    pub unfinished: Unfinished,
    /// How the training and reference passes split the batch; gradients accumulate
    /// across micro-batches.
    pub micro_batch: MicroBatching,
    /// Global gradient-norm clip; 0 disables.
    pub max_grad_norm: f64,
    /// What the training pass holds at once (see [`PassMemory`]).
    pub memory: PassMemory,
    /// The truncated importance-sampling correction of the sampler's log-probs
    /// (off: the loss exactly as strictly on-policy GRPO has it).
    pub importance: ImportanceCorrection,
}

/// Figures of one step, written to `metrics.jsonl`.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct StepStats {
    /// Over the scored responses (those that could not be scored are left out).
    pub reward_mean: f64,
    pub reward_max: f64,
    /// Responses that could not be scored (a scorer failure, not the model's), left
    /// out of the advantages and the loss.
    pub unscored: usize,
    pub filtered_share: f64,
    pub response_len_mean: f64,
    /// Model turns per response (1 unless the stage's environments are multi-turn).
    pub turns_mean: f64,
    pub entropy_mean: f64,
    pub grad_norm: f64,
    /// Largest `|log π_θ − log π_sampling|` over the response tokens. Strictly on-policy
    /// the two are the same policy (importance ratio exactly 1), so this is float
    /// rounding; anything larger means sampling and training disagree (a bug).
    pub logprob_drift_max: f64,
    /// The train/sampler mismatch: mean k3 KL(π_sampler ‖ π_θ) over the loss's tokens
    /// (NeMo-RL's `gen_kl_error`; see [`super::importance`]).
    pub sampler_kl_mean: f64,
    /// With an importance correction: the mean token weight (NeMo-RL's
    /// `sampling_importance_ratio`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance_weight_mean: Option<f64>,
    /// With an importance correction: the share of the loss's tokens given weight 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance_masked_share: Option<f64>,
    #[serde(flatten)]
    pub importance: ImportanceMetrics,
    pub lr: f64,
    /// Dynamic sampling (`refill`): groups drawn beyond `prompts_per_step` to replace
    /// those without signal (0 when refill is off).
    pub refill_groups: usize,
    /// With a KL term: the mean k3 estimate of KL(π_θ ‖ π_ref) over the sampled
    /// tokens, as the loss computes it (absent without a reference).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kl_mean: Option<f64>,
    pub sampling_tokens_per_s: f64,
    pub training_tokens_per_s: f64,
    pub reward_wait_s: f64,
    /// Groups scored while the rest of the batch was still being sampled.
    pub reward_early_groups: usize,
    pub step_s: f64,
    /// The step's prompts, responses and rewards, for replaying it elsewhere (the TRL
    /// equivalence check); not part of the metrics file.
    #[serde(skip)]
    pub rollout: Rollout,
}

/// What one step trained on: rows are `group_size` responses per prompt, in order.
#[derive(Debug, Clone, Default)]
pub struct Rollout {
    pub prompts: Vec<Vec<i64>>,
    pub completions: Vec<Vec<i64>>,
    pub rewards: Vec<f64>,
}

/// Runs one GRPO step on `prompts` (one entry per prompt; each is sampled
/// `group_size` times). `reference` is needed only when `kl_coef > 0`.
#[allow(clippy::too_many_arguments)]
pub fn grpo_step(
    policy: &Transformer,
    reference: Option<&Transformer>,
    optimizer: &mut AdamW,
    lr: f64,
    prompts: &[Vec<i64>],
    score: &ScoreFn,
    decode: &(dyn Fn(&[i64]) -> String + Sync),
    cfg: &GrpoConfig,
) -> StepStats {
    let start = Instant::now();
    let scored = sample_and_score(policy, reference, prompts, score, decode, cfg);
    grpo_update(policy, optimizer, lr, scored, cfg, start)
}
