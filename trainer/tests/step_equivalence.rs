//! GRPO steps that must equal another way of taking them (issue 18):
//! - overlapped rewards: groups scored while the rest of the batch is still sampled
//!   give the step that scoring after sampling gives, bit for bit;
//! - bucketed micro-batches: rows sorted by length into micro-batches trimmed to
//!   their own width, by a row count or by a token budget, give the gradient of one
//!   padded batch, for GRPO and for MOPD;
//! - compacted decoding: finished rows dropped from the forward pass give the samples
//!   of the full batch;
//! - bf16: a step computed under bf16 autocast from float32 master weights gives the
//!   float32 step's log-probabilities and gradient within bf16's rounding.
//!
//! Its own test binary, the tests one at a time (`SERIAL`): sampling and random
//! init draw from libtorch's global generator, which tests running beside them
//! would draw from too.

mod common;

use std::sync::Mutex;
use std::time::Instant;

use cascade_trainer::device::Precision;
use cascade_trainer::grpo::step::{
    grpo_update, sample_and_score, sample_and_score_batch, BatchScorer, GrpoConfig,
};
use cascade_trainer::grpo::ImportanceCorrection;
use cascade_trainer::logprobs::{token_logprobs, MicroBatching, SequenceBatch};
use cascade_trainer::mopd::step::{mopd_step, MopdConfig, TeacherPool};
use cascade_trainer::optim::AdamW;
use cascade_trainer::sampling::{generate_groups, Generation, SamplingParams};
use cascade_trainer::toy::bench::ToyTask;
use tch::{Kind, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

/// The toy task's GRPO settings with groups of 4 whose rows end at different steps
/// (a third of the vocabulary stops a row).
fn ragged_config(task: &ToyTask) -> GrpoConfig {
    let mut cfg = task.grpo.clone();
    cfg.group_size = 4;
    cfg.micro_batch = MicroBatching::Rows(8);
    cfg.sampling.max_new_tokens = 24;
    cfg.sampling.stop_ids = (0..task.tokenizer.vocab_size() as i64)
        .filter(|t| t % 3 == 0)
        .collect();
    cfg
}

fn toy_prompts(task: &ToyTask) -> Vec<Vec<i64>> {
    ["1+2=", "3+4=", "5+6=", "17+8=", "9+1=", "2+2="]
        .iter()
        .map(|p| task.tokenizer.encode(p).expect("encode"))
        .collect()
}

/// A reward that differs across rows and response lengths, so groups carry signal.
fn toy_reward(i: usize, ids: &[i64]) -> f64 {
    ((ids.len() * 7 + i) % 5) as f64 / 4.0
}

/// Rewards scored group by group while the batch still samples are those of
/// scoring after sampling, and so is the update: same samples, same rewards,
/// bit-identical weights. Each early group is handed exactly its final responses.
#[test]
fn overlapped_rewards_give_the_serial_step() {
    common::pin();
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let task = ToyTask::new().expect("toy task");
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let cfg = ragged_config(&task);
    let prompts = toy_prompts(&task);
    let handed = std::sync::Mutex::new(Vec::new());
    let group = |g: usize, responses: &[Vec<i64>]| {
        handed.lock().unwrap().push((g, responses.to_vec()));
        responses
            .iter()
            .enumerate()
            .map(|(k, ids)| toy_reward(g * 4 + k, ids))
            .collect::<Vec<f64>>()
    };
    let batch = |completions: &[Vec<i64>], wanted: &[bool]| {
        completions
            .iter()
            .enumerate()
            .map(|(i, ids)| if wanted[i] { toy_reward(i, ids) } else { 0.0 })
            .collect::<Vec<f64>>()
    };
    let step = |early: bool| {
        let model = task.new_model(2).expect("model");
        let scorer = BatchScorer {
            early: vec![early; prompts.len()],
            group: &group,
            batch: &batch,
        };
        let scored = sample_and_score_batch(&model, None, &prompts, &scorer, &decode, &cfg);
        let (rewards, completions) = (
            scored.rewards.clone(),
            scored.generation.completions.clone(),
        );
        let mut optimizer = AdamW::new(model.parameters(), Default::default());
        let stats = grpo_update(&model, &mut optimizer, 1e-3, scored, &cfg, Instant::now());
        let weights: Vec<Vec<f32>> = model
            .parameters()
            .values()
            .map(|p| Vec::try_from(p.flatten(0, -1).to_kind(Kind::Float)).unwrap_or_default())
            .collect();
        (rewards, completions, weights, stats.reward_early_groups)
    };
    let (serial_rewards, serial_rows, serial_weights, none_early) = step(false);
    assert_eq!(none_early, 0);
    assert!(handed.lock().unwrap().is_empty());
    let (rewards, rows, weights, early) = step(true);
    assert_eq!(rows, serial_rows, "the same samples");
    assert_eq!(rewards, serial_rewards);
    assert_eq!(weights, serial_weights, "the same update");
    assert!(
        (1..6).contains(&early),
        "{early} of 6 groups ended before the last step"
    );
    let handed = handed.lock().unwrap();
    assert_eq!(handed.len(), 6, "every group scored once");
    for (g, responses) in handed.iter() {
        assert_eq!(responses[..], rows[g * 4..(g + 1) * 4], "group {g}");
    }
}

/// Every parameter's gradient after a GRPO update of a copy of `scored`'s batch
/// under `cfg`, on a model with `weights`.
fn update_gradients(
    task: &ToyTask,
    weights: &[Tensor],
    generation: &Generation,
    prompts: &[Vec<i64>],
    rewards: &[f64],
    cfg: &GrpoConfig,
    precision: Precision,
) -> Vec<Vec<f32>> {
    let mut model = task.new_model(2).expect("model");
    model.set_precision(precision);
    tch::no_grad(|| {
        for (p, w) in model.parameters().values().zip(weights) {
            let mut p = p.shallow_clone();
            p.copy_(w);
        }
    });
    let rows: Vec<i64> = (0..rewards.len() as i64).collect();
    let row_prompts: Vec<Vec<i64>> = prompts
        .iter()
        .flat_map(|p| std::iter::repeat_n(p.clone(), cfg.group_size))
        .collect();
    let copy = Generation::select_rows(&[(generation, rows)], &row_prompts, cfg.sampling.pad_id);
    let scored = cascade_trainer::grpo::step::ScoredGroups {
        prompts: prompts.to_vec(),
        generation: copy,
        rewards: rewards.to_vec(),
        ref_logp: None,
        sample_s: 0.0,
        reference_s: 0.0,
        reward_wait_s: 0.0,
        early_groups: 0,
    };
    let mut optimizer = AdamW::new(model.parameters(), Default::default());
    grpo_update(&model, &mut optimizer, 1e-3, scored, cfg, Instant::now());
    gradients(&model)
}

/// Every parameter's gradient, flattened to float32.
fn gradients(model: &cascade_trainer::model::Transformer) -> Vec<Vec<f32>> {
    model
        .parameters()
        .values()
        .map(|p| Vec::try_from(p.grad().flatten(0, -1).to_kind(Kind::Float)).unwrap_or_default())
        .collect()
}

/// The largest gradient entry in absolute value: the scale the tolerance is taken of.
fn largest(gradients: &[Vec<f32>]) -> f32 {
    gradients.iter().flatten().fold(0f32, |m, g| m.max(g.abs()))
}

/// `other` equals `whole` entry by entry within float rounding (1e-5 of the largest).
fn assert_same_gradient(whole: &[Vec<f32>], other: &[Vec<f32>], micro: MicroBatching) {
    let scale = largest(whole);
    assert!(scale > 0.0);
    for (w, b) in whole.iter().zip(other) {
        for (x, y) in w.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-5 * scale,
                "{micro:?}: {x} vs {y} (largest {scale})"
            );
        }
    }
}

