//! `structured_output` throughput with one hostile YAML answer in every 35 samples,
//! beside the same batch without it (issue 37's goal: within 10%), and beside the same
//! batch with an honest YAML answer of the same size in those places.
//!
//! The batch is the bundled `datasets/structured_output/sample.jsonl` (answers of
//! tens of bytes), cycled to 3,500 samples. In the hostile batch every 35th sample is
//! a YAML row whose answer is, in turn: "billion laughs" (nine levels of ten aliases),
//! a 1,000-item list referenced 2,000 times (17 KB) and 7,500 times (62 KB), and a
//! 50 KB string anchored and repeated 50 times. The honest batch puts an alias-free
//! YAML list of the same length there. The three batches are scored by the guarded
//! pool in alternating rounds and the median ratios printed: on a shared machine only
//! rates taken side by side compare.
//!
//! Parsing YAML costs about 0.2 µs per event in both parsers here, so any 17 KB
//! answer costs as much as dozens of the bundled ones: what a hostile answer may not
//! do is cost more than an honest answer of its length.
//!
//! `cargo bench --workspace --bench hostile_yaml` (`CASCADE_BENCH_ROUNDS`, default 5;
//! `CASCADE_BENCH_JOBS`, default 2).

use std::path::Path;
use std::time::Instant;

use cascade_envs::{EnvConfig, Registry, Sample, ScoringPool};
use serde_json::Value;

const BATCH: usize = 3_500;
const ONE_IN: usize = 35;

fn bundled_rows() -> Vec<Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/structured_output/sample.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The hostile answers, each at the size the held-out cases used.
fn hostile_answers() -> Vec<String> {
    let mut laughs = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..9 {
        let refs = vec![format!("*a{}", level - 1); 10].join(", ");
        laughs.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
    }
    let items = vec!["1"; 1000].join(", ");
    let list_refs = |n: usize| format!("base: &b [{items}]\nrefs:\n{}", "  - *b\n".repeat(n));
    let long = "x".repeat(50_000);
    let string_refs = format!("a: &s {long}\nb: [{}]\n", vec!["*s"; 50].join(", "));
    vec![laughs, list_refs(2_000), list_refs(7_500), string_refs]
}

/// An alias-free YAML document of `len` bytes: a block list of short strings.
fn honest_answer(len: usize) -> String {
    let mut doc = String::from("items:\n");
    while doc.len() + 10 <= len {
        doc.push_str("  - word\n");
    }
    doc.push_str(&"x".repeat(len - doc.len()));
    doc
}

/// The clean batch, and the batch with each of `answers` in turn every [`ONE_IN`].
fn batches(answers: &[String]) -> (Vec<Sample>, Vec<Sample>) {
    let rows = bundled_rows();
    let yaml_row = rows
        .iter()
        .find(|r| r["schema_type"] == "yaml")
        .expect("a bundled yaml row");
    let mut clean = Vec::with_capacity(BATCH);
    let mut mixed = Vec::with_capacity(BATCH);
    for i in 0..BATCH {
        let mut row = rows[i % rows.len()].clone();
        row["id"] = Value::String(format!("s{i}"));
        clean.push(Sample::new(row.clone()));
        if i % ONE_IN == ONE_IN - 1 {
            row = yaml_row.clone();
            row["id"] = Value::String(format!("s{i}"));
            row["response"] = Value::String(answers[(i / ONE_IN) % answers.len()].clone());
        }
        mixed.push(Sample::new(row));
    }
    (clean, mixed)
}

fn env_var(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let rounds = env_var("CASCADE_BENCH_ROUNDS", 5);
    let jobs = env_var("CASCADE_BENCH_JOBS", 2);
    let env = Registry::discover()
        .and_then(|r| r.create("structured_output", &EnvConfig::default()))
        .expect("structured_output");
    let pool = ScoringPool::new(jobs).expect("pool");
    let shapes = ["billion laughs", "list x2,000", "list x7,500", "string x50"];
    let rate = |batch: &[Sample]| {
        let started = Instant::now();
        let rewards = pool.score_batch(env.as_ref(), batch, &|| {});
        assert_eq!(rewards.len(), batch.len());
        batch.len() as f64 / started.elapsed().as_secs_f64()
    };
    println!("structured_output, {BATCH} samples, --jobs {jobs}, 1 YAML line in {ONE_IN} replaced; median of {rounds} rounds");
    for (shape, hostile) in shapes.iter().zip(hostile_answers()) {
        let (clean, with_hostile) = batches(std::slice::from_ref(&hostile));
        let (_, with_honest) = batches(&[honest_answer(hostile.len())]);
        let (mut vs_clean, mut vs_honest) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let (c, h, b) = (rate(&clean), rate(&with_honest), rate(&with_hostile));
            vs_clean.push(b / c);
            vs_honest.push(b / h);
        }
        println!(
            "{shape} ({} bytes): hostile/clean {:.3}, hostile/honest of the same size {:.3}",
            hostile.len(),
            median(vs_clean),
            median(vs_honest)
        );
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}
