//! Recipe files (TOML): the run's global settings, the domains evaluated after every
//! stage, and the ordered stages with their environments, hyperparameters and own
//! evaluation sets.
//!
//! Algorithms: `grpo`, `mopd`, `sft` (supervised warm-up on the reference
//! responses in each env's `target` row field; it takes no sampling keys), and `rm`
//! (a reward model trained on preference pairs beside the policy, for later `rlhf`
//! envs; the policy passes through it unchanged, and it is never a MOPD teacher). An
//! `sft` stage is an ordinary stage: checkpointed, evaluated, resumable, a possible
//! MOPD teacher. Each algorithm's stage is its own type ([`StageSpec`]), holding only the
//! keys that algorithm reads: any other key is refused by name.
//!
//! Eval sets: `[[eval]]` at the top level and `[[stage.eval]]` inside a stage (the
//! benchmark of the domain that stage trains, declared next to it) form one list of
//! domains. Every domain in it is scored after the base model and after every stage,
//! wherever it was declared, so the stage × domain table shows each domain before,
//! during and after the stage that trains it (forgetting and transfer). A domain is
//! declared once: a second declaration is an error naming both keys. Eval sets of
//! skipped stages are not scored.
//! Everything is validated before any work starts, and errors name the bad key
//! (`stage[2].lr`, `stage[0].env[1].dataset`, …).

mod route;
mod stage;
mod validate;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::device::{DeviceChoice, Precision};

pub use route::{RowSelector, StageRoute};
pub use stage::{GrpoStage, MopdStage, RmStage, Rollout, SftStage, StageCommon, StageSpec};

#[derive(Debug, Error)]
pub enum RecipeError {
    #[error("cannot read recipe {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("recipe {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("recipe key `{key}`: {message}")]
    Invalid { key: String, message: String },
}

fn invalid(key: impl Into<String>, message: impl Into<String>) -> RecipeError {
    RecipeError::Invalid {
        key: key.into(),
        message: message.into(),
    }
}

/// A stage's training algorithm (the `algorithm` key; [`StageSpec`]'s variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    Grpo,
    Mopd,
    /// Supervised fine-tuning on reference responses (a warm-up before RL).
    Sft,
    /// Reward-model training (Bradley–Terry); the policy is left as it was.
    Rm,
}

impl Algorithm {
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Grpo => "grpo",
            Algorithm::Mopd => "mopd",
            Algorithm::Sft => "sft",
            Algorithm::Rm => "rm",
        }
    }

    /// Whether the stage's checkpoint is a policy (every algorithm but `rm`, whose
    /// checkpoint is a reward model).
    pub fn trains_the_policy(self) -> bool {
        self != Algorithm::Rm
    }
}

/// `run.init`: where the base model's weights come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Init {
    /// Read the weights from the checkpoint folder.
    #[default]
    Checkpoint,
    /// Seeded random weights from the folder's config.json (tiny demo runs and tests).
    Random,
}

/// `[run]`: global settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    /// The base checkpoint folder (Hugging Face layout), relative to the recipe.
    pub model: String,
    #[serde(default)]
    pub init: Init,
    /// Tokenizer folder; defaults to `model`.
    pub tokenizer: Option<String>,
    #[serde(default)]
    pub seed: u64,
    /// Output folder, relative to the recipe; `--output` overrides it.
    pub output: Option<String>,
    #[serde(default)]
    pub device: DeviceChoice,
    /// `"auto"` (bf16 autocast on CUDA, float32 on the CPU), `"f32"` or `"bf16"` (on
    /// any device): what the policy, the KL reference and MOPD teachers compute in.
    /// Weights and optimizer moments stay float32 (see `device::Precision`); reward
    /// models score in float32.
    #[serde(default)]
    pub precision: Precision,
    /// Passed to chat templates that switch thinking on and off (Qwen3).
    pub enable_thinking: Option<bool>,
    /// Greedy-decoding cap for evaluation.
    #[serde(default = "default_eval_tokens")]
    pub eval_max_new_tokens: usize,
    /// Keep every MOPD teacher resident instead of loading one at a time.
    #[serde(default)]
    pub keep_teachers_loaded: bool,
    /// Without `keep_teachers_loaded`: MiB of MOPD teachers kept resident across
    /// steps, least recently used dropped first (default: a quarter of available
    /// memory on the CPU, 0 on a GPU; 0 reloads every teacher every step).
    pub teacher_cache_mib: Option<u64>,
    /// libtorch intra-op threads (default: libtorch's choice). Tiny models on a
    /// busy CPU run far faster with 1: their ops are too small to split.
    pub threads: Option<i32>,
    /// `"portable"`: the same floating-point path on every x86-64 CPU from AVX2 up, so
    /// the run's trajectory (and its table) is too; `"native"`: libtorch's fastest for
    /// this CPU. Unset: whatever the process already pinned, else native. See
    /// [`crate::numerics`]; `CASCADE_NUMERICS` overrides it.
    pub numerics: Option<crate::numerics::Numerics>,
    /// Plugin folders or files (relative to the recipe), loaded with those named by
    /// `--plugins` and `CASCADE_PLUGINS`.
    #[serde(default)]
    pub plugins: Vec<String>,
    /// Ceilings on every plugin's limits (`time_s`, `memory_mb`, `load_time_s`,
    /// `workers`), under those of `--plugin-limits`: the lower of the two wins.
    pub plugin_limits: Option<cascade_envs::plugins::PluginLimits>,
}

