//! `[[stage]]` tables, one type per `algorithm`: each holds only the keys its
//! algorithm reads (the shared ones in [`StageCommon`], the sampling ones in
//! [`Rollout`]), so a key of another algorithm, an SFT stage's `group_size` say, is an
//! unknown key, refused with its path (`stage[0].group_size`). Each type validates its
//! own values (see `validate.rs`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{invalid, Algorithm, EvalSet, RecipeError, StageEnv, StageRoute};
use crate::grpo::step::Unfinished;
use crate::grpo::{Baseline, ImportanceCorrection};
use crate::optim::Decay;

/// One `[[stage]]`, by its `algorithm` key.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "algorithm", rename_all = "lowercase")]
pub enum StageSpec {
    Sft(SftStage),
    Grpo(GrpoStage),
    Mopd(MopdStage),
    Rm(RmStage),
}

/// Keys no field of the stage's type took: refused by [`StageSpec::check_keys`].
/// (`deny_unknown_fields` does not combine with `flatten`, hence this catch-all.)
type UnknownKeys = BTreeMap<String, toml::Value>;

/// The keys every stage has: name, length, learning-rate schedule, optimizer,
/// environments and eval sets.
#[derive(Debug, Clone, Deserialize)]
pub struct StageCommon {
    pub name: String,
    /// Listed for the published order but not run (its environments are not built).
    #[serde(default)]
    pub skip: bool,
    // `steps`, `lr` and `prompts_per_step` are needed, but checked when validating
    // rather than while parsing: a misspelt key is then reported as unknown, by name,
    // instead of its intended key as missing.
    #[serde(default)]
    pub steps: usize,
    #[serde(default)]
    pub lr: f64,
    /// Prompts drawn per step (SFT: rows per step).
    #[serde(default)]
    pub prompts_per_step: usize,
    #[serde(default)]
    pub warmup_steps: usize,
    #[serde(default)]
    pub warmup_start_lr: f64,
    #[serde(default)]
    pub decay: Decay,
    #[serde(default)]
    pub min_lr: f64,
    #[serde(default = "one")]
    pub max_grad_norm: f64,
    #[serde(default)]
    pub weight_decay: f64,
    /// Whether `weight_decay` also applies to norm weights and biases (off, as in
    /// transformers' trainers).
    #[serde(default)]
    pub decay_norms_and_biases: bool,
    /// The stage's environments: those declared by `[[stage.env]]`, then one per
    /// mapped value of each `[[stage.route]]` (see [`super::route`]).
    #[serde(default, rename = "env")]
    pub envs: Vec<StageEnv>,
    /// Mixed datasets whose rows go to an env (and domain) by a row field.
    #[serde(default, rename = "route")]
    pub routes: Vec<StageRoute>,
    /// This stage's own eval sets; they join the run's (see the module docs).
    #[serde(default, rename = "eval")]
    pub evals: Vec<EvalSet>,
}

/// The sampling keys of the stages that sample (GRPO, MOPD).
#[derive(Debug, Clone, Deserialize)]
pub struct Rollout {
    /// Responses sampled per prompt.
    #[serde(default)]
    pub group_size: usize,
    /// Sampling cap.
    #[serde(default)]
    pub max_new_tokens: usize,
    #[serde(default = "one")]
    pub temperature: f64,
    #[serde(default = "one")]
    pub top_p: f64,
    /// Rows per forward/backward; 0 = the whole batch at once.
    #[serde(default)]
    pub micro_batch: usize,
    /// Instead of `micro_batch`: at most this many tokens per forward/backward,
    /// padding included (rows are bucketed by length and trimmed, so little is
    /// padding); 0 = off. Long and short responses then share a memory bound.
    #[serde(default)]
    pub micro_batch_tokens: usize,
    /// MiB of float32 vocabulary logits a training pass holds at once (at least 1):
    /// longer responses are run through the head and the loss in chunks of positions
    /// (see `logprobs::LogitBudget`; the gradients are the same). Frozen passes (the
    /// KL reference, MOPD teachers) use the default budget.
    #[serde(default = "default_logit_chunk_mb")]
    pub logit_chunk_mb: usize,
    /// `"keep"` (default) or `"recompute"`: activation checkpointing, for long
    /// sequences (see `logprobs::Activations`).
    #[serde(default)]
    pub activations: crate::logprobs::Activations,
    /// Rows decoded at once (0 = all of a step's prompts × `group_size`): a larger step
    /// samples in turns of whole groups, bounding the KV cache and logits by this
    /// many rows. Single-turn sampling; conversations decode all their rows.
    #[serde(default)]
    pub max_decode_rows: usize,
    /// Decoding steps between host reads of which rows finished (0 = auto: every
    /// step on the CPU, every 8 on CUDA); the samples are the same for any value.
    #[serde(default)]
    pub finished_check_every: usize,
    /// Multi-turn environments: model turns per conversation (each at most
    /// `max_new_tokens`).
    #[serde(default = "default_max_turns")]
    pub max_turns: usize,
    /// Multi-turn environments: tokens after the prompt per conversation, model turns
    /// and tool results together; 0 = `max_new_tokens × max_turns`.
    #[serde(default)]
    pub max_tokens: usize,
}

