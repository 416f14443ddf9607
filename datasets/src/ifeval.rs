//! Loader for IFEval's public `input_data.jsonl` layout (`key`, `prompt`,
//! `instruction_id_list`, `kwargs`), also as exported by Hugging Face
//! (`google/IFEval`) and IFBench, whose kwargs objects carry every argument name,
//! mostly null. Rows become `ifeval` environment rows: `id` (the key as a string),
//! `prompt`, `instruction_id_list` and `kwargs` with nulls dropped. A `response`
//! field, when present (as in `input_response_data`), is kept.

use std::path::Path;

use cascade_verifiers::{FieldError, Sample};
use serde_json::{Map, Value};

use crate::{LoadError, RowError};

/// An `ifeval` row's task fields, as the environment reads them: one kwargs object
/// (or null) per instruction id. A row without `kwargs` has no arguments for any id.
#[derive(Debug, Clone, PartialEq)]
pub struct IfevalRow {
    pub instruction_ids: Vec<Value>,
    pub kwargs: Vec<Value>,
}

impl TryFrom<&Sample> for IfevalRow {
    type Error = FieldError;

    fn try_from(sample: &Sample) -> Result<Self, FieldError> {
        let instruction_ids = sample.array_field("instruction_id_list")?.clone();
        let kwargs = match sample.get("kwargs") {
            None | Some(Value::Null) => vec![Value::Null; instruction_ids.len()],
            Some(_) => sample.array_field("kwargs")?.clone(),
        };
        Ok(Self {
            instruction_ids,
            kwargs,
        })
    }
}

/// Converts one parsed row. `file` and `line` only label errors.
pub fn convert_row(row: &Value, file: &str, line: usize) -> Result<Value, LoadError> {
    convert(row).map_err(|source| LoadError::Row {
        file: file.to_owned(),
        line,
        source,
    })
}

fn convert(row: &Value) -> Result<Value, RowError> {
    let obj = row.as_object().ok_or(RowError::NotObject)?;
    let id = match obj.get("id").or_else(|| obj.get("key")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err(RowError::absent("key", "(or `id`): a number or string")),
    };
    let prompt = obj
        .get("prompt")
        .and_then(Value::as_str)
        .ok_or_else(|| RowError::absent("prompt", "string"))?;
    let ids = obj
        .get("instruction_id_list")
        .and_then(Value::as_array)
        .ok_or_else(|| RowError::absent("instruction_id_list", "array"))?;
    if let Some(bad) = ids.iter().find(|v| !v.is_string()) {
        let problem = format!("holds a non-string: {bad}");
        return Err(RowError::invalid("instruction_id_list", problem));
    }
    let kwargs = match obj.get("kwargs") {
        None | Some(Value::Null) => vec![Value::Object(Map::new()); ids.len()],
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, kw)| match kw {
                Value::Null => Ok(Value::Object(Map::new())),
                Value::Object(m) => Ok(Value::Object(
                    m.iter()
                        .filter(|(_, v)| !v.is_null())
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )),
                other => Err(RowError::invalid(
                    format!("kwargs[{i}]"),
                    format!("must be an object, found {other}"),
                )),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            let problem = format!("must be an array, found {other}");
            return Err(RowError::invalid("kwargs", problem));
        }
    };
    if kwargs.len() != ids.len() {
        return Err(RowError::Unpaired {
            left: ids.len(),
            left_name: "instruction ids".into(),
            right: kwargs.len(),
            right_name: "kwargs entries".into(),
        });
    }
    let mut out = Map::new();
    out.insert("id".into(), Value::String(id));
    out.insert("prompt".into(), Value::String(prompt.to_owned()));
    out.insert("instruction_id_list".into(), Value::Array(ids.clone()));
    out.insert("kwargs".into(), Value::Array(kwargs));
    if let Some(response) = obj.get("response") {
        out.insert("response".into(), response.clone());
    }
    let sample = Sample::new(Value::Object(out));
    IfevalRow::try_from(&sample)?;
    Ok(sample.value().clone())
}

