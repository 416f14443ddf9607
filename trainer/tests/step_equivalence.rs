//! GRPO steps that must equal another way of taking them (issue 18):
//! - overlapped rewards: groups scored while the rest of the batch is still sampled
//!   give the step that scoring after sampling gives, bit for bit;
//! - bucketed micro-batches: rows sorted by length into micro-batches trimmed to
//!   their own width give the gradient of one padded batch.
//!
//! Its own test binary, the tests one at a time (`SERIAL`): sampling and random
//! init draw from libtorch's global generator, which tests running beside them
//! would draw from too.

use std::sync::Mutex;
use std::time::Instant;

use cascade_trainer::grpo::step::{
    grpo_update, sample_and_score, sample_and_score_batch, BatchScorer, GrpoConfig,
};
use cascade_trainer::optim::AdamW;
use cascade_trainer::sampling::Generation;
use cascade_trainer::toy::bench::ToyTask;
use tch::{Kind, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

/// The toy task's GRPO settings with groups of 4 whose rows end at different steps
/// (a third of the vocabulary stops a row).
fn ragged_config(task: &ToyTask) -> GrpoConfig {
    let mut cfg = task.grpo.clone();
    cfg.group_size = 4;
    cfg.micro_batch = 8;
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
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    tch::set_num_threads(1);
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
) -> Vec<Vec<f32>> {
    let model = task.new_model(2).expect("model");
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
    model
        .parameters()
        .values()
        .map(|p| Vec::try_from(p.grad().flatten(0, -1).to_kind(Kind::Float)).unwrap_or_default())
        .collect()
}

/// Micro-batches of 2 groups, sorted by length and trimmed to their own width, give
/// the gradient of the whole batch in one padded pass (within float rounding).
#[test]
fn bucketed_trimmed_micro_batches_give_the_padded_gradient() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    tch::set_num_threads(1);
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
    let grads = |micro_batch: usize| {
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
        )
    };
    let whole = grads(24);
    let bucketed = grads(8);
    let scale = whole.iter().flatten().fold(0f32, |m, g| m.max(g.abs()));
    assert!(scale > 0.0);
    for (w, b) in whole.iter().zip(&bucketed) {
        for (x, y) in w.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-5 * scale,
                "{x} vs {y} (largest {scale})"
            );
        }
    }
}
