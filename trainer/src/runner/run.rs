//! One run's stages, one after another: the starting policy, the base model's eval,
//! and per stage its algorithm's step in the stage loop, then its checkpoint, eval,
//! record and plots.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use tch::{Device, Kind};

use super::checkpoint::{checkpoint_dir, save_atomic};
use super::data::EnvData;
use super::grpo::GrpoStep;
use super::model_rewards::ModelRewards;
use super::mopd::{choose_teachers, MopdStep};
use super::record::{RunRecord, StageRecord};
use super::rm::PreferenceData;
use super::sft::SftStep;
use super::stage::{run_steps, AlgorithmStep, StageContext};
use super::{evaluate, plots, RunError};
use crate::metrics::MetricsLog;
use crate::model::{ModelConfig, Transformer};
use crate::mopd::pool::{default_cache_bytes, TeacherPool};
use crate::recipe::{Init, Recipe, StageSpec};
use crate::tokenizer::TextTokenizer;

/// What every stage of a run shares.
pub struct Run<'a> {
    pub recipe: &'a Recipe,
    pub tokenizer: &'a TextTokenizer,
    pub device: Device,
    pub output: &'a Path,
    /// The domains scored after every stage.
    pub evals: &'a [EnvData],
    pub record: RunRecord,
    pub log: MetricsLog,
    pub out: &'a mut dyn Write,
}

