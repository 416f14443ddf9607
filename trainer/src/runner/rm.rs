//! `rm` stages: a reward model trained with the Bradley–Terry loss on preference
//! pairs, beside the policy (which the stage leaves as it was). Each step draws
//! `prompts_per_step` pairs, seeded like every stage's draws; held-out pairwise
//! accuracy is measured before and after. Preference rows are read and tokenized
//! before any training; rows that are not usable pairs are reported and skipped.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::checkpoint::{checkpoint_dir, save_atomic};
use super::data::EnvData;
use super::evaluate;
use super::record::{RewardModelRecord, StageRecord};
use super::run::Run;
use super::stage::{line, run_steps, AlgorithmStep, StageContext, StepInput};
use super::RunError;
use crate::model::Transformer;
use crate::recipe::{Algorithm, Recipe, RmStage, StageSpec};
use crate::reward_model::bradley_terry::{bt_step, pairwise_accuracy};
use crate::reward_model::pairs::{read_pairs, split, TokenPair};
use crate::tokenizer::TextTokenizer;

/// An `rm` stage's pairs: train and held out, and the rows skipped.
#[derive(Debug, Clone, Default)]
pub struct PreferenceData {
    pub train: Vec<TokenPair>,
    pub eval: Vec<TokenPair>,
    /// `(file, line, reason)` of every skipped row.
    pub skipped: Vec<(String, usize, String)>,
}

/// Every running stage's preference data, in running order (`None` for stages that
/// are not `rm`).
pub fn load_preferences(
    recipe: &Recipe,
    tokenizer: &TextTokenizer,
) -> Result<Vec<Option<PreferenceData>>, RunError> {
    recipe
        .active_stages()
        .map(|s| match s {
            StageSpec::Rm(rm) => load_stage(recipe, rm, tokenizer).map(Some),
            _ => Ok(None),
        })
        .collect()
}

fn load_stage(
    recipe: &Recipe,
    stage: &RmStage,
    tokenizer: &TextTokenizer,
) -> Result<PreferenceData, RunError> {
    let thinking = recipe.run.enable_thinking;
    let mut data = PreferenceData::default();
    let read = |path: &Path, data: &mut PreferenceData| -> Result<Vec<TokenPair>, RunError> {
        let rows = read_pairs(path, tokenizer, thinking)?;
        let file = path.display().to_string();
        data.skipped.extend(
            rows.skipped
                .into_iter()
                .map(|(line, reason)| (file.clone(), line, reason)),
        );
        Ok(rows.pairs)
    };
    let train = read(&recipe.resolve(&stage.dataset), &mut data)?;
    (data.train, data.eval) = match &stage.eval_dataset {
        Some(path) => (train, read(&recipe.resolve(path), &mut data)?),
        None => split(train, stage.eval_fraction, recipe.run.seed),
    };
    for (set, what) in [(&data.train, "training"), (&data.eval, "held-out")] {
        if set.is_empty() {
            return Err(RunError::Dataset {
                path: recipe.resolve(&stage.dataset),
                line: 0,
                message: format!(
                    "stage `{}` has no usable {what} preference pairs ({} rows skipped)",
                    stage.common.name,
                    data.skipped.len()
                ),
            });
        }
    }
    Ok(data)
}

/// Prints the skipped rows' count and the first few reasons.
pub fn report_skipped(out: &mut dyn Write, data: &PreferenceData) {
    if data.skipped.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "   {} preference rows skipped (not usable pairs); the first:",
        data.skipped.len()
    );
    for (file, line, reason) in data.skipped.iter().take(5) {
        let _ = writeln!(out, "     {file}:{line}: {reason}");
    }
}

/// The reward model an `rm` stage starts from: the policy's trunk under a fresh
/// score head, or the stage's `init` checkpoint.
pub fn initial_reward_model(
    recipe: &Recipe,
    stage: &RmStage,
    policy: &Transformer,
    tokenizer: &TextTokenizer,
) -> Result<Transformer, RunError> {
    let mut model = match &stage.init {
        Some(dir) => crate::reward_model::load_reward_model(
            &recipe.resolve(dir),
            &recipe.tokenizer_dir(),
            policy.device(),
        )
        .map_err(|e| RunError::Env {
            name: "rm".into(),
            message: e.to_string(),
        })?,
        None => policy.reward_model_from(tokenizer.pad_id, recipe.run.seed as i64)?,
    };
    model.set_source_dir(&recipe.tokenizer_dir());
    model.set_trainable(true);
    Ok(model)
}

/// An `rm` stage's step; the stage loop's model is the reward model.
pub struct RmStep<'a> {
    pub stage: &'a RmStage,
    pub pairs: &'a [TokenPair],
}

#[derive(serde::Serialize)]
struct RmLine {
    #[serde(flatten)]
    stats: crate::reward_model::bradley_terry::BtStats,
    lr: f64,
    step_s: f64,
}

impl AlgorithmStep for RmStep<'_> {
    fn step(&mut self, mut input: StepInput) -> Result<Value, RunError> {
        let picks: Vec<&TokenPair> = (0..self.stage.common.prompts_per_step)
            .map(|_| &self.pairs[input.rng.below(self.pairs.len())])
            .collect();
        let stats = bt_step(
            input.policy,
            input.optimizer,
            &picks,
            input.lr,
            self.stage.common.max_grad_norm,
        );
        Ok(line(&RmLine {
            stats,
            lr: input.lr,
            step_s: input.start.elapsed().as_secs_f64(),
        }))
    }
}

