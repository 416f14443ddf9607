//! Recipe files (TOML): the run's global settings, the domains evaluated after every
//! stage, and the ordered stages with their environments, hyperparameters and own
//! evaluation sets.
//!
//! Algorithms: `grpo`, `mopd`, and `sft` (supervised warm-up on the reference
//! responses in each env's `target` row field; it takes no sampling keys). An `sft`
//! stage is an ordinary stage: checkpointed, evaluated, resumable, a possible MOPD
//! teacher.
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

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cascade_envs::Registry;
use serde::Deserialize;
use thiserror::Error;

use crate::device::DeviceChoice;
use crate::grpo::step::Unfinished;
use crate::grpo::Baseline;
use crate::optim::Decay;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    Grpo,
    Mopd,
    /// Supervised fine-tuning on reference responses (a warm-up before RL).
    Sft,
}

impl Algorithm {
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Grpo => "grpo",
            Algorithm::Mopd => "mopd",
            Algorithm::Sft => "sft",
        }
    }
}

/// `[run]`: global settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSettings {
    /// The base checkpoint folder (Hugging Face layout), relative to the recipe.
    pub model: String,
    /// `checkpoint` (read the weights) or `random` (seeded random weights from the
    /// folder's config.json: for tiny demo runs and tests).
    #[serde(default = "default_init")]
    pub init: String,
    /// Tokenizer folder; defaults to `model`.
    pub tokenizer: Option<String>,
    #[serde(default)]
    pub seed: u64,
    /// Output folder, relative to the recipe; `--output` overrides it.
    pub output: Option<String>,
    #[serde(default)]
    pub device: DeviceChoice,
    /// Passed to chat templates that switch thinking on and off (Qwen3).
    pub enable_thinking: Option<bool>,
    /// Greedy-decoding cap for evaluation.
    #[serde(default = "default_eval_tokens")]
    pub eval_max_new_tokens: usize,
    /// Keep every MOPD teacher resident instead of loading one at a time.
    #[serde(default)]
    pub keep_teachers_loaded: bool,
    /// libtorch intra-op threads (default: libtorch's choice). Tiny models on a
    /// busy CPU run far faster with 1: their ops are too small to split.
    pub threads: Option<i32>,
}

fn default_init() -> String {
    "checkpoint".into()
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
    #[serde(default)]
    pub config: toml::Table,
}

impl EvalSet {
    pub fn env_name(&self) -> &str {
        self.env.as_deref().unwrap_or(&self.domain)
    }
}

/// `[[stage.env]]`: an environment of a stage, its dataset and mixture weight.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageEnv {
    pub name: String,
    /// The domain this env's prompts belong to (MOPD routing); defaults to `name`.
    pub domain: Option<String>,
    #[serde(default = "one")]
    pub weight: f64,
    pub dataset: String,
    #[serde(default)]
    pub config: toml::Table,
    /// SFT stages: the row field holding the reference response to learn.
    pub target: Option<String>,
}

impl StageEnv {
    pub fn domain(&self) -> &str {
        self.domain.as_deref().unwrap_or(&self.name)
    }
}

fn one() -> f64 {
    1.0
}

/// `[[stage]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub name: String,
    pub algorithm: Algorithm,
    /// Listed for the published order but not run (its environments are not built).
    #[serde(default)]
    pub skip: bool,
    pub steps: usize,
    pub lr: f64,
    /// Prompts drawn per step (SFT: rows per step).
    pub prompts_per_step: usize,
    /// Responses sampled per prompt (GRPO, MOPD; SFT stages do not sample).
    #[serde(default)]
    pub group_size: usize,
    /// Sampling cap (GRPO, MOPD).
    #[serde(default)]
    pub max_new_tokens: usize,
    #[serde(default = "one")]
    pub temperature: f64,
    #[serde(default = "one")]
    pub top_p: f64,
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
    /// GRPO: DAPO-style dynamic sampling. Groups without signal are replaced: the
    /// step keeps drawing `prompts_per_step` more prompts (from the same policy, so
    /// still on-policy) until it has `prompts_per_step` groups with signal, at most
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
    #[serde(default)]
    pub warmup_steps: usize,
    #[serde(default)]
    pub warmup_start_lr: f64,
    #[serde(default)]
    pub decay: Decay,
    #[serde(default)]
    pub min_lr: f64,
    /// Rows per forward/backward; 0 = the whole batch at once.
    #[serde(default)]
    pub micro_batch: usize,
    #[serde(default = "one")]
    pub max_grad_norm: f64,
    #[serde(default)]
    pub weight_decay: f64,
    #[serde(default, rename = "env")]
    pub envs: Vec<StageEnv>,
    /// This stage's own eval sets; they join the run's (see the module docs).
    #[serde(default, rename = "eval")]
    pub evals: Vec<EvalSet>,
    /// MOPD: domain → `base` or an earlier stage's name.
    #[serde(default)]
    pub teachers: BTreeMap<String, String>,
}

fn default_clip() -> f64 {
    0.2
}
fn default_refill_rounds() -> usize {
    4
}
fn yes() -> bool {
    true
}