/// Micro-batches of 2 groups, or of a token budget (whole groups, or single rows
/// when a group is over it), sorted by length and trimmed to their own width, give
/// the gradient of the whole batch in one padded pass (within float rounding).
#[test]
fn bucketed_trimmed_micro_batches_give_the_padded_gradient() {
    common::pin();
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let task = ToyTask::new().expect("toy task");
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let cfg = ragged_config(&task);
    let prompts = toy_prompts(&task);
    let model = task.new_model(2).expect("model");
    let scored = sample_and_score(&model, None, &prompts, &toy_reward, &decode, &cfg);
    let lengths: Vec<usize> = scored.generation.completions.iter().map(Vec::len).collect();
    assert!(
        lengths.iter().max() > lengths.iter().min(),
        "ragged rows: {lengths:?}"
    );
    let weights: Vec<Tensor> = model
        .parameters()
        .values()
        .map(|p| p.detach().copy())
        .collect();
    let grads = |micro_batch: MicroBatching| {
        let cfg = GrpoConfig {
            micro_batch,
            ..cfg.clone()
        };
        update_gradients(
            &task,
            &weights,
            &scored.generation,
            &prompts,
            &scored.rewards,
            &cfg,
            Precision::F32,
        )
    };
    let whole = grads(MicroBatching::Rows(24));
    // Prompt plus response of the longest row: a budget of two such groups, and one
    // under a single row's length (every row alone).
    let longest = prompts.iter().map(Vec::len).max().unwrap_or(0) + lengths.iter().max().unwrap();
    let budgets = [
        MicroBatching::Rows(8),
        MicroBatching::Tokens(2 * 4 * longest),
        MicroBatching::Tokens(1),
    ];
    for micro in budgets {
        assert_same_gradient(&whole, &grads(micro), micro);
    }
}

