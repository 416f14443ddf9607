//! The toy task as building blocks (a fresh model, supervised warm-up, GRPO steps,
//! greedy eval over all 100 problems) and the TRL-comparable benchmark made of them:
//! exactly issue 7's setup (8 prompts × 8 completions, ≤ 4 new tokens, temperature 1,
//! no KL, token-level loss, strictly on-policy, lr 5e-4 with linear decay, gradient
//! clipping at 1.0) after a supervised warm-up. Rewards go through the `addition`
//! environment, as in a real run.

use std::path::PathBuf;
use std::time::Instant;

use cascade_envs::Environment;
use serde_json::Value;
use tch::{Device, Kind};

use super::addition::Problem;
use super::warmup::supervised_warmup;
use crate::grpo::step::{grpo_step, GrpoConfig, StepStats, Unfinished};
use crate::grpo::AdvantageOptions;
use crate::logprobs::MicroBatching;
use crate::model::{ModelConfig, ModelError, Transformer};
use crate::optim::{AdamW, AdamWConfig, Decay, Schedule};
use crate::sampling::{generate, SamplingParams};
use crate::tokenizer::{TextTokenizer, TokenizerError};
use cascade_envs::addition::AdditionEnv;
use cascade_verifiers::seeded::SplitMix64;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
}

/// The toy task's tokenizer, environment and GRPO settings.
pub struct ToyTask {
    pub tokenizer: TextTokenizer,
    pub config: ModelConfig,
    pub grpo: GrpoConfig,
    pub prompts_per_step: usize,
    env: AdditionEnv,
}

impl ToyTask {
    pub fn new() -> Result<Self, BenchError> {
        let dir = super::assets_dir();
        let tokenizer = TextTokenizer::load(&dir)?;
        let config = ModelConfig::from_file(&dir.join("config.json"))?;
        let grpo = GrpoConfig {
            group_size: 8,
            sampling: SamplingParams {
                temperature: 1.0,
                top_p: 1.0,
                max_new_tokens: 4,
                stop_ids: tokenizer.stop_ids.clone(),
                stop_strings: Vec::new(),
                pad_id: tokenizer.pad_id,
                seed: 0,
                compact_finished: true,
                max_decode_rows: 0,
                finished_check_every: 0,
            },
            advantages: AdvantageOptions::default(),
            epsilon_low: 0.2,
            epsilon_high: 0.2,
            kl_coef: 0.0,
            unfinished: Unfinished::Keep,
            micro_batch: MicroBatching::Rows(64),
            max_grad_norm: 1.0,
            memory: Default::default(),
            importance: Default::default(),
        };
        Ok(Self {
            tokenizer,
            config,
            grpo,
            prompts_per_step: 8,
            env: AdditionEnv,
        })
    }

    /// A randomly initialised toy model (trainable), saved with the toy tokenizer.
    pub fn new_model(&self, seed: u64) -> Result<Transformer, BenchError> {
        let mut model =
            Transformer::random(self.config.clone(), Device::Cpu, Kind::Float, seed as i64)?;
        model.set_source_dir(&super::assets_dir());
        model.set_trainable(true);
        Ok(model)
    }

    /// Supervised warm-up: `steps` batches of 64 at `lr`.
    pub fn warmup(
        &self,
        model: &Transformer,
        rng: &mut SplitMix64,
        steps: usize,
        lr: f64,
    ) -> Result<f64, BenchError> {
        let mut opt = AdamW::new(model.parameters(), AdamWConfig::default());
        Ok(supervised_warmup(
            model,
            &self.tokenizer,
            &mut opt,
            rng,
            steps,
            64,
            lr,
        )?)
    }

    /// Reward of `response` to `problem`, through the `addition` environment.
    pub fn score(&self, problem: &Problem, response: &str) -> f64 {
        let mut row = problem.row().value().clone();
        if let Value::Object(map) = &mut row {
            map.insert("response".into(), Value::String(response.to_owned()));
        }
        self.env.score(&cascade_envs::Sample::new(row)).score
    }

    /// `steps` GRPO steps on fresh random problems, lr decaying linearly from `lr`.
    pub fn grpo(
        &self,
        model: &Transformer,
        rng: &mut SplitMix64,
        steps: usize,
        lr: f64,
        seed: u64,
        mut on_step: impl FnMut(usize, &StepStats),
    ) -> Result<Vec<f64>, BenchError> {
        let mut optimizer = AdamW::new(model.parameters(), AdamWConfig::default());
        let schedule = Schedule {
            lr,
            warmup_start_lr: 0.0,
            warmup_steps: 0,
            decay: Decay::Linear,
            min_lr: 0.0,
            total_steps: steps,
        };
        let decode = |ids: &[i64]| self.tokenizer.decode(ids).unwrap_or_default();
        let mut rewards = Vec::with_capacity(steps);
        let mut cfg = self.grpo.clone();
        for step in 0..steps {
            let problems: Vec<Problem> = (0..self.prompts_per_step)
                .map(|_| Problem::random(rng))
                .collect();
            let prompts = problems
                .iter()
                .map(|p| self.tokenizer.encode(&p.prompt()))
                .collect::<Result<Vec<_>, _>>()?;
            let score =
                |i: usize, ids: &[i64]| self.score(&problems[i / cfg.group_size], &decode(ids));
            cfg.sampling.seed = (seed as i64)
                .wrapping_mul(1_000_003)
                .wrapping_add(step as i64);
            let stats = grpo_step(
                model,
                None,
                &mut optimizer,
                schedule.at(step),
                &prompts,
                &score,
                &decode,
                &cfg,
            );
            rewards.push(stats.reward_mean);
            on_step(step, &stats);
        }
        Ok(rewards)
    }

