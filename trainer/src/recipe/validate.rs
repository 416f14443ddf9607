//! [`Recipe::validate`]: every check that can fail before training, each stage type
//! checking its own keys, every error naming its key path.

use std::collections::{BTreeMap, BTreeSet};

use cascade_envs::Registry;

use super::stage::{GrpoStage, MopdStage, RmStage, Rollout, StageCommon, StageSpec};
use super::{invalid, Algorithm, Init, Recipe, RecipeError, StageEnv};
use crate::device::DeviceChoice;
use crate::grpo::ImportanceCorrection;

/// Builds the key paths of stage `index` (`stage[3].lr`).
#[derive(Clone, Copy)]
struct StageKey(usize);

impl StageKey {
    fn of(self, k: &str) -> String {
        format!("stage[{}].{k}", self.0)
    }
}

/// What a stage's checks need from the rest of the recipe.
struct Context<'a> {
    recipe: &'a Recipe,
    registry: &'a Registry,
    /// `base` and the running policy stages before this one (possible MOPD teachers).
    earlier: &'a [&'a str],
    /// The running `rm` stages before this one (reward models `rlhf` envs may name).
    earlier_reward_models: &'a [&'a str],
    /// Every evaluated domain.
    domains: &'a BTreeSet<String>,
}

fn positive(key: String, v: f64) -> Result<(), RecipeError> {
    if v > 0.0 && v.is_finite() {
        Ok(())
    } else {
        Err(invalid(key, format!("must be positive, got {v}")))
    }
}

fn non_negative(key: StageKey, values: &[(f64, &str)]) -> Result<(), RecipeError> {
    for &(v, k) in values {
        if !(v >= 0.0 && v.is_finite()) {
            return Err(invalid(key.of(k), format!("must be ≥ 0, got {v}")));
        }
    }
    Ok(())
}

fn at_least_one(key: StageKey, v: usize, k: &str) -> Result<(), RecipeError> {
    if v == 0 {
        return Err(invalid(key.of(k), "must be at least 1"));
    }
    Ok(())
}

impl Recipe {
    /// Every check that can fail before training: settings in range, names unique,
    /// environments known to `registry`, datasets and the base checkpoint present,
    /// MOPD teachers resolvable.
    pub fn validate(&self, registry: &Registry) -> Result<(), RecipeError> {
        self.validate_run()?;
        let domains = self.validate_evals(registry)?;
        if self.active_stages().next().is_none() {
            return Err(invalid("stage", "the recipe has no stages to run"));
        }
        let mut earlier: Vec<&str> = vec!["base"];
        let mut earlier_reward_models: Vec<&str> = Vec::new();
        let mut names = BTreeSet::new();
        for (i, s) in self.stages.iter().enumerate() {
            let key = StageKey(i);
            check_name(key, s.name())?;
            if !names.insert(s.name()) {
                return Err(invalid(
                    key.of("name"),
                    format!("stage `{}` appears twice", s.name()),
                ));
            }
            if s.common().skip {
                continue;
            }
            let ctx = Context {
                recipe: self,
                registry,
                earlier: &earlier,
                earlier_reward_models: &earlier_reward_models,
                domains: &domains,
            };
            s.validate(key, &ctx)?;
            if s.algorithm().trains_the_policy() {
                earlier.push(s.name());
            } else {
                earlier_reward_models.push(s.name());
            }
        }
        Ok(())
    }