fn default_max_turns() -> usize {
    8
}

fn default_logit_chunk_mb() -> usize {
    crate::logprobs::LogitBudget::DEFAULT_MB
}

impl Rollout {
    /// A conversation's limits.
    pub fn turn_limits(&self) -> crate::sampling::multi_turn::TurnLimits {
        let max_tokens = match self.max_tokens {
            0 => self.max_new_tokens.saturating_mul(self.max_turns),
            n => n,
        };
        crate::sampling::multi_turn::TurnLimits {
            max_turns: self.max_turns,
            max_tokens,
        }
    }

    /// What a training pass may hold at once.
    pub fn pass_memory(&self) -> crate::logprobs::PassMemory {
        crate::logprobs::PassMemory {
            logits: crate::logprobs::LogitBudget::megabytes(self.logit_chunk_mb),
            activations: self.activations,
        }
    }

    /// How the passes over a batch of `prompts` prompts split it into micro-batches.
    pub fn micro_batching(&self, prompts: usize) -> crate::logprobs::MicroBatching {
        use crate::logprobs::MicroBatching;
        match (self.micro_batch_tokens, self.micro_batch) {
            (0, 0) => MicroBatching::Rows(prompts * self.group_size),
            (0, rows) => MicroBatching::Rows(rows),
            (tokens, _) => MicroBatching::Tokens(tokens),
        }
    }
}

