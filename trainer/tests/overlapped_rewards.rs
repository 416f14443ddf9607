//! Overlapped rewards (issue 18): groups scored while the rest of the batch is still
//! sampled give the step that scoring after sampling gives. Its own test binary:
//! sampling draws from libtorch's global generator, which tests running beside it
//! in one process would draw from too.

use std::time::Instant;

use cascade_trainer::grpo::step::{grpo_update, sample_and_score_batch, BatchScorer};
use cascade_trainer::optim::AdamW;
use cascade_trainer::toy::bench::ToyTask;
use tch::Kind;

/// Rewards scored group by group while the batch still samples are those of
/// scoring after sampling, and so is the update: same samples, same rewards,
/// bit-identical weights. Each early group is handed exactly its final responses.
#[test]
fn overlapped_rewards_give_the_serial_step() {
    tch::set_num_threads(1);
    let task = ToyTask::new().expect("toy task");
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let mut cfg = task.grpo.clone();
    cfg.group_size = 4;
    cfg.micro_batch = 8;
    // A third of the vocabulary stops a row, so groups end at different steps.
    cfg.sampling.max_new_tokens = 24;
    cfg.sampling.stop_ids = (0..task.tokenizer.vocab_size() as i64)
        .filter(|t| t % 3 == 0)
        .collect();
    let prompts: Vec<Vec<i64>> = ["1+2=", "3+4=", "5+6=", "7+8=", "9+1=", "2+2="]
        .iter()
        .map(|p| task.tokenizer.encode(p).expect("encode"))
        .collect();
    let reward = |i: usize, ids: &[i64]| ((ids.len() * 7 + i) % 5) as f64 / 4.0;
    let handed = std::sync::Mutex::new(Vec::new());
    let group = |g: usize, responses: &[Vec<i64>]| {
        handed.lock().unwrap().push((g, responses.to_vec()));
        responses
            .iter()
            .enumerate()
            .map(|(k, ids)| reward(g * 4 + k, ids))
            .collect::<Vec<f64>>()
    };
    let batch = |completions: &[Vec<i64>], wanted: &[bool]| {
        completions
            .iter()
            .enumerate()
            .map(|(i, ids)| if wanted[i] { reward(i, ids) } else { 0.0 })
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