fn default_eval_tokens() -> usize {
    64
}

/// `[[eval]]` or `[[stage.eval]]`: one domain's evaluation set, scored after the base
/// model and every stage.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSet {
    /// The column name in the stage × domain table; MOPD routes prompts by it.
    pub domain: String,
    /// The environment; defaults to `domain`.
    pub env: Option<String>,
    pub dataset: String,
    /// Use only the first rows.
    pub limit: Option<usize>,
    /// Greedy answers' length in tokens; defaults to `[run] eval_max_new_tokens`. Set
    /// it to the length the domain's stage samples, so the eval scores what the stage
    /// trained (a reward-model judge scores whatever follows the answer too).
    pub max_new_tokens: Option<usize>,
    #[serde(default)]
    pub config: toml::Table,
}

impl EvalSet {
    pub fn env_name(&self) -> &str {
        self.env.as_deref().unwrap_or(&self.domain)
    }
}

impl Recipe {
    /// The length of `domain`'s greedy eval answers: its eval set's `max_new_tokens`,
    /// else the run's `eval_max_new_tokens`.
    pub fn eval_max_new_tokens(&self, domain: &str) -> usize {
        self.eval_sets()
            .into_iter()
            .find(|(_, e)| e.domain == domain)
            .and_then(|(_, e)| e.max_new_tokens)
            .unwrap_or(self.run.eval_max_new_tokens)
    }
}

/// `[[stage.env]]`: an environment of a stage, its dataset and mixture weight.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageEnv {
    pub name: String,
    /// The domain this env's prompts belong to (MOPD routing); defaults to `name`.
    pub domain: Option<String>,
    #[serde(default = "stage::one")]
    pub weight: f64,
    pub dataset: String,
    #[serde(default)]
    pub config: toml::Table,
    /// SFT stages: the row field holding the reference response to learn.
    pub target: Option<String>,
    /// Set for an env a `[[stage.route]]` stands for: the rows of `dataset` it reads.
    #[serde(skip)]
    pub select: Option<RowSelector>,
    /// Set for an env a `[[stage.route]]` stands for: its recipe key, for errors.
    #[serde(skip)]
    pub key: Option<String>,
}

impl StageEnv {
    pub fn domain(&self) -> &str {
        self.domain.as_deref().unwrap_or(&self.name)
    }

    /// The recipe key errors about this env name: `stage[i].env[j]`, or its route's
    /// map entry.
    pub fn recipe_key(&self, stage: usize, j: usize) -> String {
        self.key
            .clone()
            .unwrap_or_else(|| format!("stage[{stage}].env[{j}]"))
    }
}

/// A parsed recipe, with paths resolved against the recipe's folder.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    pub run: RunSettings,
    #[serde(default)]
    pub eval: Vec<EvalSet>,
    #[serde(default, rename = "stage")]
    pub stages: Vec<StageSpec>,
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Recipe {
    /// Reads and parses `path` (no validation; see [`Recipe::validate`]).
    pub fn load(path: &Path) -> Result<Self, RecipeError> {
        let text = std::fs::read_to_string(path).map_err(|e| RecipeError::Read {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Self::parse(&text, path)
    }

    /// Parses recipe text as if read from `path` (relative paths resolve against its
    /// folder). Keys a stage's algorithm does not read are refused here.
    pub fn parse(text: &str, path: &Path) -> Result<Self, RecipeError> {
        let mut recipe: Recipe = toml::from_str(text).map_err(|e| RecipeError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        for (i, stage) in recipe.stages.iter_mut().enumerate() {
            stage.check_keys(i)?;
            let common = stage.common_mut();
            for (r, route) in common.routes.iter().enumerate() {
                let routed = route.expand(i, r)?;
                common.envs.extend(routed);
            }
        }
        recipe.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(recipe)
    }

    /// A path from the recipe, relative to the recipe's folder.
    pub fn resolve(&self, p: &str) -> PathBuf {
        self.dir.join(p)
    }

    pub fn tokenizer_dir(&self) -> PathBuf {
        self.resolve(self.run.tokenizer.as_deref().unwrap_or(&self.run.model))
    }

    /// Every eval set that is scored, with its recipe key: the top-level `[[eval]]`s,
    /// then each running stage's `[[stage.eval]]`s, in order.
    pub fn eval_sets(&self) -> Vec<(String, &EvalSet)> {
        let top = self
            .eval
            .iter()
            .enumerate()
            .map(|(i, e)| (format!("eval[{i}]"), e));
        let staged = self
            .stages
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.common().skip)
            .flat_map(|(i, s)| {
                s.common()
                    .evals
                    .iter()
                    .enumerate()
                    .map(move |(j, e)| (format!("stage[{i}].eval[{j}]"), e))
            });
        top.chain(staged).collect()
    }

    /// The stages that run, in order.
    pub fn active_stages(&self) -> impl Iterator<Item = &StageSpec> {
        self.stages.iter().filter(|s| !s.common().skip)
    }
}
