//! The bundled long-context files are exactly what their documented commands write
//! (`datasets/long_context/README.md`), and every row scores 1 with its own answer.
#![cfg(feature = "train")]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const FILES: &[(&str, &[&str])] = &[
    (
        "train.jsonl",
        &["--seed", "21", "--count", "64", "--tokens", "1024"],
    ),
    (
        "eval.jsonl",
        &["--seed", "22", "--count", "16", "--tokens", "1024"],
    ),
    (
        "tiny.train.jsonl",
        &[
            "--seed",
            "31",
            "--count",
            "512",
            "--tokens",
            "96",
            "--tasks",
            "niah_single",
            "--terse",
        ],
    ),
    (
        "tiny.eval.jsonl",
        &[
            "--seed",
            "32",
            "--count",
            "16",
            "--tokens",
            "96",
            "--tasks",
            "niah_single",
            "--terse",
        ],
    ),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn bundled_long_context_files_are_what_their_commands_write() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in FILES {
        let output = dir.path().join(name);
        let status = Command::new(env!("CARGO_BIN_EXE_cascade"))
            .arg("gen-long-context")
            .args(*args)
            .arg("--tokenizer")
            .arg(root().join("trainer/assets/tiny-chatml"))
            .arg("--output")
            .arg(&output)
            .status()
            .unwrap();
        assert!(status.success(), "{name}");
        let bundled = std::fs::read(root().join("datasets/long_context").join(name)).unwrap();
        assert!(
            std::fs::read(&output).unwrap() == bundled,
            "{name} differs from its command's output"
        );
    }
}

/// Each bundled row, answered with its own expected answer, scores 1.
#[test]
fn bundled_long_context_rows_score_one_with_their_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut samples = String::new();
    for (name, _) in FILES {
        let text =
            std::fs::read_to_string(root().join("datasets/long_context").join(name)).unwrap();
        for line in text.lines() {
            let mut row: Value = serde_json::from_str(line).unwrap();
            row["response"] = match (&row["expected_answer"], &row["problem_type"]) {
                (Value::String(s), _) => Value::from(s.clone()),
                (Value::Array(items), Value::String(_)) => {
                    let nodes: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                    Value::from(format!("Final Answer: [{}]", nodes.join(", ")))
                }
                (Value::Array(items), _) => {
                    let values: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                    Value::from(values.join(" "))
                }
                other => panic!("{name}: unexpected answer {other:?}"),
            };
            samples.push_str(&row.to_string());
            samples.push('\n');
        }
    }
    let input = dir.path().join("answered.jsonl");
    std::fs::write(&input, samples).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args([
            "score",
            "--env",
            "long_context",
            "--config",
            "max_context_tokens=1024",
            "--input",
        ])
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 608);
    for line in stdout.lines() {
        let result: Value = serde_json::from_str(line).unwrap();
        assert_eq!(result["reward"], 1.0, "{result}");
    }
}
