//! `max_decode_rows`: a call with more rows decodes in turns of whole groups. A cap at
//! or above the rows changes nothing; below them the result has the same layout
//! (rows grouped in prompt order, padded to the longest response) and every group is
//! reported once, under its index in the whole call.
//!
//! One test function: libtorch's random stream is global to the process, and these
//! checks compare samples drawn from it.

mod common;

use std::path::Path;

use cascade_trainer::model::config::ModelConfig;
use cascade_trainer::model::Transformer;
use cascade_trainer::sampling::{generate_groups, generate_groups_reporting, SamplingParams};
use tch::{Device, Kind};

fn setup() -> (Transformer, Vec<Vec<i64>>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tiny-chatml/config.json");
    let config = ModelConfig::from_json(&std::fs::read_to_string(dir).expect("config"))
        .expect("config parses");
    let model = Transformer::random(config, Device::Cpu, Kind::Float, 5).expect("model");
    let prompts = [9usize, 4, 13, 6, 11]
        .iter()
        .enumerate()
        .map(|(r, &len)| (0..len).map(|t| ((r * 17 + t * 5) % 250) as i64).collect())
        .collect();
    (model, prompts)
}

fn params(max_decode_rows: usize) -> SamplingParams {
    SamplingParams {
        max_new_tokens: 12,
        stop_ids: vec![3],
        seed: 11,
        max_decode_rows,
        ..Default::default()
    }
}

fn no_text(_: &[i64]) -> String {
    String::new()
}

#[test]
fn decoding_in_turns_of_whole_groups() {
    common::pin();
    let (model, prompts) = setup();
    let whole = generate_groups(&model, &prompts, 3, &params(0), &no_text);

    // A cap at or above the rows changes nothing.
    let at = generate_groups(&model, &prompts, 3, &params(15), &no_text);
    assert_eq!(at.completions, whole.completions);
    assert!(at.sampling_logprobs.equal(&whole.sampling_logprobs));

    // 7 rows a turn: 2 groups of 3, so turns of prompts [0, 1], [2, 3], [4].
    let mut reported = Vec::new();
    let mut report = |group: usize, rows: Vec<Vec<i64>>| reported.push((group, rows));
    let capped =
        generate_groups_reporting(&model, &prompts, 3, &params(7), &no_text, Some(&mut report));
    assert_eq!(capped.completions.len(), 15);
    assert!(capped.prompts.ids.equal(&whole.prompts.ids));
    let width = capped.completions.iter().map(Vec::len).max().unwrap() as i64;
    assert_eq!(capped.completion_ids.size(), [15, width]);
    assert_eq!(capped.sampling_logprobs.size(), [15, width]);
    let valid: Vec<i64> = Vec::try_from(capped.completion_valid.sum_dim_intlist(
        1,
        false,
        Kind::Int64,
    ))
    .unwrap();
    let lens: Vec<i64> = capped.completions.iter().map(|c| c.len() as i64).collect();
    assert_eq!(valid, lens);
    let mut groups: Vec<usize> = reported.iter().map(|(g, _)| *g).collect();
    groups.sort_unstable();
    groups.dedup();
    assert_eq!(
        groups.len(),
        reported.len(),
        "each group reported at most once"
    );
    for (group, rows) in &reported {
        assert_eq!(
            rows[..],
            capped.completions[group * 3..group * 3 + 3],
            "group {group}"
        );
    }
    // The first turn draws first from the same stream as a call of its prompts alone.
    let first = generate_groups(&model, &prompts[..2], 3, &params(0), &no_text);
    assert_eq!(capped.completions[..6], first.completions[..]);

    // A cap below one group still decodes the group whole.
    let small = generate_groups(&model, &prompts[..2], 4, &params(1), &no_text);
    assert_eq!(small.completions.len(), 8);
    let one = generate_groups(&model, &prompts[..1], 4, &params(0), &no_text);
    assert_eq!(small.completions[..4], one.completions[..]);
}
