//! One math verdict per JSONL line, for side-by-side comparisons with other checkers
//! (`scripts/compare/champ_math.sh`): reads `{"id", "response", "answer"}` lines and
//! writes `{"id", "correct", "extracted", "verdict", "reason"}` lines, in order.
//!
//!     cargo run --release -p cascade-verifiers --example math_verdicts < IN.jsonl > OUT.jsonl

use std::io::{BufRead, BufWriter, Write};

use cascade_verifiers::math::check;
use serde_json::{json, Value};

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let row: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let text = |k: &str| row.get(k).and_then(Value::as_str).unwrap_or("");
        let verdict = check(text("response"), text("answer"));
        let result = json!({
            "id": row.get("id").cloned().unwrap_or(Value::Null),
            "correct": verdict.correct,
            "extracted": verdict.extracted,
            "verdict": verdict.verdict,
            "reason": verdict.reason,
        });
        writeln!(out, "{result}")?;
    }
    out.flush()
}
