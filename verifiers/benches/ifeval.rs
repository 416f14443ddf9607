//! IFEval throughput: instructions checked per second (parse + strict + loose),
//! one thread and all cores.
//!
//! `cargo bench -p cascade-verifiers --bench ifeval [-- CORPUS.jsonl]`
//! (default corpus: `datasets/ifeval/diff_corpus.jsonl`).

use std::time::{Duration, Instant};

use cascade_verifiers::ifeval::{evaluate, parse_list};
use rayon::prelude::*;
use serde_json::Value;

struct Row {
    ids: Vec<Value>,
    kwargs: Vec<Value>,
    response: String,
}

fn load(path: &str) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut rows = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let field = |k: &str| v.get(k).cloned().unwrap_or(Value::Null);
        rows.push(Row {
            ids: field("instruction_id_list")
                .as_array()
                .cloned()
                .unwrap_or_default(),
            kwargs: field("kwargs").as_array().cloned().unwrap_or_default(),
            response: field("response").as_str().unwrap_or_default().to_owned(),
        });
    }
    Ok(rows)
}

/// Grades one row; returns the number of instructions checked.
fn grade(row: &Row) -> usize {
    match parse_list(&row.ids, &row.kwargs) {
        Ok(instructions) => std::hint::black_box(evaluate(&instructions, &row.response))
            .strict
            .len(),
        Err(_) => 0,
    }
}

/// Runs whole passes over the corpus for at least `min`; instructions per second.
fn measure(min: Duration, pass: impl Fn() -> usize) -> (f64, usize) {
    pass(); // warm up lazily built tables
    let start = Instant::now();
    let mut checked = 0;
    let mut passes = 0;
    while start.elapsed() < min || passes == 0 {
        checked += pass();
        passes += 1;
    }
    (checked as f64 / start.elapsed().as_secs_f64(), passes)
}

fn main() {
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../datasets/ifeval/diff_corpus.jsonl"
    );
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| default.to_owned());
    let rows = match load(&path) {
        Ok(rows) => rows,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let per_pass: usize = rows.iter().map(|r| r.ids.len()).sum();
    let min = Duration::from_secs(2);
    let (single, p1) = measure(min, || rows.iter().map(grade).sum());
    let (all, p2) = measure(min, || rows.par_iter().map(grade).sum());
    println!(
        "ifeval bench: {} rows, {per_pass} instructions per pass (parse + strict + loose)",
        rows.len()
    );
    println!("  1 thread:        {single:>12.0} instructions/s ({p1} passes)");
    println!(
        "  {:>2} threads:      {all:>12.0} instructions/s ({p2} passes)",
        rayon::current_num_threads()
    );
    if std::env::var_os("IFEVAL_BENCH_BY_ID").is_some() {
        by_id(&rows);
    }
}

/// Single-thread throughput of the single-instruction rows, per id.
fn by_id(rows: &[Row]) {
    let mut groups: std::collections::BTreeMap<&str, Vec<&Row>> = Default::default();
    for row in rows.iter().filter(|r| r.ids.len() == 1) {
        groups
            .entry(row.ids[0].as_str().unwrap_or("?"))
            .or_default()
            .push(row);
    }
    for (id, group) in groups {
        let (rate, _) = measure(Duration::from_millis(200), || {
            group.iter().map(|r| grade(r)).sum()
        });
        println!("  {id:48} {rate:>10.0} instructions/s");
    }
}