/// MOPD's backward and teacher passes by a token budget (bucketed, trimmed) give the
/// gradient and the metrics of one padded pass over the batch.
#[test]
fn mopd_micro_batches_by_tokens_give_the_padded_gradient() {
    common::pin();
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let task = ToyTask::new().expect("toy task");
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let prompts: Vec<(String, Vec<i64>)> = toy_prompts(&task)
        .into_iter()
        .map(|p| ("addition".to_owned(), p))
        .collect();
    let ragged = ragged_config(&task);
    let step = |micro_batch: MicroBatching| {
        let mut student = task.new_model(2).expect("student");
        student.set_trainable(true);
        let key = std::path::PathBuf::from("teacher");
        let domains = std::collections::BTreeMap::from([("addition".to_owned(), key.clone())]);
        let mut pool = TeacherPool::new(domains, true, tch::Device::Cpu);
        pool.insert_loaded(&key, task.new_model(3).expect("teacher"));
        let cfg = MopdConfig {
            group_size: 4,
            sampling: ragged.sampling.clone(),
            micro_batch,
            // No clipping: the gradients are compared as the loss left them.
            max_grad_norm: 0.0,
            importance: ImportanceCorrection::CASCADE_MOPD,
            memory: Default::default(),
        };
        let mut optimizer = AdamW::new(student.parameters(), Default::default());
        let stats = mopd_step(
            &student,
            &mut pool,
            &mut optimizer,
            0.0,
            &prompts,
            None,
            &decode,
            &cfg,
        )
        .expect("step");
        (stats, gradients(&student))
    };
    let (whole_stats, whole) = step(MicroBatching::Rows(24));
    assert!(whole_stats.response_len_mean > 1.0, "{whole_stats:?}");
    for micro in [MicroBatching::Tokens(64), MicroBatching::Tokens(1)] {
        let (stats, grads) = step(micro);
        assert!(
            (stats.advantage_mean - whole_stats.advantage_mean).abs() < 1e-4,
            "{micro:?}: {stats:?} vs {whole_stats:?}"
        );
        assert_eq!(stats.truncated_share, whole_stats.truncated_share);
        assert_eq!(
            stats.response_len_mean, whole_stats.response_len_mean,
            "the same samples"
        );
        assert_same_gradient(&whole, &grads, micro);
    }
}

