//! `finished_check_every`: reading which rows finished only every k decoding steps
//! (so a GPU's queue is not drained each step) gives the same samples, the same
//! tensors (the idle steps after the last row ended are cut off) and the same
//! groups reported early, for any k.
//!
//! One test function: libtorch's random stream is global to the process, and these
//! checks compare samples drawn from it.

mod common;

use std::path::Path;

use cascade_trainer::model::config::ModelConfig;
use cascade_trainer::model::Transformer;
use cascade_trainer::sampling::{generate_groups_reporting, Generation, SamplingParams};
use tch::{Device, Kind};

/// Groups reported early: (group index, its rows' responses).
type Reported = Vec<(usize, Vec<Vec<i64>>)>;

fn run(model: &Transformer, prompts: &[Vec<i64>], every: usize) -> (Generation, Reported) {
    let params = SamplingParams {
        max_new_tokens: 24,
        stop_ids: vec![3, 17],
        seed: 7,
        finished_check_every: every,
        ..Default::default()
    };
    let mut reported = Vec::new();
    let mut report = |group: usize, rows: Vec<Vec<i64>>| reported.push((group, rows));
    let g = generate_groups_reporting(
        model,
        prompts,
        4,
        &params,
        &|_| String::new(),
        Some(&mut report),
    );
    reported.sort_by_key(|(group, _)| *group);
    (g, reported)
}

#[test]
fn reading_finished_rows_every_k_steps_samples_the_same() {
    common::pin();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tiny-chatml/config.json");
    let config = ModelConfig::from_json(&std::fs::read_to_string(dir).expect("config"))
        .expect("config parses");
    let model = Transformer::random(config, Device::Cpu, Kind::Float, 9).expect("model");
    let prompts: Vec<Vec<i64>> = [5usize, 12, 8]
        .iter()
        .enumerate()
        .map(|(r, &len)| {
            (0..len)
                .map(|t| ((r * 11 + t * 3) % 200) as i64 + 20)
                .collect()
        })
        .collect();
    let (every_step, reported_every) = run(&model, &prompts, 1);
    let lens: Vec<usize> = every_step.completions.iter().map(Vec::len).collect();
    assert!(
        lens.iter().min() < lens.iter().max() && lens.iter().any(|&n| n < 24),
        "rows end at different steps before the cap: {lens:?}"
    );
    for every in [2, 5, 64] {
        let (sparse, reported) = run(&model, &prompts, every);
        assert_eq!(sparse.completions, every_step.completions, "every {every}");
        assert_eq!(sparse.finished, every_step.finished, "every {every}");
        assert!(
            sparse.completion_ids.equal(&every_step.completion_ids),
            "every {every}"
        );
        assert!(
            sparse.completion_valid.equal(&every_step.completion_valid),
            "every {every}"
        );
        assert!(
            sparse
                .sampling_logprobs
                .equal(&every_step.sampling_logprobs),
            "every {every}"
        );
        // Groups that ended early are reported as they end, never twice, and alike.
        for (group, rows) in &reported {
            assert_eq!(rows[..], every_step.completions[group * 4..group * 4 + 4]);
        }
        let groups: Vec<usize> = reported.iter().map(|(g, _)| *g).collect();
        let mut unique = groups.clone();
        unique.dedup();
        assert_eq!(groups, unique, "every {every}: each group at most once");
    }
    assert!(reported_every.len() <= prompts.len());
}