/// The run's reward-model stages and the domains their models judge.
impl Run<'_> {
    /// An `rm` stage: trains its reward model (from the policy's trunk or its
    /// `init`), saves it as the stage's checkpoint and records its held-out pairwise
    /// accuracy before and after; the policy's row repeats the row above.
    pub(super) fn reward_model_stage(
        &mut self,
        index: usize,
        rm: &RmStage,
        policy: &Transformer,
        preferences: &PreferenceData,
    ) -> Result<(), RunError> {
        report_skipped(self.out, preferences);
        let mut model = initial_reward_model(self.recipe, rm, policy, self.tokenizer)?;
        let accuracy_before = pairwise_accuracy(&model, &preferences.eval, rm.eval_batch);
        let mut ctx = StageContext {
            tokenizer: self.tokenizer,
            seed: self.recipe.run.seed,
            stage_index: index,
            log: &mut self.log,
        };
        let mut step = RmStep {
            stage: rm,
            pairs: &preferences.train,
        };
        run_steps(&mut ctx, &rm.common, Algorithm::Rm, &model, &[], &mut step)?;
        save_atomic(
            &model,
            self.output,
            &rm.common.name,
            &self.recipe.tokenizer_dir(),
        )?;
        model.round_to_saved_dtype();
        let accuracy = pairwise_accuracy(&model, &preferences.eval, rm.eval_batch);
        // The policy is as it was; only domains judged by a model it could not
        // score before (this stage's) have news.
        let mut scores = self
            .record
            .stages
            .last()
            .map(|s| s.scores.clone())
            .unwrap_or_default();
        scores.extend(self.eval_scores(policy, true, &rm.common.name)?);
        self.record.stages.push(StageRecord {
            stage: rm.common.name.clone(),
            algorithm: Some(Algorithm::Rm),
            scores,
            teachers: BTreeMap::new(),
            reward_model: Some(RewardModelRecord {
                accuracy_before,
                accuracy,
                train_pairs: preferences.train.len(),
                eval_pairs: preferences.eval.len(),
                skipped_rows: preferences.skipped.len(),
            }),
        });
        self.record.save(self.output)?;
        self.show_progress();
        Ok(())
    }

    /// A model-judged domain's score after `stage`: the win rate of `policy`'s
    /// greedy responses against the env's `baseline` checkpoint's (saved when that
    /// checkpoint is scored, `evals/DOMAIN.BASELINE.json`), judged by the reward
    /// model (`rlhf`) or the env's group judge (`genrm`); `None` before the baseline
    /// or the reward model exists, and for domains that check.
    pub(super) fn model_judged_score(
        &self,
        policy: &Transformer,
        data: &EnvData,
        stage: &str,
    ) -> Result<Option<f64>, RunError> {
        let baseline_name = match (data.env.model_reward(), data.env.group()) {
            (Some(spec), _) => spec.baseline.as_str(),
            (None, Some(group)) => group.baseline(),
            (None, None) => return Ok(None),
        };
        let Some(baseline) = self.baseline_responses(policy, data, baseline_name, stage)? else {
            return Ok(None);
        };
        let max_new_tokens = self.recipe.eval_max_new_tokens(&data.domain);
        let Some(spec) = data.env.model_reward() else {
            return Ok(Some(evaluate::group_win_rate(
                policy,
                self.tokenizer,
                data,
                &baseline,
                max_new_tokens,
            )));
        };
        let dir = self.reward_model_dir(&spec.reward_model);
        if !dir.join("config.json").is_file() {
            return Ok(None);
        }
        let judge =
            crate::reward_model::load_reward_model(&dir, &self.recipe.tokenizer_dir(), self.device)
                .map_err(|e| RunError::Env {
                    name: data.env.name().to_owned(),
                    message: e.to_string(),
                })?;
        Ok(Some(evaluate::win_rate(
            policy,
            &judge,
            self.tokenizer,
            data,
            &baseline,
            max_new_tokens,
        )))
    }

    /// The `baseline` checkpoint's greedy responses on `data`: computed and saved
    /// when `stage` is that checkpoint, read back afterwards; `None` before.
    fn baseline_responses(
        &self,
        policy: &Transformer,
        data: &EnvData,
        baseline: &str,
        stage: &str,
    ) -> Result<Option<Vec<Vec<i64>>>, RunError> {
        let dir = self.output.join("evals");
        let path = dir.join(format!("{}.{baseline}.json", data.domain));
        if stage == baseline {
            let max_new_tokens = self.recipe.eval_max_new_tokens(&data.domain);
            let responses =
                evaluate::greedy_responses(policy, self.tokenizer, data, max_new_tokens);
            std::fs::create_dir_all(&dir).map_err(|e| RunError::io(&dir, e))?;
            let text = serde_json::to_string(&responses).unwrap_or_default();
            super::record::write_atomic(&path, text.as_bytes())?;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let responses = serde_json::from_str(&text).map_err(|e| RunError::Dataset {
            path: path.clone(),
            line: 0,
            message: e.to_string(),
        })?;
        Ok(Some(responses))
    }

    /// An `rlhf` env's `reward_model`: an `rm` stage's checkpoint, or a folder
    /// relative to the recipe.
    pub(super) fn reward_model_dir(&self, name: &str) -> PathBuf {
        let is_rm_stage = self
            .recipe
            .active_stages()
            .any(|s| s.name() == name && !s.algorithm().trains_the_policy());
        if is_rm_stage {
            checkpoint_dir(self.output, name)
        } else {
            self.recipe.resolve(name)
        }
    }
}
