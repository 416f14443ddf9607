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

use cascade_verifiers::{FieldError, Sample};
use serde_json::{json, Map, Value};

use crate::{LoadError, RowError};

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

/// One `swe` row's task fields: what the `swe` environment reads (through
/// `TryFrom<&Sample>`) and what [`convert`] writes, so the two agree by construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweRow {
    /// The snapshot folder, relative to the rows file's folder.
    pub repo: String,
    pub fail_to_pass: Vec<String>,
    pub pass_to_pass: Vec<String>,
    /// As the row holds it; see [`SweRow::test_patch`].
    pub test_patch: Option<String>,
    pub problem_statement: Option<String>,
}

impl SweRow {
    /// The test patch to apply: none when absent, null or blank.
    pub fn test_patch(&self) -> Option<&str> {
        self.test_patch.as_deref().filter(|p| !p.trim().is_empty())
    }

    /// The fields as a row holds them (without `id` and `response`).
    pub fn to_fields(&self) -> Map<String, Value> {
        let mut row = Map::new();
        row.insert("repo".into(), json!(self.repo));
        row.insert("fail_to_pass".into(), json!(self.fail_to_pass));
        row.insert("pass_to_pass".into(), json!(self.pass_to_pass));
        let optional = [
            ("test_patch", &self.test_patch),
            ("problem_statement", &self.problem_statement),
        ];
        for (field, value) in optional {
            if let Some(text) = value {
                row.insert(field.into(), json!(text));
            }
        }
        row
    }
}

impl TryFrom<&Sample> for SweRow {
    type Error = FieldError;

    fn try_from(sample: &Sample) -> Result<Self, FieldError> {
        let fields = sample
            .fields()
            .ok_or_else(|| FieldError::wrong_type("<line>", "a JSON object", sample.value()))?;
        Ok(Self {
            repo: sample.str_field("repo")?.to_owned(),
            fail_to_pass: test_list(fields, "fail_to_pass")?,
            pass_to_pass: test_list(fields, "pass_to_pass")?,
            test_patch: optional_string(fields, "test_patch")?,
            problem_statement: optional_string(fields, "problem_statement")?,
        })
    }
}

/// Converts one SWE-bench instance into an `swe` row.
pub fn convert(
    value: &Value,
    layout: &RepoLayout,
    gold_as_response: bool,
) -> Result<Value, RowError> {
    let obj = value.as_object().ok_or(RowError::NotObject)?;
    let id = string(obj, "instance_id")?;
    let repo = match layout {
        RepoLayout::PerInstance(dir) => format!("{}/{id}", dir.trim_end_matches('/')),
        RepoLayout::FromRow => string(obj, "repo")?,
        RepoLayout::Fixed(path) => path.clone(),
    };
    let task = SweRow {
        repo,
        fail_to_pass: test_list(obj, "fail_to_pass")?,
        pass_to_pass: test_list(obj, "pass_to_pass")?,
        test_patch: optional_string(obj, "test_patch")?,
        problem_statement: optional_string(obj, "problem_statement")?,
    };
    let mut row = Map::new();
    row.insert("id".into(), json!(id));
    row.extend(task.to_fields());
    if gold_as_response {
        row.insert("response".into(), json!(string(obj, "patch")?));
    }
    Ok(Value::Object(row))
}

fn string(obj: &Map<String, Value>, field: &str) -> Result<String, RowError> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(RowError::invalid(field, "must be a string")),
        None => Err(FieldError::Missing(field.to_owned()).into()),
    }
}

fn optional_string(obj: &Map<String, Value>, field: &str) -> Result<Option<String>, FieldError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(FieldError::wrong_type(field, "a string", other)),
    }
}

/// A list of test ids under cascade's name (`fail_to_pass`) or SWE-bench's
/// upper-case one (`FAIL_TO_PASS`), as a JSON array or a string holding one (as
/// SWE-bench stores them). Errors name the field as the row spells it.
pub fn test_list(fields: &Map<String, Value>, field: &str) -> Result<Vec<String>, FieldError> {
    let upper = field.to_uppercase();
    let (name, value) = match (fields.get(field), fields.get(&upper)) {
        (Some(v), _) => (field, v),
        (None, Some(v)) => (upper.as_str(), v),
        (None, None) => return Err(FieldError::Missing(field.to_owned())),
    };
    let wrong =
        || FieldError::wrong_type(name, "a list of test ids (or a JSON string of one)", value);
    let parsed;
    let list = match value {
        Value::Array(a) => a,
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s).map_err(|_| wrong())?;
            parsed.as_array().ok_or_else(wrong)?
        }
        _ => return Err(wrong()),
    };
    list.iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or_else(wrong))
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
            .to_string()
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
