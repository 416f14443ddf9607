//! The one stage loop: it owns a stage's optimizer, learning-rate schedule, seeded
//! draws and metrics lines, and calls the stage's algorithm ([`AlgorithmStep`]) once per
//! step. Which prompts a step draws (mixture weights) is seeded by run seed, stage
//! index and step, so a resumed stage replays exactly.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;

use super::data::EnvData;
use super::RunError;
use crate::metrics::MetricsLog;
use crate::model::Transformer;
use crate::optim::{AdamW, AdamWConfig, Schedule};
use crate::recipe::{Algorithm, Rollout, StageCommon};
use crate::sampling::SamplingParams;
use crate::tokenizer::TextTokenizer;
use cascade_verifiers::seeded::SplitMix64;

/// What a stage needs besides its own settings.
pub struct StageContext<'a> {
    pub tokenizer: &'a TextTokenizer,
    pub seed: u64,
    pub stage_index: usize,
    pub log: &'a mut MetricsLog,
}

/// One step's inputs, from the stage loop.
pub struct StepInput<'a> {
    pub policy: &'a Transformer,
    pub optimizer: &'a mut AdamW,
    /// The step's learning rate (from the stage's schedule).
    pub lr: f64,
    /// The step's draw stream ([`draw`] takes the step's prompts from it).
    pub rng: SplitMix64,
    /// The step's sampling seed (drawn from the same stream).
    pub seed: i64,
    pub data: &'a [EnvData],
    pub tokenizer: &'a TextTokenizer,
    /// When the step began (for its `step_s`).
    pub start: Instant,
}

/// An algorithm's optimizer step. Adding an algorithm is one implementation of this
/// plus its `StageSpec` variant.
pub trait AlgorithmStep {
    /// Takes one optimizer step; returns its metrics line's figures.
    fn step(&mut self, input: StepInput) -> Result<Value, RunError>;
}

/// Runs stage `common`'s steps on `policy` with `algorithm`'s step.
pub fn run_steps(
    ctx: &mut StageContext,
    common: &StageCommon,
    algorithm: Algorithm,
    policy: &Transformer,
    data: &[EnvData],
    step_fn: &mut dyn AlgorithmStep,
) -> Result<(), RunError> {
    let mut optimizer = stage_optimizer(common, policy);
    let sched = schedule(common);
    for step in 0..common.steps {
        let start = Instant::now();
        let (rng, seed) = step_seed(ctx, step);
        let line = step_fn.step(StepInput {
            policy,
            optimizer: &mut optimizer,
            lr: sched.at(step),
            rng,
            seed,
            data,
            tokenizer: ctx.tokenizer,
            start,
        })?;
        ctx.log
            .log(&common.name, algorithm.as_str(), step, common.steps, &line)
            .map_err(|e| RunError::io(&PathBuf::from("metrics.jsonl"), e))?;
    }
    Ok(())
}

fn schedule(stage: &StageCommon) -> Schedule {
    Schedule {
        lr: stage.lr,
        warmup_start_lr: stage.warmup_start_lr,
        warmup_steps: stage.warmup_steps,
        decay: stage.decay,
        min_lr: stage.min_lr,
        total_steps: stage.steps,
    }
}

/// The sampling settings of a stage that samples.
pub fn sampling(rollout: &Rollout, tokenizer: &TextTokenizer, seed: i64) -> SamplingParams {
    SamplingParams {
        temperature: rollout.temperature,
        top_p: rollout.top_p,
        max_new_tokens: rollout.max_new_tokens,
        stop_ids: tokenizer.stop_ids.clone(),
        stop_strings: Vec::new(),
        pad_id: tokenizer.pad_id,
        seed,
        compact_finished: true,
        max_decode_rows: rollout.max_decode_rows,
        finished_check_every: rollout.finished_check_every,
    }
}

/// Draws `n` (env, row) pairs by the envs' mixture weights.
pub fn draw(rng: &mut SplitMix64, data: &[EnvData], n: usize) -> Vec<(usize, usize)> {
    let total: f64 = data.iter().map(|d| d.weight).sum();
    (0..n)
        .map(|_| {
            let mut x = rng.unit() * total;
            let mut env = data.len() - 1;
            for (k, d) in data.iter().enumerate() {
                if x < d.weight {
                    env = k;
                    break;
                }
                x -= d.weight;
            }
            (env, rng.below(data[env].rows.len()))
        })
        .collect()
}

fn step_seed(ctx: &StageContext, step: usize) -> (SplitMix64, i64) {
    let mut rng = SplitMix64::new(ctx.seed ^ ((ctx.stage_index as u64 + 1) << 32) ^ step as u64);
    let seed = (rng.next_u64() >> 2) as i64;
    (rng, seed)
}

/// A fresh AdamW over `policy` with the stage's weight decay (every stage starts its
/// own optimizer state, as each Cascade stage has its own hyperparameters).
fn stage_optimizer(stage: &StageCommon, policy: &Transformer) -> AdamW {
    AdamW::new(
        policy.parameters(),
        AdamWConfig {
            weight_decay: stage.weight_decay,
            decay_norms_and_biases: stage.decay_norms_and_biases,
            ..Default::default()
        },
    )
}

/// A step's figures as a metrics line.
pub fn line(figures: &impl serde::Serialize) -> Value {
    serde_json::to_value(figures).unwrap_or_default()
}