/// bf16 autocast on the CPU against float32 on one GRPO batch of the toy model: the
/// response tokens' log-probabilities within bf16's rounding, and a gradient pointing
/// the same way with the same size.
#[test]
fn bf16_steps_match_float32_within_rounding() {
    common::pin();
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let task = ToyTask::new().expect("toy task");
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let cfg = ragged_config(&task);
    let prompts = toy_prompts(&task);
    let mut model = task.new_model(2).expect("model");
    let scored = sample_and_score(&model, None, &prompts, &toy_reward, &decode, &cfg);
    let generation = &scored.generation;
    let batch = SequenceBatch {
        prompt_ids: &generation.prompts.ids,
        prompt_valid: &generation.prompts.valid,
        completion_ids: &generation.completion_ids,
        completion_valid: &generation.completion_valid,
    };
    let mut logp = |precision: Precision| {
        model.set_precision(precision);
        tch::no_grad(|| model.autocast(|| token_logprobs(&model, &batch).0))
    };
    let (f32_logp, bf16_logp) = (logp(Precision::F32), logp(Precision::Bf16));
    let valid = generation.completion_valid.to_kind(Kind::Float);
    let gap = (&f32_logp - &bf16_logp).abs() * &valid;
    let worst = f64::try_from(gap.max()).unwrap();
    let mean = f64::try_from(gap.sum(Kind::Float) / valid.sum(Kind::Float)).unwrap();
    let typical =
        f64::try_from((f32_logp.abs() * &valid).sum(Kind::Float) / valid.sum(Kind::Float)).unwrap();
    eprintln!("log-prob gap: worst {worst:.5}, mean {mean:.5} (|logp| {typical:.3})");
    assert!(worst > 0.0, "bf16 must round differently: is autocast on?");
    assert!(worst < 0.05 && mean < 0.01, "worst {worst}, mean {mean}");
    let weights: Vec<Tensor> = model
        .parameters()
        .values()
        .map(|p| p.detach().copy())
        .collect();
    let grads = |precision: Precision| {
        let g = update_gradients(
            &task,
            &weights,
            generation,
            &prompts,
            &scored.rewards,
            &cfg,
            precision,
        );
        Tensor::from_slice(&g.concat()).to_kind(Kind::Double)
    };
    let (f32_grad, bf16_grad) = (grads(Precision::F32), grads(Precision::Bf16));
    let norm = |t: &Tensor| f64::try_from(t.norm()).unwrap();
    let cosine = f64::try_from((&f32_grad * &bf16_grad).sum(Kind::Double)).unwrap()
        / (norm(&f32_grad) * norm(&bf16_grad));
    let ratio = norm(&bf16_grad) / norm(&f32_grad);
    eprintln!("gradient: cosine {cosine:.6}, norm ratio {ratio:.5}");
    assert!(cosine > 0.99, "cosine {cosine}");
    assert!((ratio - 1.0).abs() < 0.03, "norm ratio {ratio}");
}

/// Dropping finished rows from the decoding batch (`compact_finished`) samples what
/// the full batch samples: the same tokens, and the same log-probabilities on every
/// response token, from rows that end at very different steps.
#[test]
fn compacting_finished_rows_gives_the_same_samples() {
    common::pin();
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let task = ToyTask::new().expect("toy task");
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let model = task.new_model(2).expect("model");
    let mut params = ragged_config(&task).sampling;
    params.max_new_tokens = 40;
    // Rarer stops than the ragged config's: lengths spread from 1 to the cap.
    params.stop_ids = (0..task.tokenizer.vocab_size() as i64)
        .filter(|t| t % 11 == 0)
        .collect();
    let prompts = toy_prompts(&task);
    let sample = |compact: bool| {
        let params = SamplingParams {
            compact_finished: compact,
            max_decode_rows: 0,
            finished_check_every: 0,
            ..params.clone()
        };
        generate_groups(&model, &prompts, 4, &params, &decode)
    };
    let (full, compacted) = (sample(false), sample(true));
    let lengths: Vec<usize> = full.completions.iter().map(Vec::len).collect();
    let (short, long) = (lengths.iter().min().unwrap(), lengths.iter().max().unwrap());
    assert!(long > &(short * 4), "rows end far apart: {lengths:?}");
    assert_eq!(compacted.completions, full.completions, "the same samples");
    assert_eq!(compacted.finished, full.finished);
    let valid = full.completion_valid.to_kind(Kind::Float);
    let gap = (&full.sampling_logprobs - &compacted.sampling_logprobs).abs() * &valid;
    let worst = f64::try_from(gap.max()).unwrap();
    assert!(worst < 1e-5, "log-probabilities differ by {worst}");
}
