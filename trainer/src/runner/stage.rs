//! Running one stage's optimizer steps: which prompts each step draws (mixture
//! weights, seeded by run seed, stage index and step so a resumed stage replays
//! exactly), and the GRPO, MOPD or SFT step itself.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use super::data::EnvData;
use super::RunError;
use crate::grpo::step::{grpo_update, sample_and_score, GrpoConfig, ScoredGroups};
use crate::grpo::AdvantageOptions;
use crate::metrics::MetricsLog;
use crate::model::Transformer;
use crate::mopd::step::{mopd_step, MopdConfig, TeacherPool};
use crate::mopd::WeightGate;
use crate::optim::{AdamW, AdamWConfig, Schedule};
use crate::recipe::Stage;
use crate::sampling::SamplingParams;
use crate::tokenizer::TextTokenizer;
use crate::toy::warmup::supervised_step;
use cascade_verifiers::seeded::SplitMix64;

/// What a stage needs besides its own settings.
pub struct StageContext<'a> {
    pub tokenizer: &'a TextTokenizer,
    pub seed: u64,
    pub stage_index: usize,
    pub log: &'a mut MetricsLog,
}

fn schedule(stage: &Stage) -> Schedule {
    Schedule {
        lr: stage.lr,
        warmup_start_lr: stage.warmup_start_lr,
        warmup_steps: stage.warmup_steps,
        decay: stage.decay,
        min_lr: stage.min_lr,
        total_steps: stage.steps,
    }
}

fn sampling(stage: &Stage, tokenizer: &TextTokenizer, seed: i64) -> SamplingParams {
    SamplingParams {
        temperature: stage.temperature,
        top_p: stage.top_p,
        max_new_tokens: stage.max_new_tokens,
        stop_ids: tokenizer.stop_ids.clone(),
        stop_strings: Vec::new(),
        pad_id: tokenizer.pad_id,
        seed,
    }
}

