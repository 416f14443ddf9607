//! Loader for SWE-bench-style JSONL, producing `swe` environment rows:
//! `{"id", "repo", "fail_to_pass", "pass_to_pass", "test_patch", "problem_statement"}`
//! and, on request, the gold `patch` as the `response` (to check a dataset: every
//! gold row must score 1).
//!
//! Input fields: `instance_id`, `patch`, `test_patch`, `FAIL_TO_PASS` and
//! `PASS_TO_PASS` (JSON strings holding lists, as SWE-bench stores them, or lists;
//! lower-case names are accepted too), `problem_statement`, and optionally `repo`.
//! SWE-bench rows name a GitHub repository, not a folder: the caller says where the
//! checked-out snapshots are, with a [`RepoLayout`]. The `test_patch` is applied by
//! the environment before the tests run.
//!
//! ```no_run
//! use std::path::Path;
//! use cascade_datasets::swe::{load, RepoLayout};
//! let rows = load(Path::new("swe.jsonl"), &RepoLayout::PerInstance("snapshots".into()), false).unwrap();
//! ```

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::LoadError;

/// Where each instance's repository snapshot lives, as written into the row's
/// `repo` (relative to the folder of the file the rows are saved in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoLayout {
    /// `<dir>/<instance_id>`: one snapshot per instance, at its base commit.
    PerInstance(String),
    /// The row's own `repo` field is already a local path.
    FromRow,
    /// Every row uses this one path.
    Fixed(String),
}

/// Reads a SWE-bench JSONL file; the first bad row is an error naming the file and
/// line. Blank lines are skipped; rows are never dropped or reordered.
pub fn load(
    path: &Path,
    layout: &RepoLayout,
    gold_as_response: bool,
) -> Result<Vec<Value>, LoadError> {
    crate::jsonl::convert_file(path, |row, _| convert(row, layout, gold_as_response))
}

/// Converts one SWE-bench instance into an `swe` row.
pub fn convert(
    value: &Value,
    layout: &RepoLayout,
    gold_as_response: bool,
) -> Result<Value, String> {
    let obj = value.as_object().ok_or("row is not a JSON object")?;
    let id = string(obj, "instance_id")?;
    let repo = match layout {
        RepoLayout::PerInstance(dir) => format!("{}/{id}", dir.trim_end_matches('/')),
        RepoLayout::FromRow => string(obj, "repo")?,
        RepoLayout::Fixed(path) => path.clone(),
    };
    let mut row = Map::new();
    row.insert("id".into(), json!(id));
    row.insert("repo".into(), json!(repo));
    row.insert("fail_to_pass".into(), json!(tests(obj, "FAIL_TO_PASS")?));
    row.insert("pass_to_pass".into(), json!(tests(obj, "PASS_TO_PASS")?));
    for field in ["test_patch", "problem_statement"] {
        if let Some(v) = obj.get(field).filter(|v| !v.is_null()) {
            let s = v
                .as_str()
                .ok_or_else(|| format!("`{field}` must be a string"))?;
            row.insert(field.into(), json!(s));
        }
    }
    if gold_as_response {
        row.insert("response".into(), json!(string(obj, "patch")?));
    }
    Ok(Value::Object(row))
}

fn string(obj: &Map<String, Value>, field: &str) -> Result<String, String> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("`{field}` must be a string")),
        None => Err(format!("missing field `{field}`")),
    }
}

/// A test list under its SWE-bench (upper-case) or lower-case name, as a list or a
/// JSON string of one.
fn tests(obj: &Map<String, Value>, field: &str) -> Result<Vec<String>, String> {
    let lower = field.to_lowercase();
    let value = obj
        .get(field)
        .or_else(|| obj.get(&lower))
        .ok_or_else(|| format!("missing field `{field}`"))?;
    let bad = || format!("`{field}` must be a list of test ids or a JSON string of one");
    let parsed;
    let list = match value {
        Value::Array(a) => a,
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s).map_err(|_| bad())?;
            parsed.as_array().ok_or_else(bad)?
        }
        _ => return Err(bad()),
    };
    list.iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or_else(bad))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_swe_bench_rows() {
        let row = json!({
            "instance_id": "astropy__astropy-12907", "repo": "astropy/astropy",
            "patch": "diff --git a/x b/x\n", "test_patch": "diff --git a/t b/t\n",
            "FAIL_TO_PASS": "[\"t.py::test_a\"]", "PASS_TO_PASS": ["t.py::test_b"],
            "problem_statement": "bug", "base_commit": "abc"
        });
        let out = convert(&row, &RepoLayout::PerInstance("snaps/".into()), true).unwrap();
        assert_eq!(out["repo"], json!("snaps/astropy__astropy-12907"));
        assert_eq!(out["fail_to_pass"], json!(["t.py::test_a"]));
        assert_eq!(out["pass_to_pass"], json!(["t.py::test_b"]));
        assert_eq!(out["response"], json!("diff --git a/x b/x\n"));
        assert_eq!(out["id"], json!("astropy__astropy-12907"));
        let bad = json!({"instance_id": "x", "FAIL_TO_PASS": "not json", "PASS_TO_PASS": []});
        assert!(convert(&bad, &RepoLayout::Fixed("r".into()), false)
            .unwrap_err()
            .contains("FAIL_TO_PASS"));
    }

    #[test]
    fn errors_name_file_and_line() {
        let dir = std::env::temp_dir().join(format!("cascade-swe-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.jsonl");
        std::fs::write(
            &path,
            "{\"instance_id\":\"a\",\"FAIL_TO_PASS\":[],\"PASS_TO_PASS\":[]}\n\n{\"instance_id\":3}\n",
        )
        .unwrap();
        let err = load(&path, &RepoLayout::Fixed("r".into()), false).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("rows.jsonl:3: `instance_id` must be a string"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
