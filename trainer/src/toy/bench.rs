//! The TRL-comparable GRPO benchmark on the toy task: exactly issue 7's setup
//! (8 prompts × 8 completions, ≤ 4 new tokens, temperature 1, no KL, token-level loss,
//! strictly on-policy, lr 5e-4 with linear decay), after a supervised warm-up.
//! It reports GRPO steps/s, sampling and training tokens/s, and the reward curve.

use std::path::PathBuf;
use std::time::Instant;

use tch::{Device, Kind};

use super::addition::Problem;
use super::warmup::supervised_warmup;
use crate::grpo::step::{grpo_step, GrpoConfig, StepStats, Unfinished};
use crate::grpo::AdvantageOptions;
use crate::model::{ModelConfig, ModelError, Transformer};
use crate::optim::{AdamW, AdamWConfig, Decay, Schedule};
use crate::rng::SplitMix64;
use crate::sampling::SamplingParams;
use crate::tokenizer::{TextTokenizer, TokenizerError};

#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub seed: u64,
    pub warmup_steps: usize,
    pub warmup_batch: usize,
    pub warmup_lr: f64,
    pub steps: usize,
    pub lr: f64,
    pub prompts_per_step: usize,
    pub group_size: usize,
    pub max_new_tokens: usize,
    /// Where to save the warmed-up model (the TRL script starts from it).
    pub save_warm_model: Option<PathBuf>,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            warmup_steps: 100,
            warmup_batch: 64,
            warmup_lr: 1e-3,
            steps: 800,
            lr: 5e-4,
            prompts_per_step: 8,
            group_size: 8,
            max_new_tokens: 4,
            save_warm_model: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
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
}

impl BenchReport {
    /// Mean reward over steps `range` (clamped).
    pub fn mean_reward(&self, from: usize, to: usize) -> f64 {
        let to = to.min(self.rewards.len());
        let from = from.min(to);
        let slice = &self.rewards[from..to];
        slice.iter().sum::<f64>() / slice.len().max(1) as f64
    }
}

/// Runs warm-up then GRPO; `on_step` sees every GRPO step's figures.
pub fn run(cfg: &BenchConfig, mut on_step: impl FnMut(usize, &StepStats)) -> Result<BenchReport, BenchError> {
    let dir = super::assets_dir();
    let tokenizer = TextTokenizer::load(&dir)?;
    let config = ModelConfig::from_file(&dir.join("config.json"))?;
    let mut model = Transformer::random(config, Device::Cpu, Kind::Float, cfg.seed as i64)?;
    model.set_source_dir(&dir);
    model.set_trainable(true);
    let mut rng = SplitMix64::new(cfg.seed);
    let mut warm_opt = AdamW::new(model.parameters(), AdamWConfig::default());
    supervised_warmup(&model, &tokenizer, &mut warm_opt, &mut rng, cfg.warmup_steps, cfg.warmup_batch, cfg.warmup_lr)?;
    if let Some(path) = &cfg.save_warm_model {
        model.save(path, usize::MAX)?;
    }
    let mut optimizer = AdamW::new(model.parameters(), AdamWConfig::default());
    let schedule = Schedule { lr: cfg.lr, warmup_start_lr: 0.0, warmup_steps: 0, decay: Decay::Linear, min_lr: 0.0, total_steps: cfg.steps };
    let grpo = GrpoConfig {
        group_size: cfg.group_size,
        sampling: SamplingParams {
            temperature: 1.0,
            top_p: 1.0,
            max_new_tokens: cfg.max_new_tokens,
            stop_ids: tokenizer.stop_ids.clone(),
            stop_strings: Vec::new(),
            pad_id: tokenizer.pad_id,
            seed: 0,
        },
        advantages: AdvantageOptions::default(),
        epsilon_low: 0.2,
        epsilon_high: 0.2,
        kl_coef: 0.0,
        unfinished: Unfinished::Keep,
        micro_batch: cfg.prompts_per_step * cfg.group_size,
        max_grad_norm: 1.0,
    };
    let decode = |ids: &[i64]| tokenizer.decode(ids).unwrap_or_default();
    let mut rewards = Vec::with_capacity(cfg.steps);
    let (mut sample_tps, mut train_tps) = (0.0, 0.0);
    let start = Instant::now();
    for step in 0..cfg.steps {
        let problems: Vec<Problem> = (0..cfg.prompts_per_step).map(|_| Problem::random(&mut rng)).collect();
        let prompts = problems
            .iter()
            .map(|p| tokenizer.encode(&p.prompt()))
            .collect::<Result<Vec<_>, _>>()?;
        let score = |i: usize, ids: &[i64]| problems[i / cfg.group_size].reward(&decode(ids));
        let mut step_cfg = grpo.clone();
        step_cfg.sampling.seed = (cfg.seed as i64) * 1_000_003 + step as i64;
        let stats = grpo_step(&model, None, &mut optimizer, schedule.at(step), &prompts, &score, &decode, &step_cfg);
        sample_tps += stats.sampling_tokens_per_s;
        train_tps += stats.training_tokens_per_s;
        rewards.push(stats.reward_mean);
        on_step(step, &stats);
    }
    let secs = start.elapsed().as_secs_f64();
    let n = cfg.steps.max(1) as f64;
    Ok(BenchReport {
        steps: cfg.steps,
        grpo_seconds: secs,
        steps_per_s: cfg.steps as f64 / secs.max(1e-9),
        sampling_tokens_per_s: sample_tps / n,
        training_tokens_per_s: train_tps / n,
        rewards,
    })
}
