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
pub mod evaluate;
pub mod plots;
pub mod record;
pub mod stage;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use cascade_envs::Registry;
use tch::Kind;
use thiserror::Error;

use crate::metrics::MetricsLog;
use crate::model::{ModelConfig, ModelError, Transformer};
use crate::mopd::{select_teachers, TeacherError};
use crate::recipe::{Algorithm, Recipe, RecipeError};
use crate::tokenizer::{TextTokenizer, TokenizerError};
use data::{load_env_data, EnvData};
use record::{RunRecord, StageRecord};

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
    #[error("environment `{name}`: {message}")]
    Env { name: String, message: String },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("cannot resume: {0}")]
    Resume(String),
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

fn load_base(recipe: &Recipe, device: tch::Device) -> Result<Transformer, RunError> {
    let dir = recipe.resolve(&recipe.run.model);
    let mut model = if recipe.run.init == "random" {
        let config = ModelConfig::from_file(&dir.join("config.json"))?;
        Transformer::random(config, device, Kind::Float, recipe.run.seed as i64)?
    } else {
        Transformer::load(&dir, device, Kind::Float)?
    };
    model.set_source_dir(&recipe.tokenizer_dir());
    Ok(model)
}

/// Runs `recipe` (validated first) into `opts.output`, printing tables to `out`.
pub fn run(
    recipe: &Recipe,
    registry: &Registry,
    opts: &RunOptions,
    out: &mut dyn Write,
) -> Result<RunRecord, RunError> {
    recipe.validate(registry)?;
    if let Some(threads) = recipe.run.threads {
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
    let tokenizer = TextTokenizer::load(&recipe.tokenizer_dir())?;
    let thinking = recipe.run.enable_thinking;
    // Every dataset is read and every prompt rendered before any training.
    let mut evals: Vec<EnvData> = Vec::new();
    for (_, e) in recipe.eval_sets() {
        evals.push(load_env_data(
            registry,
            &tokenizer,
            thinking,
            e.env_name(),
            &e.domain,
            &e.config,
            &recipe.resolve(&e.dataset),
            e.limit,
            1.0,
        )?);
    }
    let mut stage_data: Vec<Vec<EnvData>> = Vec::new();
    for s in recipe.active_stages() {
        let mut envs = Vec::new();
        for e in &s.envs {
            let dataset = recipe.resolve(&e.dataset);
            let mut env_data = load_env_data(
                registry,
                &tokenizer,
                thinking,
                &e.name,
                e.domain(),
                &e.config,
                &dataset,
                None,
                e.weight,
            )?;
            if let Some(field) = &e.target {
                data::load_targets(&mut env_data, &tokenizer, field, &dataset)?;
            }
            envs.push(env_data);
        }
        stage_data.push(envs);
    }

    let output = &opts.output;
    std::fs::create_dir_all(output.join("checkpoints")).map_err(|e| RunError::io(output, e))?;
    let stages: Vec<_> = recipe.active_stages().collect();
    let mut record = RunRecord::load(&output.join("evals.json"))?;
    let done: Vec<String> = match &opts.resume {
        Resume::Fresh => {
            if !record.stages.is_empty() {
                return Err(RunError::Resume(format!(
                    "{} already holds a run; pass --resume or another --output",
                    output.display()
                )));
            }
            Vec::new()
        }
        Resume::Last | Resume::From(_) => {
            let mut done = Vec::new();
            for (k, r) in record.stages.iter().skip(1).enumerate() {
                let expected = stages.get(k).map(|s| s.name.as_str());
                if expected != Some(r.stage.as_str())
                    || !checkpoint::checkpoint_dir(output, &r.stage)
                        .join("config.json")
                        .exists()
                {
                    break;
                }
                done.push(r.stage.clone());
            }
            if let Resume::From(name) = &opts.resume {
                let pos = stages
                    .iter()
                    .position(|s| &s.name == name)
                    .ok_or_else(|| RunError::Resume(format!("no stage `{name}` in the recipe")))?;
                if pos > done.len() {
                    return Err(RunError::Resume(format!(
                        "stage `{name}` cannot restart: stage `{}` before it has not completed",
                        stages[done.len()].name
                    )));
                }
                done.truncate(pos);
            }
            done
        }
    };
    record.stages.truncate(if record.stages.is_empty() {
        0
    } else {
        1 + done.len()
    });
    let mut log = MetricsLog::open(&output.join("metrics.jsonl"), &done)
        .map_err(|e| RunError::io(&output.join("metrics.jsonl"), e))?;

    let base_dir = if recipe.run.init == "random" {
        checkpoint::checkpoint_dir(output, "base")
    } else {
        recipe.resolve(&recipe.run.model)
    };
    let mut policy = match done.last() {
        Some(last) => {
            let mut m = Transformer::load(
                &checkpoint::checkpoint_dir(output, last),
                device,
                Kind::Float,
            )?;
            m.set_source_dir(&recipe.tokenizer_dir());
            m
        }
        None => load_base(recipe, device)?,
    };
    if recipe.run.init == "random" && !base_dir.join("config.json").exists() {
        checkpoint::save_atomic(&policy, output, "base", &recipe.tokenizer_dir())?;
    }
    if record.stages.is_empty() {
        let scores = evaluate_all(&policy, &tokenizer, &evals, recipe.run.eval_max_new_tokens);
        record.stages.push(StageRecord {
            stage: "base".into(),
            algorithm: "base".into(),
            scores,
            teachers: BTreeMap::new(),
        });
        record.save(output)?;
        let _ = writeln!(out, "{}", record.table());
    }
    policy.set_trainable(true);

    for (index, stage) in stages.iter().enumerate().skip(done.len()) {
        let _ = writeln!(
            out,
            "== stage {} ({}) : {} steps",
            stage.name,
            stage.algorithm.as_str(),
            stage.steps
        );
        let start_dir = if index == 0 {
            base_dir.clone()
        } else {
            checkpoint::checkpoint_dir(output, &stages[index - 1].name)
        };
        let mut ctx = stage::StageContext {
            tokenizer: &tokenizer,
            seed: recipe.run.seed,
            stage_index: index,
            log: &mut log,
        };
        let mut teachers_used = BTreeMap::new();
        match stage.algorithm {
            Algorithm::Sft => stage::run_sft(&mut ctx, stage, &policy, &stage_data[index])?,
            Algorithm::Grpo => {
                let reference = if stage.kl > 0.0 {
                    Some(Transformer::load(&start_dir, device, Kind::Float)?)
                } else {
                    None
                };
                stage::run_grpo(
                    &mut ctx,
                    stage,
                    &policy,
                    reference.as_ref(),
                    &stage_data[index],
                )?;
            }
            Algorithm::Mopd => {
                let earlier: Vec<(String, BTreeMap<String, f64>)> = record
                    .stages
                    .iter()
                    .map(|s| (s.stage.clone(), s.scores.clone()))
                    .collect();
                let mut domains: Vec<String> =
                    stage.envs.iter().map(|e| e.domain().to_owned()).collect();
                domains.sort();
                domains.dedup();
                let chosen = select_teachers(&stage.name, &domains, &earlier, &stage.teachers)?;
                let mut paths = BTreeMap::new();
                for (domain, choice) in &chosen {
                    let dir = if choice.stage == "base" {
                        base_dir.clone()
                    } else {
                        checkpoint::checkpoint_dir(output, &choice.stage)
                    };
                    paths.insert(domain.clone(), dir);
                    teachers_used.insert(domain.clone(), choice.stage.clone());
                }
                let _ = writeln!(out, "   teachers: {teachers_used:?}");
                stage::run_mopd(
                    &mut ctx,
                    stage,
                    &policy,
                    &stage_data[index],
                    paths,
                    &teachers_used,
                    recipe.run.keep_teachers_loaded,
                )?;
            }
        }
        checkpoint::save_atomic(&policy, output, &stage.name, &recipe.tokenizer_dir())?;
        // Continue from exactly what was saved, as a resumed run would.
        policy.round_to_saved_dtype();
        let scores = evaluate_all(&policy, &tokenizer, &evals, recipe.run.eval_max_new_tokens);
        record.stages.push(StageRecord {
            stage: stage.name.clone(),
            algorithm: stage.algorithm.as_str().into(),
            scores,
            teachers: teachers_used,
        });
        record.save(output)?;
        let metrics = read_metrics(&output.join("metrics.jsonl"));
        if let Err(e) = plots::draw(&output.join("plots"), &metrics, &record) {
            let _ = writeln!(out, "   (plots not drawn: {e})");
        }
        let _ = writeln!(out, "{}", record.table());
    }
    Ok(record)
}

fn evaluate_all(
    policy: &Transformer,
    tokenizer: &TextTokenizer,
    evals: &[EnvData],
    max_new_tokens: usize,
) -> BTreeMap<String, f64> {
    evals
        .iter()
        .map(|d| {
            (
                d.domain.clone(),
                evaluate::evaluate(policy, tokenizer, d, max_new_tokens),
            )
        })
        .collect()
}

fn read_metrics(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
