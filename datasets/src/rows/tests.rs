//! The row source on the bundled fixtures (`datasets/parquet/`, written by pyarrow with
//! `make_fixtures.py`), laid out in a temporary folder where a test needs another layout.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::*;

fn fixtures() -> PathBuf {
    crate::bundled_dir().join("parquet")
}

fn values(rows: &[Numbered<Value>]) -> Vec<Value> {
    rows.iter().map(|r| r.value.clone()).collect()
}

fn positions(rows: &[Numbered<Value>]) -> Vec<usize> {
    rows.iter().map(|r| r.line).collect()
}

fn read(path: &Path, split: Option<&str>) -> Result<Vec<Numbered<Value>>, RowsError> {
    RowSource::open(path, split)?.read()
}

fn hf_shard(name: &str) -> PathBuf {
    fixtures().join("hf/data").join(name)
}

/// Copies fixture shards into `dir` under new names (`to` may hold folders).
fn lay_out(dir: &Path, files: &[(&str, &str)]) {
    for (from, to) in files {
        let target = dir.join(to);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(hf_shard(from), target).unwrap();
    }
}

const TRAIN0: &str = "train-00000-of-00003.parquet";
const TRAIN1: &str = "train-00001-of-00003.parquet";
const TRAIN2: &str = "train-00002-of-00003.parquet";
const TEST0: &str = "test-00000-of-00001.parquet";

#[test]
fn verl_rows_keep_nested_prompts_and_structs() {
    let rows = read(&fixtures().join("verl_math.parquet"), None).unwrap();
    let twin = jsonl::read_values(&fixtures().join("verl_math.jsonl")).unwrap();
    assert_eq!(values(&rows), values(&twin));
    assert_eq!(positions(&rows), [1, 2, 3, 4]);
    let second = &rows[1].value;
    assert_eq!(
        second["prompt"][0],
        json!({"role": "system", "content": "You are a careful mathematician."})
    );
    assert_eq!(
        second["reward_model"],
        json!({"style": "rule", "ground_truth": "\\frac{1}{2}"})
    );
    assert_eq!(second["extra_info"]["index"], 1);
    assert_eq!(rows[3].value["extra_info"]["index"], Value::Null);
}

#[test]
fn a_hub_folder_reads_one_split_across_shards_in_order() {
    let hf = fixtures().join("hf");
    let train = read(&hf, None).unwrap();
    let twin = jsonl::read_values(&fixtures().join("hf_train.jsonl")).unwrap();
    assert_eq!(values(&train), values(&twin));
    assert_eq!(
        positions(&train),
        [1, 2, 3, 4],
        "the empty shard takes no position"
    );
    assert_eq!(read(&hf, Some("train")).unwrap(), train);
    let test = read(&hf, Some("test")).unwrap();
    assert_eq!(test[0].value["id"], "hf-9");
    let source = RowSource::open(&hf, None).unwrap();
    assert_eq!(source.format(), Format::Parquet);
    assert_eq!(source.files().len(), 3);
    let err = read(&hf, Some("validation")).unwrap_err().to_string();
    assert!(
        err.ends_with("no split `validation` (splits there: test, train)"),
        "{err}"
    );
}