/// Converts a whole JSONL text; blank lines are skipped, nothing else is dropped.
pub fn parse(text: &str, file: &str) -> Result<Vec<Value>, LoadError> {
    crate::jsonl::lines(text.as_bytes(), file)
        .map(|row| {
            let row = row?;
            convert_row(&row.value, file, row.line)
        })
        .collect()
}

/// Attaches responses from IFEval's `input_response_data` layout (one
/// `{"prompt", "response"}` object per line, matched to rows by prompt, as
/// IFEval's `evaluation_main` does). A row whose prompt has no response is an error
/// naming the row's id.
pub fn attach_responses(
    rows: Vec<Value>,
    responses: &str,
    file: &str,
) -> Result<Vec<Value>, LoadError> {
    let mut by_prompt = std::collections::HashMap::new();
    for row in crate::jsonl::lines(responses.as_bytes(), file) {
        let row = row?;
        let prompt = row.value.get("prompt").and_then(Value::as_str);
        let response = row.value.get("response").and_then(Value::as_str);
        match (prompt, response) {
            (Some(p), Some(r)) => {
                by_prompt.insert(p.to_owned(), r.to_owned());
            }
            _ => {
                let missing = if prompt.is_none() {
                    "prompt"
                } else {
                    "response"
                };
                return Err(LoadError::Row {
                    file: file.to_owned(),
                    line: row.line,
                    source: RowError::absent(missing, "string"),
                });
            }
        }
    }
    rows.into_iter()
        .map(|mut row| {
            let prompt = row
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let Some(response) = by_prompt.get(prompt) else {
                let id = row.get("id").cloned().unwrap_or(Value::Null);
                return Err(LoadError::NoResponse {
                    file: file.to_owned(),
                    id: id.to_string(),
                });
            };
            if let Some(obj) = row.as_object_mut() {
                obj.insert("response".into(), Value::String(response.clone()));
            }
            Ok(row)
        })
        .collect()
}

/// Reads and converts an IFEval `input_data.jsonl` file.
pub fn load(path: &Path) -> Result<Vec<Value>, LoadError> {
    let file = path.display().to_string();
    crate::jsonl::lines(crate::jsonl::open(path)?, &file)
        .map(|row| {
            let row = row?;
            convert_row(&row.value, &file, row.line)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_google_and_hf_rows() {
        let text = concat!(
            r#"{"key": 1000, "prompt": "Write.", "instruction_id_list": ["punctuation:no_comma", "length_constraints:number_words"], "kwargs": [{}, {"num_words": 300, "relation": "less than"}]}"#,
            "\n\n",
            r#"{"key": 1001, "prompt": "P", "instruction_id_list": ["detectable_format:title"], "kwargs": [{"num_words": null, "relation": null, "keywords": null}], "response": "<<t>>"}"#,
        );
        let rows = parse(text, "input_data.jsonl").unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["id"], json!("1000"));
        assert_eq!(
            rows[0]["kwargs"][1],
            json!({"num_words": 300, "relation": "less than"})
        );
        assert_eq!(rows[1]["kwargs"], json!([{}]));
        assert_eq!(rows[1]["response"], json!("<<t>>"));
    }

    #[test]
    fn attaches_responses_by_prompt() {
        let rows = parse(
            r#"{"key": 7, "prompt": "Say hi.", "instruction_id_list": [], "kwargs": []}"#,
            "in.jsonl",
        )
        .unwrap();
        let with = attach_responses(
            rows.clone(),
            r#"{"prompt": "Say hi.", "response": "hi"}"#,
            "r.jsonl",
        )
        .unwrap();
        assert_eq!(with[0]["response"], json!("hi"));
        let err = attach_responses(rows, r#"{"prompt": "Other", "response": "x"}"#, "r.jsonl")
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("no response for the prompt of row \"7\""),
            "{err}"
        );
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let err = parse("{\"key\": 1, \"prompt\": \"p\"}", "x.jsonl").unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.jsonl:1: missing `instruction_id_list` array"
        );
        let err = parse(
            "{\"key\": 1, \"prompt\": \"p\", \"instruction_id_list\": [\"a\"], \"kwargs\": []}",
            "x.jsonl",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "x.jsonl:1: 1 instruction ids but 0 kwargs entries"
        );
    }
}
