//! The tiny recipe's toy rows (`datasets/toy/`) are exactly what their script writes,
//! and each row's reference response scores 1 in its real environment while a wrong
//! answer scores 0: the stages learn skills the graders really check.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DOMAINS: &[&str] = &[
    "ifeval",
    "mcqa",
    "structured_output",
    "tool_call",
    "code",
    "swe",
];

fn toy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/toy")
}

#[test]
fn toy_files_are_what_their_script_writes() {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("python3")
        .arg(toy_dir().join("make_toy.py"))
        .arg(dir.path())
        .status()
        .expect("python3 runs");
    assert!(status.success());
    for domain in DOMAINS {
        for part in ["train", "eval"] {
            let name = format!("{domain}.{part}.jsonl");
            let written = std::fs::read(dir.path().join(&name)).unwrap();
            let bundled = std::fs::read(toy_dir().join(&name)).unwrap();
            assert!(
                written == bundled,
                "{name} differs from make_toy.py's output"
            );
        }
    }
}

/// Scores every row of `domain`'s eval file answered by `answer(row)`, in a folder that
/// also holds the swe rows' repository; returns the rewards in row order.
fn rewards(domain: &str, answer: impl Fn(&Value) -> String) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repos/value");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::copy(
        toy_dir().join("repos/value/value.py"),
        repo.join("value.py"),
    )
    .unwrap();
    let rows = std::fs::read_to_string(toy_dir().join(format!("{domain}.eval.jsonl"))).unwrap();
    let mut samples = String::new();
    for line in rows.lines() {
        let mut row: Value = serde_json::from_str(line).unwrap();
        row["response"] = Value::from(answer(&row));
        samples.push_str(&row.to_string());
        samples.push('\n');
    }
    let input = dir.path().join("answered.jsonl");
    std::fs::write(&input, samples).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(["score", "--env", domain, "--jobs", "2", "--input"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{domain}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout
        .lines()
        .map(|line| {
            let result: Value = serde_json::from_str(line).unwrap();
            result["reward"]
                .as_f64()
                .unwrap_or_else(|| panic!("{result}"))
        })
        .collect()
}

#[test]
fn reference_responses_score_one_and_wrong_answers_zero() {
    for domain in DOMAINS {
        let right = rewards(domain, |row| row["solution"].as_str().unwrap().to_owned());
        assert_eq!(right.len(), 32, "{domain}");
        assert!(right.iter().all(|&r| r == 1.0), "{domain}: {right:?}");
        // Another row's reference answer: the right shape with the wrong word, letter or
        // number, which the real grader must refuse.
        let rows = std::fs::read_to_string(toy_dir().join(format!("{domain}.eval.jsonl"))).unwrap();
        let solutions: Vec<String> = rows
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["solution"].to_string())
            .collect();
        let wrong = rewards(domain, |row| {
            let own = row["solution"].to_string();
            // For mcqa, a different string is a different letter.
            let other = solutions.iter().find(|s| **s != own);
            serde_json::from_str(other.unwrap()).unwrap()
        });
        assert!(wrong.iter().all(|&r| r == 0.0), "{domain}: {wrong:?}");
    }
}