#[test]
fn config_and_plain_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // <config>/<split>/*.parquet: one config is found, two are refused.
    lay_out(
        root,
        &[
            (TRAIN0, "main/train/0.parquet"),
            (TRAIN1, "main/train/1.parquet"),
            (TRAIN2, "main/train/2.parquet"),
        ],
    );
    let rows = read(root, None).unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(read(&root.join("main"), Some("train")).unwrap(), rows);
    lay_out(root, &[(TEST0, "socratic/train/0.parquet")]);
    let err = read(root, None).unwrap_err().to_string();
    assert!(
        err.contains("split `train` is in several configs (main, socratic)"),
        "{err}"
    );

    // verl's folder: train.parquet beside test.parquet.
    let verl = root.join("verl");
    lay_out(&verl, &[(TRAIN0, "train.parquet"), (TEST0, "test.parquet")]);
    assert_eq!(read(&verl, None).unwrap().len(), 2);
    assert_eq!(read(&verl, Some("test")).unwrap().len(), 1);

    // Shards of no named split: read whole unless a split is asked for.
    let parts = root.join("parts");
    lay_out(
        &parts,
        &[(TRAIN2, "part-1.parquet"), (TRAIN0, "part-0.parquet")],
    );
    let ids: Vec<_> = read(&parts, None)
        .unwrap()
        .iter()
        .map(|r| r.value["id"].clone())
        .collect();
    assert_eq!(ids, ["hf-0", "hf-1", "hf-2", "hf-3"], "name order");
    let err = read(&parts, Some("train")).unwrap_err().to_string();
    assert!(
        err.ends_with("no split `train` (splits there: part)"),
        "{err}"
    );

    // A lone held-out split is never read as the training rows unless named.
    let held_out = root.join("held-out");
    lay_out(&held_out, &[(TEST0, "test.parquet")]);
    let err = read(&held_out, None).unwrap_err().to_string();
    assert!(
        err.ends_with("no split `train` (splits there: test)"),
        "{err}"
    );
    assert_eq!(read(&held_out, Some("test")).unwrap().len(), 1);

    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "").unwrap();
    let err = read(&empty, None).unwrap_err().to_string();
    assert!(
        err.ends_with("no parquet files for split `train` (found: notes.txt)"),
        "{err}"
    );
}

#[test]
fn a_bad_shard_is_named_after_the_rows_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    lay_out(dir.path(), &[(TRAIN0, "data/train-00000-of-00003.parquet")]);
    let good = std::fs::read(hf_shard(TRAIN2)).unwrap();
    let bad = data.join("train-00001-of-00003.parquet");
    std::fs::write(&bad, &good[..good.len() / 2]).unwrap();
    lay_out(dir.path(), &[(TRAIN2, "data/train-00002-of-00003.parquet")]);

    let source = RowSource::open(dir.path(), None).unwrap();
    let rows: Vec<_> = source.rows().collect();
    assert_eq!(rows.len(), 3, "two rows, the error, then nothing");
    assert!(rows[0].is_ok() && rows[1].is_ok());
    let err = rows[2].as_ref().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}: not a readable parquet file", bad.display())),
        "{err}"
    );
    assert_eq!(
        source.rows().take(2).filter(Result::is_ok).count(),
        2,
        "lazy"
    );

    let garbage = dir.path().join("garbage.parquet");
    std::fs::write(&garbage, b"PAR1 not really").unwrap();
    let err = read(&garbage, None).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "{}: not a readable parquet file",
            garbage.display()
        )),
        "{err}"
    );
}

#[test]
fn jsonl_reads_as_before_and_other_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl");
    std::fs::write(&path, "{\"a\":1}\n\n{\"a\":2}\n{bad\n{\"a\":3}\n").unwrap();
    let rows: Vec<_> = RowSource::open(&path, None).unwrap().rows().collect();
    assert_eq!(rows.len(), 3, "stops at the bad line");
    assert_eq!(rows[1].as_ref().unwrap().line, 3);
    let err = rows[2].as_ref().unwrap_err().to_string();
    assert!(
        err.ends_with("rows.jsonl:4: malformed JSON: key must be a string at line 1 column 2"),
        "{err}"
    );
    let no_extension = dir.path().join("rows");
    std::fs::write(&no_extension, "{\"a\":1}\n").unwrap();
    assert_eq!(read(&no_extension, None).unwrap().len(), 1);

    let csv = dir.path().join("rows.csv");
    let err = read(&csv, None).unwrap_err().to_string();
    assert!(
        err.contains("rows.csv: unknown input format `.csv`"),
        "{err}"
    );
    let err = read(&path, Some("test")).unwrap_err().to_string();
    assert!(
        err.ends_with("a split (`test`) names part of a dataset folder, and this is one file"),
        "{err}"
    );
    let err = read(&dir.path().join("missing.parquet"), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cannot open") && err.contains("missing.parquet"),
        "{err}"
    );
}