    /// `[run]`: the base checkpoint, tokenizer and device.
    fn validate_run(&self) -> Result<(), RecipeError> {
        let model = self.resolve(&self.run.model);
        if !model.join("config.json").exists() {
            return Err(invalid(
                "run.model",
                format!("no config.json in {}", model.display()),
            ));
        }
        if self.run.init == Init::Checkpoint
            && !model.join(crate::model::weights::SINGLE_FILE).exists()
            && !model.join(crate::model::weights::INDEX_FILE).exists()
        {
            return Err(invalid("run.model", format!("missing checkpoint file: no model.safetensors or model.safetensors.index.json in {}", model.display())));
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
        Ok(())
    }

    /// The scored eval sets: one per domain, known environments, datasets present.
    /// Returns the evaluated domains.
    fn validate_evals(&self, registry: &Registry) -> Result<BTreeSet<String>, RecipeError> {
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
            if e.max_new_tokens == Some(0) {
                return Err(invalid(
                    format!("{key}.max_new_tokens"),
                    "must be at least 1",
                ));
            }
            check_env(registry, &format!("{key}.env"), e.env_name())?;
            self.check_dataset(&format!("{key}.dataset"), &e.dataset)?;
            // A judge may be trained later in the run: any `rm` stage will do.
            let reward_models = self.reward_model_stages();
            let env = crate::runner::data::make_env(
                registry,
                e.env_name(),
                &e.config,
                &self.resolve(&e.dataset),
            )
            .map_err(|err| invalid(format!("{key}.config"), err.to_string()))?;
            check_named_reward_model(&format!("{key}.config"), env.as_ref(), self, &reward_models)?;
        }
        Ok(declared.into_keys().collect())
    }