/// Draws `n` (env, row) pairs by the envs' mixture weights.
fn draw(rng: &mut SplitMix64, data: &[EnvData], n: usize) -> Vec<(usize, usize)> {
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

fn micro_batch(stage: &Stage) -> usize {
    if stage.micro_batch == 0 {
        stage.prompts_per_step * stage.group_size
    } else {
        stage.micro_batch
    }
}

/// A fresh AdamW over `policy` with the stage's weight decay (every stage starts its
/// own optimizer state, as each Cascade stage has its own hyperparameters).
fn stage_optimizer(stage: &Stage, policy: &Transformer) -> AdamW {
    AdamW::new(
        policy.parameters(),
        AdamWConfig {
            weight_decay: stage.weight_decay,
            ..Default::default()
        },
    )
}

fn grpo_config(stage: &Stage, tokenizer: &TextTokenizer, seed: i64) -> GrpoConfig {
    GrpoConfig {
        group_size: stage.group_size,
        sampling: sampling(stage, tokenizer, seed),
        advantages: AdvantageOptions {
            baseline: stage.baseline,
            scale_by_std: stage.scale_by_std,
            drop_zero_variance: stage.filter_zero_variance || stage.refill,
            epsilon: 1e-6,
        },
        epsilon_low: stage.epsilon_low,
        epsilon_high: stage.epsilon_high,
        kl_coef: stage.kl,
        unfinished: stage.unfinished,
        micro_batch: micro_batch(stage),
        max_grad_norm: stage.max_grad_norm,
    }
}

/// Runs a GRPO stage's steps on `policy`.
pub fn run_grpo(
    ctx: &mut StageContext,
    stage: &Stage,
    policy: &Transformer,
    reference: Option<&Transformer>,
    data: &[EnvData],
) -> Result<(), RunError> {
    let mut optimizer = stage_optimizer(stage, policy);
    let sched = schedule(stage);
    let decode = |ids: &[i64]| ctx.tokenizer.decode(ids).unwrap_or_default();
    for step in 0..stage.steps {
        let start = Instant::now();
        let (mut rng, seed) = step_seed(ctx, step);
        let mut rounds = Vec::new();
        let mut with_signal = 0;
        let extra = if stage.refill { stage.refill_rounds } else { 0 };
        for round in 0..=extra {
            // Round 0 is the step as it always was; refills draw on from the same stream.
            let picks = draw(&mut rng, data, stage.prompts_per_step);
            let prompts: Vec<Vec<i64>> = picks
                .iter()
                .map(|&(e, r)| data[e].prompts[r].clone())
                .collect();
            let cfg = grpo_config(stage, ctx.tokenizer, seed.wrapping_add(round as i64));
            let score = |i: usize, ids: &[i64]| {
                let (e, r) = picks[i / stage.group_size];
                data[e].score(r, &decode(ids))
            };
            let scored = sample_and_score(policy, reference, &prompts, &score, &decode, &cfg);
            if stage.refill {
                with_signal += scored
                    .groups_with_signal(&cfg)
                    .iter()
                    .filter(|s| **s)
                    .count();
            }
            rounds.push(scored);
            if with_signal >= stage.prompts_per_step {
                break;
            }
        }
        let cfg = grpo_config(stage, ctx.tokenizer, seed);
        let refill_groups = (rounds.len() - 1) * stage.prompts_per_step;
        let scored = if stage.refill {
            ScoredGroups::with_signal(rounds, stage.prompts_per_step, &cfg)
        } else {
            rounds.swap_remove(0)
        };
        let mut stats = grpo_update(policy, &mut optimizer, sched.at(step), scored, &cfg, start);
        stats.refill_groups = refill_groups;
        ctx.log
            .log(&stage.name, "grpo", step, stage.steps, &stats)
            .map_err(|e| RunError::io(&PathBuf::from("metrics.jsonl"), e))?;
    }
    Ok(())
}

/// Runs a MOPD stage's steps; `teachers` maps each domain to its checkpoint folder.
pub fn run_mopd(
    ctx: &mut StageContext,
    stage: &Stage,
    policy: &Transformer,
    data: &[EnvData],
    teachers: BTreeMap<String, PathBuf>,
    teacher_names: &BTreeMap<String, String>,
    keep_loaded: bool,
) -> Result<(), RunError> {
    let mut pool = TeacherPool::new(teachers, keep_loaded, policy.device());
    let mut optimizer = stage_optimizer(stage, policy);
    let sched = schedule(stage);
    let decode = |ids: &[i64]| ctx.tokenizer.decode(ids).unwrap_or_default();
    for step in 0..stage.steps {
        let (mut rng, seed) = step_seed(ctx, step);
        let picks = draw(&mut rng, data, stage.prompts_per_step);
        let prompts: Vec<(String, Vec<i64>)> = picks
            .iter()
            .map(|&(e, r)| (data[e].domain.clone(), data[e].prompts[r].clone()))
            .collect();
        let cfg = MopdConfig {
            group_size: stage.group_size,
            sampling: sampling(stage, ctx.tokenizer, seed),
            micro_batch: micro_batch(stage),
            max_grad_norm: stage.max_grad_norm,
            gate: WeightGate::default(),
        };
        let stats = mopd_step(
            policy,
            &mut pool,
            &mut optimizer,
            sched.at(step),
            &prompts,
            &decode,
            &cfg,
        )?;
        let mut line = serde_json::to_value(&stats).unwrap_or_default();
        if let Some(map) = line.as_object_mut() {
            map.insert(
                "teachers".into(),
                serde_json::to_value(teacher_names).unwrap_or_default(),
            );
        }
        ctx.log
            .log(&stage.name, "mopd", step, stage.steps, &line)
            .map_err(|e| RunError::io(&PathBuf::from("metrics.jsonl"), e))?;
    }
    Ok(())
}

/// What an SFT step logs.
#[derive(serde::Serialize)]
struct SftLine {
    loss: f64,
    grad_norm: f64,
    lr: f64,
    tokens: usize,
    step_s: f64,
}

/// Runs an SFT stage's steps: cross-entropy on the drawn rows' reference responses,
/// the whole batch in one forward/backward (`micro_batch` is not used).
pub fn run_sft(
    ctx: &mut StageContext,
    stage: &Stage,
    policy: &Transformer,
    data: &[EnvData],
) -> Result<(), RunError> {
    let mut optimizer = stage_optimizer(stage, policy);
    let sched = schedule(stage);
    for step in 0..stage.steps {
        let start = std::time::Instant::now();
        let (mut rng, _) = step_seed(ctx, step);
        let picks = draw(&mut rng, data, stage.prompts_per_step);
        let mut prompts = Vec::with_capacity(picks.len());
        let mut targets = Vec::with_capacity(picks.len());
        for &(e, r) in &picks {
            prompts.push(data[e].prompts[r].clone());
            targets.push(data[e].targets[r].clone());
        }
        let lr = sched.at(step);
        let stats = supervised_step(
            policy,
            &mut optimizer,
            &prompts,
            &targets,
            ctx.tokenizer.pad_id,
            lr,
            stage.max_grad_norm,
        );
        let line = SftLine {
            loss: stats.loss,
            grad_norm: stats.grad_norm,
            lr,
            tokens: stats.tokens,
            step_s: start.elapsed().as_secs_f64(),
        };
        ctx.log
            .log(&stage.name, "sft", step, stage.steps, &line)
            .map_err(|e| RunError::io(&PathBuf::from("metrics.jsonl"), e))?;
    }
    Ok(())
}
