//! The Cascade stage runner: stages in recipe order; after each, an atomic Hugging
//! Face checkpoint, an eval of every domain, and the run record (`evals.json`,
//! `evals.csv`, the printed stage × domain table, `plots/*.png`).
//!
//! Output folder layout (SPEC "Training runs"): `metrics.jsonl`, `evals.json`,
//! `evals.csv`, `checkpoints/STAGE/` (plus `checkpoints/base/` for a random-init base),
//! `plots/reward.png`, `plots/evals.png`.
//!
//! Resume: a stage counts as done when it is in `evals.json` and its checkpoint
//! exists. `--resume` continues after the last done stage (its checkpoint is the
//! policy); a named stage restarts there, forgetting it and everything after it. An
//! interrupted stage restarts from its beginning with the same seeds, and its partial
//! metrics lines are dropped, so no step is lost from or repeated in the record.

pub mod checkpoint;
pub mod data;
pub mod episodes;
pub mod evaluate;
mod grpo;
mod model_rewards;
mod mopd;
pub mod plots;
pub mod record;
pub mod resume;
pub mod rm;
mod run;
mod sft;
pub mod stage;

use std::io::Write;
use std::path::{Path, PathBuf};

use cascade_envs::Registry;
use thiserror::Error;

use crate::metrics::MetricsLog;
use crate::model::ModelError;
use crate::mopd::TeacherError;
use crate::recipe::{Recipe, RecipeError, StageSpec};
use crate::tokenizer::{TextTokenizer, TokenizerError};
use record::RunRecord;
use resume::plan_resume;

#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Recipe(#[from] RecipeError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    #[error(transparent)]
    Teacher(#[from] TeacherError),
    #[error("{path}:{line}: {message}")]
    Dataset {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(transparent)]
    Jsonl(#[from] cascade_datasets::jsonl::JsonlError),
    #[error(transparent)]
    Rows(#[from] cascade_datasets::rows::RowsError),
    #[error("environment `{name}`: {message}")]
    Env { name: String, message: String },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("cannot resume: {0}")]
    Resume(String),
    #[error(transparent)]
    Numerics(#[from] crate::numerics::NumericsError),
}

impl RunError {
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        RunError::Io {
            path: path.to_owned(),
            message: e.to_string(),
        }
    }
}

/// Where to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// A new run; the output folder must not hold one already.
    Fresh,
    /// After the last completed stage.
    Last,
    /// Redo this stage and everything after it.
    From(String),
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub output: PathBuf,
    pub resume: Resume,
}

/// Runs `recipe` (validated first) into `opts.output`, printing tables to `out`.
pub fn run(
    recipe: &Recipe,
    registry: &Registry,
    opts: &RunOptions,
    out: &mut dyn Write,
) -> Result<RunRecord, RunError> {
    if let Some(numerics) = recipe.run.numerics {
        // Before the first tensor operation, which validation may already run.
        crate::numerics::pin(numerics)?;
    }
    recipe.validate(registry)?;
    let device = prepare_device(recipe)?;
    let tokenizer = TextTokenizer::load(&recipe.tokenizer_dir())?;
    // Every dataset is read and every prompt rendered before any training.
    let (evals, stage_data) = data::load_run_data(recipe, registry, &tokenizer)?;
    let preferences = rm::load_preferences(recipe, &tokenizer)?;
    let output = &opts.output;
    std::fs::create_dir_all(output.join("checkpoints")).map_err(|e| RunError::io(output, e))?;
    let stages: Vec<&StageSpec> = recipe.active_stages().collect();
    let names: Vec<&str> = stages.iter().map(|s| s.name()).collect();
    let mut record = RunRecord::load(&output.join("evals.json"))?;
    let saved = |stage: &str| {
        checkpoint::checkpoint_dir(output, stage)
            .join("config.json")
            .exists()
    };
    let plan = plan_resume(
        &opts.resume,
        &names,
        &record,
        saved,
        &output.display().to_string(),
    )?;
    record.stages.truncate(plan.keep_records);
    let metrics = output.join("metrics.jsonl");
    let log = MetricsLog::open(&metrics, &plan.done).map_err(|e| RunError::io(&metrics, e))?;
    let mut run = run::Run {
        recipe,
        tokenizer: &tokenizer,
        device,
        output,
        evals: &evals,
        record,
        log,
        out,
    };
    // `rm` stages' checkpoints are reward models: the policy is the last other's.
    let last_policy = plan.done.iter().rev().find(|name| {
        stages
            .iter()
            .any(|s| s.name() == name.as_str() && s.algorithm().trains_the_policy())
    });
    let mut policy = run.start_policy(last_policy)?;
    run.record_base(&policy)?;
    policy.set_trainable(true);
    for (index, data) in stage_data.iter().enumerate().skip(plan.done.len()) {
        run.stage(
            index,
            &stages,
            &mut policy,
            data,
            preferences[index].as_ref(),
        )?;
    }
    Ok(run.record)
}

/// libtorch's thread count and the device the recipe asks for.
fn prepare_device(recipe: &Recipe) -> Result<tch::Device, RunError> {
    if let Some(threads) = recipe.run.threads {
        if threads != 1 && crate::numerics::in_force() == Some(crate::numerics::Numerics::Portable)
        {
            // A parallel reduction's order depends on the thread count.
            return Err(RecipeError::Invalid {
                key: "run.threads".into(),
                message: "portable numerics run on 1 thread".into(),
            }
            .into());
        }
        tch::set_num_threads(threads);
    }
    let device = recipe
        .run
        .device
        .resolve()
        .ok_or_else(|| RecipeError::Invalid {
            key: "run.device".into(),
            message: "no GPU".into(),
        })?;
    Ok(device)
}