    /// The names of the running `rm` stages.
    fn reward_model_stages(&self) -> Vec<&str> {
        self.active_stages()
            .filter(|s| !s.algorithm().trains_the_policy())
            .map(StageSpec::name)
            .collect()
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

fn check_env(registry: &Registry, key: &str, name: &str) -> Result<(), RecipeError> {
    if registry.contains(name) {
        return Ok(());
    }
    let known = registry.names().collect::<Vec<_>>().join(", ");
    Err(invalid(
        key,
        format!("unknown environment `{name}`; known: {known}"),
    ))
}

fn check_name(key: StageKey, name: &str) -> Result<(), RecipeError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    if name.is_empty() || name == "base" || name.starts_with('.') || !name.chars().all(allowed) {
        return Err(invalid(
            key.of("name"),
            format!("`{name}` must be letters, digits, `-`, `_`, `.` and not `base`"),
        ));
    }
    Ok(())
}

impl StageSpec {
    /// The checks of a running stage: the shared keys, its environments, then the
    /// algorithm's own keys.
    fn validate(&self, key: StageKey, ctx: &Context) -> Result<(), RecipeError> {
        self.common().validate(key, self.algorithm())?;
        for (j, e) in self.common().envs.iter().enumerate() {
            check_stage_env(key, j, e, self.algorithm(), ctx)?;
        }
        match self {
            StageSpec::Sft(_) => Ok(()),
            StageSpec::Grpo(g) => g.validate(key),
            StageSpec::Mopd(m) => m.validate(key, ctx),
            StageSpec::Rm(r) => r.validate(key, ctx),
        }
    }
}

impl StageCommon {
    fn validate(&self, key: StageKey, algorithm: Algorithm) -> Result<(), RecipeError> {
        positive(key.of("lr"), self.lr)?;
        at_least_one(key, self.steps, "steps")?;
        at_least_one(key, self.prompts_per_step, "prompts_per_step")?;
        non_negative(
            key,
            &[
                (self.warmup_start_lr, "warmup_start_lr"),
                (self.min_lr, "min_lr"),
                (self.max_grad_norm, "max_grad_norm"),
                (self.weight_decay, "weight_decay"),
            ],
        )?;
        match (self.envs.is_empty(), algorithm) {
            (true, Algorithm::Rm) | (false, Algorithm::Sft | Algorithm::Grpo | Algorithm::Mopd) => {
                Ok(())
            }
            (true, _) => Err(invalid(
                key.of("env"),
                "a stage needs at least one [[stage.env]] or [[stage.route]]",
            )),
            (false, Algorithm::Rm) => Err(invalid(
                key.of("env"),
                "an rm stage reads preference rows from `dataset`, not [[stage.env]] or [[stage.route]]",
            )),
        }
    }
}

/// `[[stage.env]]` `j`: a known environment, a positive weight, its dataset, and a
/// reference-response field exactly when the stage is SFT.
fn check_stage_env(
    key: StageKey,
    j: usize,
    e: &StageEnv,
    algorithm: Algorithm,
    ctx: &Context,
) -> Result<(), RecipeError> {
    let ek = e.recipe_key(key.0, j);
    check_env(ctx.registry, &format!("{ek}.name"), &e.name)?;
    if !(e.weight > 0.0 && e.weight.is_finite()) {
        return Err(invalid(
            format!("{ek}.weight"),
            format!("must be positive, got {}", e.weight),
        ));
    }
    ctx.recipe
        .check_dataset(&format!("{ek}.dataset"), &e.dataset)?;
    check_reward_model(&ek, e, algorithm, ctx)?;
    match (&e.target, algorithm) {
        (None, Algorithm::Sft) => Err(invalid(
            format!("{ek}.target"),
            "an SFT stage's env needs `target`: the row field holding the reference response",
        )),
        (Some(t), Algorithm::Sft) if t.is_empty() => {
            Err(invalid(format!("{ek}.target"), "must not be empty"))
        }
        (Some(_), Algorithm::Grpo | Algorithm::Mopd | Algorithm::Rm) => Err(invalid(
            format!("{ek}.target"),
            "only SFT stages read a reference response",
        )),
        _ => Ok(()),
    }
}

/// A stage env that declares a reward model (`rlhf`) names an earlier `rm` stage or
/// a checkpoint folder that exists.
fn check_reward_model(
    ek: &str,
    e: &StageEnv,
    algorithm: Algorithm,
    ctx: &Context,
) -> Result<(), RecipeError> {
    let dataset = ctx.recipe.resolve(&e.dataset);
    let env = crate::runner::data::make_env(ctx.registry, &e.name, &e.config, &dataset)
        .map_err(|err| invalid(format!("{ek}.config"), err.to_string()))?;
    // Only GRPO scores with the model, so it must exist by then; other stages only
    // render the env's prompts, and may name one trained later.
    let later_too = ctx.recipe.reward_model_stages();
    let stages = match algorithm {
        Algorithm::Grpo => ctx.earlier_reward_models,
        _ => &later_too,
    };
    check_named_reward_model(&format!("{ek}.config"), env.as_ref(), ctx.recipe, stages)
}

/// `env`'s eval baseline, if it is judged, is `base` or a policy stage; its reward
/// model, if it declares one, is one of `stages` (`rm` stages) or a checkpoint
/// folder relative to the recipe.
fn check_named_reward_model(
    key: &str,
    env: &dyn cascade_envs::Environment,
    recipe: &Recipe,
    stages: &[&str],
) -> Result<(), RecipeError> {
    let baseline = match (env.model_reward(), env.group()) {
        (Some(spec), _) => spec.baseline.as_str(),
        (None, Some(group)) => group.baseline(),
        (None, None) => return Ok(()),
    };
    let policy_stage = |name: &str| {
        name == "base"
            || recipe
                .active_stages()
                .any(|s| s.name() == name && s.algorithm().trains_the_policy())
    };
    if !policy_stage(baseline) {
        return Err(invalid(
            format!("{key}.baseline"),
            format!("`{baseline}` is not `base` or a policy stage of the recipe"),
        ));
    }
    let Some(spec) = env.model_reward() else {
        return Ok(());
    };
    let named = spec.reward_model.as_str();
    let folder = recipe.resolve(named);
    if stages.contains(&named) || folder.join("config.json").is_file() {
        return Ok(());
    }
    Err(invalid(
        format!("{key}.reward_model"),
        format!(
            "`{named}` is neither an earlier `rm` stage nor a checkpoint folder (no config.json in {})",
            folder.display()
        ),
    ))
}

impl RmStage {
    fn validate(&self, key: StageKey, ctx: &Context) -> Result<(), RecipeError> {
        if self.dataset.is_empty() {
            return Err(invalid(
                key.of("dataset"),
                "an rm stage needs `dataset`: its preference rows",
            ));
        }
        ctx.recipe
            .check_dataset(&key.of("dataset"), &self.dataset)?;
        match &self.eval_dataset {
            Some(path) => ctx.recipe.check_dataset(&key.of("eval_dataset"), path)?,
            None if !(self.eval_fraction > 0.0 && self.eval_fraction < 1.0) => {
                return Err(invalid(
                    key.of("eval_fraction"),
                    format!(
                        "must be in (0, 1) without `eval_dataset`, got {}",
                        self.eval_fraction
                    ),
                ))
            }
            None => {}
        }
        at_least_one(key, self.eval_batch, "eval_batch")?;
        if let Some(init) = &self.init {
            if !ctx.recipe.resolve(init).join("config.json").is_file() {
                return Err(invalid(
                    key.of("init"),
                    format!("no config.json in {}", ctx.recipe.resolve(init).display()),
                ));
            }
        }
        Ok(())
    }
}

impl Rollout {
    fn validate(&self, key: StageKey) -> Result<(), RecipeError> {
        at_least_one(key, self.group_size, "group_size")?;
        at_least_one(key, self.max_new_tokens, "max_new_tokens")?;
        at_least_one(key, self.max_turns, "max_turns")?;
        at_least_one(key, self.logit_chunk_mb, "logit_chunk_mb")?;
        if self.micro_batch > 0 && self.micro_batch_tokens > 0 {
            return Err(invalid(
                key.of("micro_batch_tokens"),
                "set `micro_batch` (rows) or `micro_batch_tokens`, not both",
            ));
        }
        // Greedy decoding gives a GRPO group identical responses (no advantage, no
        // signal) and makes MOPD's student samples off-policy for the tempered
        // distribution it is trained on; both need a positive temperature.
        if !(self.temperature > 0.0 && self.temperature.is_finite()) {
            return Err(invalid(
                key.of("temperature"),
                format!(
                    "must be > 0 for GRPO and MOPD, which train on sampled responses; got {}",
                    self.temperature
                ),
            ));
        }
        if !(self.top_p > 0.0 && self.top_p <= 1.0) {
            return Err(invalid(
                key.of("top_p"),
                format!("must be in (0, 1], got {}", self.top_p),
            ));
        }
        Ok(())
    }
}

/// `importance_correction`'s bounds, the bad one named (`stage[0].importance_correction.min`).
fn check_importance(key: StageKey, c: &ImportanceCorrection) -> Result<(), RecipeError> {
    c.check().map_err(|bad| {
        invalid(
            key.of(&format!("importance_correction.{}", bad.key)),
            bad.message,
        )
    })
}

impl GrpoStage {
    fn validate(&self, key: StageKey) -> Result<(), RecipeError> {
        if self.rollout.group_size < 2 {
            return Err(invalid(
                key.of("group_size"),
                format!(
                    "GRPO needs at least 2 responses per prompt, got {}",
                    self.rollout.group_size
                ),
            ));
        }
        self.rollout.validate(key)?;
        non_negative(
            key,
            &[
                (self.epsilon_low, "epsilon_low"),
                (self.epsilon_high, "epsilon_high"),
                (self.kl, "kl"),
            ],
        )?;
        check_importance(key, &self.importance_correction)?;
        if self.refill && self.refill_rounds == 0 {
            return Err(invalid(
                key.of("refill_rounds"),
                "must be at least 1 when `refill` is on",
            ));
        }
        Ok(())
    }
}

impl MopdStage {
    fn validate(&self, key: StageKey, ctx: &Context) -> Result<(), RecipeError> {
        self.rollout.validate(key)?;
        check_importance(key, &self.importance_correction)?;
        if self.rollout.top_p < 1.0 {
            // The student samples from its nucleus, but the teacher's log-probability
            // is over its full vocabulary: the advantage would compare unlike
            // distributions, and the weights would need the nucleus mass. Refused
            // rather than silently biased.
            return Err(invalid(
                key.of("top_p"),
                format!(
                    "MOPD samples from the full tempered distribution; top_p must be 1, got {}",
                    self.rollout.top_p
                ),
            ));
        }
        for (domain, teacher) in &self.teachers {
            if !ctx.earlier.contains(&teacher.as_str()) {
                return Err(invalid(
                    format!("{}.{domain}", key.of("teachers")),
                    format!("`{teacher}` is not `base` or an earlier stage"),
                ));
            }
        }
        for e in &self.common.envs {
            let domain = e.domain();
            if self.teachers.contains_key(domain) {
                continue;
            }
            if ctx.earlier.len() < 2 {
                return Err(invalid(key.of("teachers"), format!("MOPD stage `{}` has no earlier checkpoint and no teacher named for domain `{domain}`", self.common.name)));
            }
            if !ctx.domains.contains(domain) {
                return Err(invalid(key.of("teachers"), format!("domain `{domain}` has no [[eval]] or [[stage.eval]] set to pick its best checkpoint by; name its teacher")));
            }
        }
        Ok(())
    }
}