/// `algorithm = "sft"`: supervised steps on each env's `target` field; it does not
/// sample, and the whole batch takes one forward/backward.
#[derive(Debug, Clone, Deserialize)]
pub struct SftStage {
    #[serde(flatten)]
    pub common: StageCommon,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `algorithm = "grpo"`.
#[derive(Debug, Clone, Deserialize)]
pub struct GrpoStage {
    #[serde(flatten)]
    pub common: StageCommon,
    #[serde(flatten)]
    pub rollout: Rollout,
    #[serde(default = "default_clip")]
    pub epsilon_low: f64,
    #[serde(default = "default_clip")]
    pub epsilon_high: f64,
    /// β of the k3 KL penalty against the stage's starting model; 0 = none.
    #[serde(default)]
    pub kl: f64,
    /// Drop groups whose rewards are all equal (dynamic filtering).
    #[serde(default)]
    pub filter_zero_variance: bool,
    /// DAPO-style dynamic sampling. Groups without signal are replaced: the step
    /// keeps drawing `prompts_per_step` more prompts (from the same policy, so still
    /// on-policy) until it has `prompts_per_step` groups with signal, at most
    /// `refill_rounds` extra times; it trains on the groups with signal only.
    #[serde(default)]
    pub refill: bool,
    /// The cap on extra draws per step when `refill` is on.
    #[serde(default = "default_refill_rounds")]
    pub refill_rounds: usize,
    #[serde(default)]
    pub baseline: Baseline,
    #[serde(default = "yes")]
    pub scale_by_std: bool,
    #[serde(default)]
    pub unfinished: Unfinished,
    /// Truncated importance-sampling correction of the sampler's log-probs:
    /// `{ kind = "tis" | "icepop" | "seq-mask-tis" | "off", min, max }`, bounds
    /// defaulting per kind to NeMo-RL's (see `grpo::importance`).
    /// Off by default: strictly on-policy, the ratio is 1 up to float rounding.
    #[serde(default)]
    pub importance_correction: ImportanceCorrection,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `algorithm = "mopd"`.
#[derive(Debug, Clone, Deserialize)]
pub struct MopdStage {
    #[serde(flatten)]
    pub common: StageCommon,
    #[serde(flatten)]
    pub rollout: Rollout,
    /// Domain → `base` or an earlier stage's name.
    #[serde(default)]
    pub teachers: BTreeMap<String, String>,
    /// Truncated importance-sampling correction of the sampler's log-probs:
    /// `{ kind = "tis" | "icepop" | "seq-mask-tis" | "off", min, max }`, bounds
    /// defaulting per kind to NeMo-RL's (see `grpo::importance`).
    /// By default Cascade's gate, ICE-POP on [0.5, 2].
    #[serde(default = "cascade_mopd_gate")]
    pub importance_correction: ImportanceCorrection,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `algorithm = "rm"`: trains a reward model (Bradley–Terry on preference pairs)
/// beside the policy, which the stage leaves as it was. `prompts_per_step` is pairs
/// per step. The model is saved as the stage's checkpoint in the
/// `*ForSequenceClassification` layout, for `rlhf` envs to name.
#[derive(Debug, Clone, Deserialize)]
pub struct RmStage {
    #[serde(flatten)]
    pub common: StageCommon,
    /// Preference rows (JSONL, relative to the recipe), in any layout
    /// `cascade_datasets::preference` reads.
    #[serde(default)]
    pub dataset: String,
    /// Held-out preference rows; without it, `eval_fraction` of `dataset` is held out.
    pub eval_dataset: Option<String>,
    #[serde(default = "default_eval_fraction")]
    pub eval_fraction: f64,
    /// Where the reward model starts: absent, the stage's starting policy's trunk
    /// under a fresh score head; else a `*ForSequenceClassification` folder (relative
    /// to the recipe) to train on.
    pub init: Option<String>,
    /// Sequences per pass when scoring the held-out pairs.
    #[serde(default = "default_eval_batch")]
    pub eval_batch: usize,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

fn default_eval_fraction() -> f64 {
    0.1
}
fn default_eval_batch() -> usize {
    32
}

pub(super) fn one() -> f64 {
    1.0
}
fn default_clip() -> f64 {
    0.2
}
fn cascade_mopd_gate() -> ImportanceCorrection {
    ImportanceCorrection::CASCADE_MOPD
}
fn default_refill_rounds() -> usize {
    4
}
fn yes() -> bool {
    true
}

/// Keys of the stages that sample: on an SFT stage, more likely a stage declared with
/// the wrong algorithm than a typo, so the refusal says so.
const SAMPLING_KEYS: [&str; 12] = [
    "group_size",
    "max_decode_rows",
    "finished_check_every",
    "max_new_tokens",
    "temperature",
    "top_p",
    "micro_batch",
    "micro_batch_tokens",
    "logit_chunk_mb",
    "activations",
    "kl",
    "importance_correction",
];

impl StageSpec {
    pub fn common(&self) -> &StageCommon {
        match self {
            StageSpec::Sft(s) => &s.common,
            StageSpec::Grpo(s) => &s.common,
            StageSpec::Mopd(s) => &s.common,
            StageSpec::Rm(s) => &s.common,
        }
    }

    pub fn common_mut(&mut self) -> &mut StageCommon {
        match self {
            StageSpec::Sft(s) => &mut s.common,
            StageSpec::Grpo(s) => &mut s.common,
            StageSpec::Mopd(s) => &mut s.common,
            StageSpec::Rm(s) => &mut s.common,
        }
    }

    pub fn name(&self) -> &str {
        &self.common().name
    }

    pub fn algorithm(&self) -> Algorithm {
        match self {
            StageSpec::Sft(_) => Algorithm::Sft,
            StageSpec::Grpo(_) => Algorithm::Grpo,
            StageSpec::Mopd(_) => Algorithm::Mopd,
            StageSpec::Rm(_) => Algorithm::Rm,
        }
    }

    fn unknown(&self) -> &UnknownKeys {
        match self {
            StageSpec::Sft(s) => &s.unknown,
            StageSpec::Grpo(s) => &s.unknown,
            StageSpec::Mopd(s) => &s.unknown,
            StageSpec::Rm(s) => &s.unknown,
        }
    }

    /// Refuses the first key (in key order) that stage `index`'s algorithm does not read.
    pub(super) fn check_keys(&self, index: usize) -> Result<(), RecipeError> {
        let Some(key) = self.unknown().keys().next() else {
            return Ok(());
        };
        let algorithm = self.algorithm().as_str();
        let mut message = format!(
            "unknown field `{key}` for a `{algorithm}` stage (stage `{}`)",
            self.name()
        );
        if matches!(self.algorithm(), Algorithm::Sft | Algorithm::Rm)
            && SAMPLING_KEYS.contains(&key.as_str())
        {
            message +=
                &format!(": {algorithm} stages do not sample; remove the key or use `grpo`/`mopd`");
        }
        Err(invalid(format!("stage[{index}].{key}"), message))
    }
}