impl Run<'_> {
    /// The base model's folder: the recipe's checkpoint, or the saved random init.
    fn base_dir(&self) -> PathBuf {
        match self.recipe.run.init {
            Init::Random => checkpoint_dir(self.output, "base"),
            Init::Checkpoint => self.recipe.resolve(&self.recipe.run.model),
        }
    }

    /// A stage's checkpoint folder, `base` included.
    fn stage_dir(&self, stage: &str) -> PathBuf {
        if stage == "base" {
            self.base_dir()
        } else {
            checkpoint_dir(self.output, stage)
        }
    }

    /// A policy-side model (policy, KL reference) from `dir`, at the run's precision.
    fn load(&self, dir: &Path) -> Result<Transformer, RunError> {
        let mut m = Transformer::load(dir, self.device, Kind::Float)?;
        m.set_source_dir(&self.recipe.tokenizer_dir());
        m.set_precision(self.recipe.run.precision);
        Ok(m)
    }

    /// The policy to continue from: the last done stage's checkpoint, else the base
    /// model (a random init saved as `checkpoints/base` the first time).
    pub fn start_policy(&self, last_done: Option<&String>) -> Result<Transformer, RunError> {
        let policy = match last_done {
            Some(last) => self.load(&checkpoint_dir(self.output, last))?,
            None => self.load_base()?,
        };
        if self.recipe.run.init == Init::Random && !self.base_dir().join("config.json").exists() {
            save_atomic(&policy, self.output, "base", &self.recipe.tokenizer_dir())?;
        }
        Ok(policy)
    }

    fn load_base(&self) -> Result<Transformer, RunError> {
        let recipe = self.recipe;
        let dir = recipe.resolve(&recipe.run.model);
        let mut model = match recipe.run.init {
            Init::Random => {
                let config = ModelConfig::from_file(&dir.join("config.json"))?;
                Transformer::random(config, self.device, Kind::Float, recipe.run.seed as i64)?
            }
            Init::Checkpoint => Transformer::load(&dir, self.device, Kind::Float)?,
        };
        model.set_source_dir(&recipe.tokenizer_dir());
        model.set_precision(recipe.run.precision);
        Ok(model)
    }

    /// Scores the base model, unless the record already has it.
    pub fn record_base(&mut self, policy: &Transformer) -> Result<(), RunError> {
        if self.record.stages.is_empty() {
            self.push_record(policy, None, BTreeMap::new())?;
            let _ = writeln!(self.out, "{}", self.record.table());
        }
        Ok(())
    }

    /// `policy`'s score in every domain (`judged_only`: in the model-judged ones)
    /// after `stage` (`base` included).
    pub(super) fn eval_scores(
        &self,
        policy: &Transformer,
        judged_only: bool,
        stage: &str,
    ) -> Result<BTreeMap<String, f64>, RunError> {
        let mut scores = BTreeMap::new();
        for d in self.evals {
            let score = match d.env.model_reward() {
                Some(_) => self.model_judged_score(policy, d, stage)?,
                None if judged_only => None,
                None if d.env.group().is_some() => self.model_judged_score(policy, d, stage)?,
                None => Some(evaluate::evaluate(
                    policy,
                    self.tokenizer,
                    d,
                    self.recipe.eval_max_new_tokens(&d.domain),
                )),
            };
            if let Some(score) = score {
                scores.insert(d.domain.clone(), score);
            }
        }
        Ok(scores)
    }

    /// Evaluates `policy` in every domain, appends its record and saves the record.
    fn push_record(
        &mut self,
        policy: &Transformer,
        stage: Option<&StageSpec>,
        teachers: BTreeMap<String, String>,
    ) -> Result<(), RunError> {
        let scores = self.eval_scores(policy, false, stage.map_or("base", StageSpec::name))?;
        self.record.stages.push(StageRecord {
            stage: stage.map_or("base", StageSpec::name).to_owned(),
            algorithm: stage.map(StageSpec::algorithm),
            scores,
            teachers,
            reward_model: None,
        });
        self.record.save(self.output)
    }

    /// The policy checkpoint stage `index` starts from: the last policy stage's
    /// before it (`rm` stages leave the policy as it was), else the base model.
    fn policy_dir_before(&self, index: usize, stages: &[&StageSpec]) -> PathBuf {
        match stages[..index]
            .iter()
            .rev()
            .find(|s| s.algorithm().trains_the_policy())
        {
            Some(s) => checkpoint_dir(self.output, s.name()),
            None => self.base_dir(),
        }
    }

    /// Runs stage `index` of `stages` (the running stages) on `policy`, then saves,
    /// evaluates and records it. An `rm` stage trains a reward model on
    /// `preferences` instead, and saves that.
    pub fn stage(
        &mut self,
        index: usize,
        stages: &[&StageSpec],
        policy: &mut Transformer,
        data: &[EnvData],
        preferences: Option<&PreferenceData>,
    ) -> Result<(), RunError> {
        let stage = stages[index];
        let common = stage.common();
        let _ = writeln!(
            self.out,
            "== stage {} ({}) : {} steps",
            common.name,
            stage.algorithm().as_str(),
            common.steps
        );
        if let (StageSpec::Rm(rm), Some(preferences)) = (stage, preferences) {
            return self.reward_model_stage(index, rm, policy, preferences);
        }
        let start_dir = self.policy_dir_before(index, stages);
        let Prepared { mut step, teachers } = self.algorithm_step(stage, &start_dir, data)?;
        let mut ctx = StageContext {
            tokenizer: self.tokenizer,
            seed: self.recipe.run.seed,
            stage_index: index,
            log: &mut self.log,
        };
        run_steps(
            &mut ctx,
            common,
            stage.algorithm(),
            policy,
            data,
            step.as_mut(),
        )?;
        drop(step);
        save_atomic(
            policy,
            self.output,
            &common.name,
            &self.recipe.tokenizer_dir(),
        )?;
        // Continue from exactly what was saved, as a resumed run would.
        policy.round_to_saved_dtype();
        self.push_record(policy, Some(stage), teachers)?;
        self.show_progress();
        Ok(())
    }

    /// Plots and prints the record after a stage.
    pub(super) fn show_progress(&mut self) {
        let metrics = read_metrics(&self.output.join("metrics.jsonl"));
        if let Err(e) = plots::draw(&self.output.join("plots"), &metrics, &self.record) {
            let _ = writeln!(self.out, "   (plots not drawn: {e})");
        }
        let _ = writeln!(self.out, "{}", self.record.table());
    }

    /// `stage`'s algorithm step, with what it needs from the run, and (MOPD) the
    /// teacher of each domain for the record.
    fn algorithm_step<'s>(
        &mut self,
        stage: &'s StageSpec,
        start_dir: &Path,
        data: &[EnvData],
    ) -> Result<Prepared<'s>, RunError> {
        let untaught = |step: Box<dyn AlgorithmStep + 's>| Prepared {
            step,
            teachers: BTreeMap::new(),
        };
        Ok(match stage {
            StageSpec::Sft(s) => untaught(Box::new(SftStep { stage: s })),
            StageSpec::Grpo(g) => {
                let reference = if g.kl > 0.0 {
                    Some(self.load(start_dir)?)
                } else {
                    None
                };
                let locate = |name: &str| self.reward_model_dir(name);
                let model_rewards =
                    ModelRewards::load(data, &locate, &self.recipe.tokenizer_dir(), self.device)?;
                untaught(Box::new(GrpoStep {
                    stage: g,
                    reference,
                    model_rewards,
                }))
            }
            StageSpec::Mopd(m) => {
                let chosen = choose_teachers(m, &self.record, |s| self.stage_dir(s))?;
                let teachers: BTreeMap<String, String> = chosen
                    .iter()
                    .map(|(d, (s, _))| (d.clone(), s.clone()))
                    .collect();
                let _ = writeln!(self.out, "   teachers: {teachers:?}");
                let paths = chosen.into_iter().map(|(d, (_, p))| (d, p)).collect();
                let keep = self.recipe.run.keep_teachers_loaded;
                let cache_bytes = match self.recipe.run.teacher_cache_mib {
                    Some(mib) => mib.saturating_mul(1 << 20),
                    None => default_cache_bytes(self.device),
                };
                let step = MopdStep {
                    stage: m,
                    pool: TeacherPool::new(paths, keep, self.device)
                        .at_precision(self.recipe.run.precision)
                        .with_cache_bytes(cache_bytes),
                    teacher_names: teachers.clone(),
                };
                Prepared {
                    step: Box::new(step),
                    teachers,
                }
            }
            StageSpec::Rm(r) => {
                return Err(RunError::Env {
                    name: "rm".into(),
                    message: format!("stage `{}` has no preference pairs loaded", r.common.name),
                })
            }
        })
    }
}

/// A stage's algorithm step and, for MOPD, each domain's teacher (for the record).
struct Prepared<'s> {
    step: Box<dyn AlgorithmStep + 's>,
    teachers: BTreeMap<String, String>,
}

fn read_metrics(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
