//! tool_call throughput on one thread: rows scored per second, each pass reading the
//! row's tools and BFCL `ground_truth` from JSON, parsing the calls (Hermes text,
//! Qwen3-Coder XML or `response_output` items) and matching them.
//!
//! `cargo bench --workspace --bench tool_call [-- CORPUS.jsonl]` (default corpus:
//! `datasets/tool_call/sample.jsonl`; rows without a readable `ground_truth` are
//! skipped). `scripts/compare/gym_tool_call.sh` runs it on its corpus beside the peers.

use std::time::{Duration, Instant};

use cascade_verifiers::tool_call::{
    compare, ground_truth_from_json, parse_output_items, parse_text, tools_from_json,
};
use serde_json::Value;

/// One row's scoring, as the env does it after reading the line; 1 when correct.
fn score(row: &Value) -> Option<u32> {
    let tools = row
        .get("tools")
        .or_else(|| row.get("responses_create_params")?.get("tools"))?
        .as_array()?;
    let tools = tools_from_json(tools, "tools").ok()?;
    let expected = ground_truth_from_json(row.get("ground_truth")?, "ground_truth").ok()?;
    let calls = match row.get("response_output").and_then(Value::as_array) {
        Some(items) => parse_output_items(items).ok()?,
        None => parse_text(row.get("response")?.as_str()?, &tools).ok()?,
    };
    let comparison = compare(&calls, &expected, &tools).ok()?;
    Some(u32::from(comparison.correct()))
}

fn main() {
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../datasets/tool_call/sample.jsonl"
    );
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| default.to_owned());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let rows: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|r| score(r).is_some())
        .collect();
    let (mut passes, mut correct) = (0u64, 0u32);
    let start = Instant::now();
    while passes == 0 || start.elapsed() < Duration::from_secs(2) {
        correct = rows.iter().filter_map(score).sum();
        passes += 1;
    }
    let rate = (passes as f64 * rows.len() as f64) / start.elapsed().as_secs_f64();
    println!(
        "tool_call bench: {} rows ({correct} correct), 1 thread: {rate:.0} rows/s ({passes} passes)",
        rows.len()
    );
}