    /// Greedy accuracy over all 100 problems.
    pub fn eval(&self, model: &Transformer) -> Result<f64, BenchError> {
        let problems: Vec<Problem> = (0..10)
            .flat_map(|a| (0..10).map(move |b| Problem { a, b }))
            .collect();
        let prompts = problems
            .iter()
            .map(|p| self.tokenizer.encode(&p.prompt()))
            .collect::<Result<Vec<_>, _>>()?;
        let params = SamplingParams {
            temperature: 0.0,
            ..self.grpo.sampling.clone()
        };
        let decode = |ids: &[i64]| self.tokenizer.decode(ids).unwrap_or_default();
        let g = generate(model, &prompts, &params, &decode);
        let total: f64 = g
            .completions
            .iter()
            .zip(&problems)
            .map(|(ids, p)| self.score(p, &decode(ids)))
            .sum();
        Ok(total / problems.len() as f64)
    }
}

#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Seeds the model's initialisation and the warm-up (and GRPO unless `grpo_seed`).
    pub seed: u64,
    /// Seeds GRPO's problems and sampling on its own, so several GRPO runs can start
    /// from one warmed-up model (as the TRL comparison's seeds do).
    pub grpo_seed: Option<u64>,
    pub warmup_steps: usize,
    pub warmup_lr: f64,
    pub steps: usize,
    pub lr: f64,
    /// Where to save the warmed-up model (the TRL script starts from it).
    pub save_warm_model: Option<PathBuf>,
    /// Where to save the model after GRPO.
    pub save_final_model: Option<PathBuf>,
    /// GRPO's sampling temperature (1 in issue 7's setup).
    pub temperature: f64,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            grpo_seed: None,
            warmup_steps: 100,
            warmup_lr: 1e-3,
            steps: 800,
            lr: 5e-4,
            save_warm_model: None,
            save_final_model: None,
            temperature: 1.0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct BenchReport {
    pub steps: usize,
    pub grpo_seconds: f64,
    pub steps_per_s: f64,
    pub sampling_tokens_per_s: f64,
    pub training_tokens_per_s: f64,
    /// Mean reward of each step, in order.
    pub rewards: Vec<f64>,
    /// Greedy accuracy over all 100 problems after warm-up and after GRPO.
    pub eval_before: f64,
    pub eval_after: f64,
    /// Largest `|log π_θ − log π_sampling|` seen on any response token of the run:
    /// float rounding when training is strictly on-policy (ratio 1).
    pub logprob_drift_max: f64,
}

impl BenchReport {
    /// Mean reward over steps `from..to` (clamped).
    pub fn mean_reward(&self, from: usize, to: usize) -> f64 {
        let to = to.min(self.rewards.len());
        let from = from.min(to);
        let slice = &self.rewards[from..to];
        slice.iter().sum::<f64>() / slice.len().max(1) as f64
    }
}

/// Warm-up then GRPO; `on_step` sees every GRPO step's figures.
pub fn run(
    cfg: &BenchConfig,
    mut on_step: impl FnMut(usize, &StepStats),
) -> Result<BenchReport, BenchError> {
    let mut task = ToyTask::new()?;
    task.grpo.sampling.temperature = cfg.temperature;
    let model = task.new_model(cfg.seed)?;
    let mut rng = SplitMix64::new(cfg.seed);
    task.warmup(&model, &mut rng, cfg.warmup_steps, cfg.warmup_lr)?;
    if let Some(path) = &cfg.save_warm_model {
        model.save(path, usize::MAX)?;
    }
    let eval_before = task.eval(&model)?;
    let grpo_seed = match cfg.grpo_seed {
        Some(seed) => {
            // A stream of its own, unrelated to the warm-up's.
            rng = SplitMix64::new(seed ^ 0x6772_706f_5f73_6565);
            seed
        }
        None => cfg.seed,
    };
    let (mut sample_tps, mut train_tps, mut drift) = (0.0, 0.0, 0.0f64);
    let start = Instant::now();
    let rewards = task.grpo(
        &model,
        &mut rng,
        cfg.steps,
        cfg.lr,
        grpo_seed,
        |step, stats| {
            sample_tps += stats.sampling_tokens_per_s;
            train_tps += stats.training_tokens_per_s;
            drift = drift.max(stats.logprob_drift_max);
            on_step(step, stats);
        },
    )?;
    let secs = start.elapsed().as_secs_f64();
    if let Some(path) = &cfg.save_final_model {
        model.save(path, usize::MAX)?;
    }
    let n = cfg.steps.max(1) as f64;
    Ok(BenchReport {
        steps: cfg.steps,
        grpo_seconds: secs,
        steps_per_s: cfg.steps as f64 / secs.max(1e-9),
        sampling_tokens_per_s: sample_tps / n,
        training_tokens_per_s: train_tps / n,
        eval_after: task.eval(&model)?,
        eval_before,
        rewards,
        logprob_drift_max: drift,
    })
}