/// A parsed, validated recipe, with paths resolved against the recipe's folder.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    pub run: RunSettings,
    #[serde(default)]
    pub eval: Vec<EvalSet>,
    #[serde(default, rename = "stage")]
    pub stages: Vec<Stage>,
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

    /// Parses recipe text as if read from `path` (relative paths resolve against its folder).
    pub fn parse(text: &str, path: &Path) -> Result<Self, RecipeError> {
        let mut recipe: Recipe = toml::from_str(text).map_err(|e| RecipeError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
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
            .filter(|(_, s)| !s.skip)
            .flat_map(|(i, s)| {
                s.evals
                    .iter()
                    .enumerate()
                    .map(move |(j, e)| (format!("stage[{i}].eval[{j}]"), e))
            });
        top.chain(staged).collect()
    }

    /// The stages that run, in order.
    pub fn active_stages(&self) -> impl Iterator<Item = &Stage> {
        self.stages.iter().filter(|s| !s.skip)
    }

    /// Every check that can fail before training: settings in range, names unique,
    /// environments known to `registry`, datasets and the base checkpoint present,
    /// MOPD teachers resolvable.
    pub fn validate(&self, registry: &Registry) -> Result<(), RecipeError> {
        let known = || registry.names().collect::<Vec<_>>().join(", ");
        let model = self.resolve(&self.run.model);
        if !model.join("config.json").exists() {
            return Err(invalid(
                "run.model",
                format!("no config.json in {}", model.display()),
            ));
        }
        match self.run.init.as_str() {
            "checkpoint" => {
                if !model.join(crate::model::weights::SINGLE_FILE).exists()
                    && !model.join(crate::model::weights::INDEX_FILE).exists()
                {
                    return Err(invalid("run.model", format!("missing checkpoint file: no model.safetensors or model.safetensors.index.json in {}", model.display())));
                }
            }
            "random" => {}
            other => {
                return Err(invalid(
                    "run.init",
                    format!("must be `checkpoint` or `random`, got `{other}`"),
                ))
            }
        }
        if !self.tokenizer_dir().join("tokenizer.json").exists() {
            return Err(invalid(
                "run.tokenizer",
                format!("no tokenizer.json in {}", self.tokenizer_dir().display()),
            ));
        }
        if self.run.device == DeviceChoice::Cuda && !tch::Cuda::is_available() {
            return Err(invalid(
                "run.device",
                "`cuda` asked for but libtorch sees no GPU",
            ));
        }
        let mut declared: BTreeMap<String, String> = BTreeMap::new();
        for (key, e) in self.eval_sets() {
            if e.domain.is_empty() {
                return Err(invalid(format!("{key}.domain"), "must not be empty"));
            }
            if let Some(first) = declared.insert(e.domain.clone(), key.clone()) {
                return Err(invalid(
                    format!("{key}.domain"),
                    format!(
                        "`{}` is already evaluated by `{first}`; a domain has one eval set",
                        e.domain
                    ),
                ));
            }
            if !registry.contains(e.env_name()) {
                return Err(invalid(
                    format!("{key}.env"),
                    format!("unknown environment `{}`; known: {}", e.env_name(), known()),
                ));
            }
            self.check_dataset(&format!("{key}.dataset"), &e.dataset)?;
        }
        let domains: BTreeSet<String> = declared.into_keys().collect();
        if self.active_stages().next().is_none() {
            return Err(invalid("stage", "the recipe has no stages to run"));
        }
        let mut earlier: Vec<&str> = vec!["base"];
        let mut names = BTreeSet::new();
        for (i, s) in self.stages.iter().enumerate() {
            let key = |k: &str| format!("stage[{i}].{k}");
            if s.name.is_empty()
                || s.name == "base"
                || s.name.starts_with('.')
                || !s
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            {
                return Err(invalid(
                    key("name"),
                    format!(
                        "`{}` must be letters, digits, `-`, `_`, `.` and not `base`",
                        s.name
                    ),
                ));
            }
            if !names.insert(s.name.clone()) {
                return Err(invalid(
                    key("name"),
                    format!("stage `{}` appears twice", s.name),
                ));
            }
            if s.skip {
                continue;
            }
            let positive = |v: f64, k: &str| {
                if v > 0.0 && v.is_finite() {
                    Ok(())
                } else {
                    Err(invalid(key(k), format!("must be positive, got {v}")))
                }
            };
            positive(s.lr, "lr")?;
            if s.steps == 0 {
                return Err(invalid(key("steps"), "must be at least 1"));
            }
            if s.prompts_per_step == 0 {
                return Err(invalid(key("prompts_per_step"), "must be at least 1"));
            }
            if s.algorithm == Algorithm::Grpo && s.group_size < 2 {
                return Err(invalid(
                    key("group_size"),
                    format!(
                        "GRPO needs at least 2 responses per prompt, got {}",
                        s.group_size
                    ),
                ));
            }
            if s.algorithm == Algorithm::Sft {
                // SFT reads reference responses; a sampling setting would do nothing,
                // so it is more likely a stage declared with the wrong algorithm.
                for (set, k) in [
                    (s.group_size != 0, "group_size"),
                    (s.max_new_tokens != 0, "max_new_tokens"),
                    (s.kl != 0.0, "kl"),
                ] {
                    if set {
                        return Err(invalid(
                            key(k),
                            "SFT stages do not sample; remove the key or use `grpo`/`mopd`",
                        ));
                    }
                }
            } else {
                if s.group_size == 0 {
                    return Err(invalid(key("group_size"), "must be at least 1"));
                }
                if s.max_new_tokens == 0 {
                    return Err(invalid(key("max_new_tokens"), "must be at least 1"));
                }
            }
            if s.temperature.is_nan() || s.temperature < 0.0 {
                return Err(invalid(
                    key("temperature"),
                    format!("must be ≥ 0, got {}", s.temperature),
                ));
            }
            if !(s.top_p > 0.0 && s.top_p <= 1.0) {
                return Err(invalid(
                    key("top_p"),
                    format!("must be in (0, 1], got {}", s.top_p),
                ));
            }
            for (v, k) in [
                (s.epsilon_low, "epsilon_low"),
                (s.epsilon_high, "epsilon_high"),
                (s.kl, "kl"),
                (s.warmup_start_lr, "warmup_start_lr"),
                (s.min_lr, "min_lr"),
                (s.max_grad_norm, "max_grad_norm"),
                (s.weight_decay, "weight_decay"),
            ] {
                if !(v >= 0.0 && v.is_finite()) {
                    return Err(invalid(key(k), format!("must be ≥ 0, got {v}")));
                }
            }
            if s.envs.is_empty() {
                return Err(invalid(
                    key("env"),
                    "a stage needs at least one [[stage.env]]",
                ));
            }
            let mut stage_domains = Vec::new();
            for (j, e) in s.envs.iter().enumerate() {
                let ek = format!("stage[{i}].env[{j}]");
                if !registry.contains(&e.name) {
                    return Err(invalid(
                        format!("{ek}.name"),
                        format!("unknown environment `{}`; known: {}", e.name, known()),
                    ));
                }
                if !(e.weight > 0.0 && e.weight.is_finite()) {
                    return Err(invalid(
                        format!("{ek}.weight"),
                        format!("must be positive, got {}", e.weight),
                    ));
                }
                self.check_dataset(&format!("{ek}.dataset"), &e.dataset)?;
                match (&e.target, s.algorithm) {
                    (None, Algorithm::Sft) => {
                        return Err(invalid(
                            format!("{ek}.target"),
                            "an SFT stage's env needs `target`: the row field holding the reference response",
                        ))
                    }
                    (Some(t), Algorithm::Sft) if t.is_empty() => {
                        return Err(invalid(format!("{ek}.target"), "must not be empty"))
                    }
                    (Some(_), Algorithm::Grpo | Algorithm::Mopd) => {
                        return Err(invalid(
                            format!("{ek}.target"),
                            "only SFT stages read a reference response",
                        ))
                    }
                    _ => {}
                }
                stage_domains.push(e.domain().to_owned());
            }
            if s.refill && s.algorithm != Algorithm::Grpo {
                return Err(invalid(key("refill"), "only GRPO stages refill groups"));
            }
            if s.refill && s.refill_rounds == 0 {
                return Err(invalid(
                    key("refill_rounds"),
                    "must be at least 1 when `refill` is on",
                ));
            }
            if s.algorithm == Algorithm::Mopd {
                if s.top_p < 1.0 {
                    // The student samples from its nucleus, but the teacher's
                    // log-probability is over its full vocabulary: the advantage
                    // would compare unlike distributions, and the weights would need
                    // the nucleus mass. Refused rather than silently biased.
                    return Err(invalid(
                        key("top_p"),
                        format!("MOPD samples from the full tempered distribution; top_p must be 1, got {}", s.top_p),
                    ));
                }
                for (domain, teacher) in &s.teachers {
                    if !earlier.contains(&teacher.as_str()) {
                        return Err(invalid(
                            format!("{}.{domain}", key("teachers")),
                            format!("`{teacher}` is not `base` or an earlier stage"),
                        ));
                    }
                }
                for domain in &stage_domains {
                    if !s.teachers.contains_key(domain) {
                        if earlier.len() < 2 {
                            return Err(invalid(key("teachers"), format!("MOPD stage `{}` has no earlier checkpoint and no teacher named for domain `{domain}`", s.name)));
                        }
                        if !domains.contains(domain) {
                            return Err(invalid(key("teachers"), format!("domain `{domain}` has no [[eval]] or [[stage.eval]] set to pick its best checkpoint by; name its teacher")));
                        }
                    }
                }
            } else if !s.teachers.is_empty() {
                return Err(invalid(key("teachers"), "only MOPD stages have teachers"));
            }
            earlier.push(&s.name);
        }
        Ok(())
    }

    fn check_dataset(&self, key: &str, path: &str) -> Result<(), RecipeError> {
        let p = self.resolve(path);
        if !p.is_file() {
            return Err(invalid(
                key,
                format!("dataset {} does not exist", p.display()),
            ));
        }
        Ok(())
    }
}
