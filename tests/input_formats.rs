//! `cascade score` and `check` on the formats users keep data in, through the real
//! binary: verl's RL layout in a parquet file and a Hugging Face dataset folder of
//! parquet shards score exactly as their JSONL twins (`datasets/parquet/`, written by
//! `make_fixtures.py`), byte for byte.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/parquet")
}

fn cascade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(args)
        .output()
        .expect("run cascade")
}

/// `cascade score --env math --input INPUT [extra…]`'s stdout; it must succeed.
fn score(input: &Path, extra: &[&str]) -> String {
    let mut args = vec!["score", "--env", "math", "--input", input.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = cascade(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn ids_and_rewards(text: &str) -> Vec<(Value, Value)> {
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["id"].clone(), v["reward"].clone()))
        .collect()
}

#[test]
fn a_verl_parquet_file_scores_as_its_jsonl_twin() {
    let parquet = score(&fixtures().join("verl_math.parquet"), &[]);
    assert_eq!(parquet, score(&fixtures().join("verl_math.jsonl"), &[]));
    // ids are extra_info.index, else the row's position; gold is the ground truth.
    assert_eq!(
        ids_and_rewards(&parquet),
        [
            (json!(0), json!(1.0)),
            (json!(1), json!(1.0)),
            (json!(2), json!(0.0)),
            (json!(4), json!(1.0)),
        ]
    );
}

#[test]
fn a_dataset_folder_scores_one_split_as_its_jsonl_twin() {
    let hf = fixtures().join("hf");
    let train = score(&hf, &[]);
    assert_eq!(train, score(&fixtures().join("hf_train.jsonl"), &[]));
    assert_eq!(train, score(&hf, &["--split", "train", "--jobs", "2"]));
    assert_eq!(
        ids_and_rewards(&train).len(),
        4,
        "the empty shard adds nothing"
    );
    assert_eq!(
        score(&hf, &["--split", "test"]),
        score(&fixtures().join("hf_test.jsonl"), &[])
    );

    // Written to a file, twice: the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scores.jsonl");
    let out_arg = out.to_str().unwrap();
    score(&hf, &["--output", out_arg]);
    let first = std::fs::read(&out).unwrap();
    score(&hf, &["--output", out_arg]);
    assert_eq!(first, std::fs::read(&out).unwrap());
    assert_eq!(first, train.as_bytes());

    // check reads the folder too.
    let hf_arg = hf.to_str().unwrap();
    let checked = cascade(&[
        "check",
        "--env",
        "math",
        "--input",
        hf_arg,
        "--expected",
        out_arg,
    ]);
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn unusable_inputs_are_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    std::fs::write(&csv, "id,response\n").unwrap();
    let bad = dir.path().join("bad.parquet");
    std::fs::write(&bad, "not parquet").unwrap();
    let hf = fixtures().join("hf");
    let jsonl = fixtures().join("hf_train.jsonl");
    let cases: [(&Path, &[&str], String); 4] = [
        (
            &csv,
            &[],
            format!("{}: unknown input format `.csv`", csv.display()),
        ),
        (
            &bad,
            &[],
            format!("{}: not a readable parquet file", bad.display()),
        ),
        (
            &hf,
            &["--split", "validation"],
            "no split `validation` (splits there: test, train)".into(),
        ),
        (
            &jsonl,
            &["--split", "test"],
            "names part of a dataset folder, and this is one file".into(),
        ),
    ];
    for (input, extra, message) in cases {
        let mut args = vec!["score", "--env", "math", "--input", input.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = cascade(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(&message), "{message} not in {stderr}");
        assert!(out.stdout.is_empty());
    }
}
