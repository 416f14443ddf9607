//! One input line: a JSON object with an `id`, the model's `response` and whatever
//! fields its environment needs.
//!
//! The id may be a string, an integer or absent (NeMo Gym rows carry integer ids,
//! `uuid`s or none). A result echoes it as given ([`Sample::id_value`]): the `id`, else
//! Gym's `uuid`, else verl's `extra_info.index`, else the row's 1-based line number in
//! its file (its position in a parquet dataset, or in a batch), which the reader
//! records with [`Sample::at_line`].

use serde_json::{Map, Value};
use thiserror::Error;

use crate::final_answer::Truncation;

/// A field of a sample was missing or had the wrong type.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FieldError {
    #[error("missing field `{0}`")]
    Missing(String),
    #[error("field `{field}` must be {expected}, found {found}")]
    WrongType {
        field: String,
        expected: &'static str,
        found: &'static str,
    },
    /// Present and of a usable type, but a value the environment refuses.
    #[error("field `{field}`: {problem}")]
    Invalid { field: String, problem: String },
}

impl FieldError {
    /// `field` holds a value of the wrong JSON type; `expected` says what it should be.
    pub fn wrong_type(field: impl Into<String>, expected: &'static str, found: &Value) -> Self {
        Self::WrongType {
            field: field.into(),
            expected,
            found: type_name(found),
        }
    }
}

/// Why a sample has no final answer to grade: a bad `response` field, or a response
/// cut off while thinking.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnswerError {
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error(transparent)]
    Truncated(#[from] Truncation),
}

/// One JSONL sample. Holds the raw JSON value so that unknown fields survive and a
/// line that is valid JSON but not an object can still be reported per line.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    value: Value,
    /// The row's 1-based line (or batch position), naming a row without an id.
    line: Option<usize>,
}

impl Sample {
    pub fn new(value: Value) -> Self {
        Self { value, line: None }
    }

    /// `value`, read from 1-based line `line` of its file (or position in its batch).
    pub fn at_line(value: Value, line: usize) -> Self {
        Self {
            value,
            line: Some(line),
        }
    }

    /// The same row with `field` set to `value` (a response added to a dataset row),
    /// keeping its line.
    pub fn with_field(&self, field: &str, value: Value) -> Self {
        let mut copy = self.clone();
        if let Value::Object(map) = &mut copy.value {
            map.insert(field.to_owned(), value);
        }
        copy
    }

    /// The row's line, when its reader recorded one.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// Parses one line of JSONL.
    pub fn from_json_line(line: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(line).map(Self::new)
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The fields, when the line is a JSON object.
    pub fn fields(&self) -> Option<&Map<String, Value>> {
        self.value.as_object()
    }

    /// The sample id, when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.get("id").and_then(Value::as_str)
    }

    /// The id as it should be echoed in the result line: `id` as given, whatever its
    /// type (a bad id is still traceable), else Gym's `uuid`, else SWE-bench's
    /// `instance_id`, else verl's `extra_info.index`, else the line number, else null.
    pub fn id_value(&self) -> Value {
        self.id_fields()
            .find_map(|v| v.filter(|v| !v.is_null()).cloned())
            .or_else(|| self.line.map(Value::from))
            .unwrap_or(Value::Null)
    }

    /// The values that may name the row, in order of precedence: [`ID_FIELDS`], then
    /// verl's `extra_info.index` when it is a string or an integer. verl's own field is
    /// a convenience, not a row's declared id: anything else there (pandas writes an
    /// integer column with gaps as floats) is passed over, never an error.
    fn id_fields(&self) -> impl Iterator<Item = Option<&Value>> {
        let verl = self
            .get("extra_info")
            .and_then(|info| info.get("index"))
            .filter(|v| v.is_string() || v.is_i64() || v.is_u64());
        ID_FIELDS.iter().map(|f| self.get(f)).chain([verl])
    }

    /// The id for messages: [`Sample::id_value`] as text (a string without quotes).
    pub fn id_text(&self) -> String {
        match self.id_value() {
            Value::String(s) => s,
            Value::Null => "(no id)".to_owned(),
            other => other.to_string(),
        }
    }

    /// Checks the ids the row carries: each of `id`, `uuid` and `instance_id` is
    /// absent, null, a string or an integer.
    pub fn validate_id(&self) -> Result<(), FieldError> {
        for field in ID_FIELDS {
            match self.get(field) {
                None | Some(Value::Null | Value::String(_)) => {}
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
                Some(other) => {
                    return Err(FieldError::wrong_type(
                        field,
                        "a string, an integer or absent",
                        other,
                    ))
                }
            }
        }
        Ok(())
    }

    pub fn get(&self, field: &str) -> Option<&Value> {
        self.value.as_object().and_then(|m| m.get(field))
    }

    /// Checks that the line is an object whose id is usable ([`Sample::validate_id`]).
    pub fn validate_row(&self) -> Result<(), FieldError> {
        if !self.value.is_object() {
            return Err(FieldError::wrong_type(
                "<line>",
                "a JSON object",
                &self.value,
            ));
        }
        self.validate_id()
    }

    /// [`Sample::validate_row`], and a string `response`.
    pub fn validate_common(&self) -> Result<(), FieldError> {
        self.validate_row()?;
        self.str_field("response")?;
        Ok(())
    }

    /// The model response.
    pub fn response(&self) -> Result<&str, FieldError> {
        self.str_field("response")
    }

    /// The final answer of the model response (see [`crate::final_answer`]): the text
    /// after the last `</think>`, end tokens cut; an error when `response` is missing or
    /// the response was cut off while thinking. Every environment grades this text.
    pub fn final_answer(&self) -> Result<&str, AnswerError> {
        Ok(crate::final_answer::final_answer(self.response()?).answer()?)
    }

    /// A required string field.
    pub fn str_field(&self, field: &str) -> Result<&str, FieldError> {
        let v = self.require(field)?;
        v.as_str()
            .ok_or_else(|| FieldError::wrong_type(field, "a string", v))
    }

    /// A required array field.
    pub fn array_field(&self, field: &str) -> Result<&Vec<Value>, FieldError> {
        let v = self.require(field)?;
        v.as_array()
            .ok_or_else(|| FieldError::wrong_type(field, "an array", v))
    }

    /// A required object field.
    pub fn object_field(&self, field: &str) -> Result<&Map<String, Value>, FieldError> {
        let v = self.require(field)?;
        v.as_object()
            .ok_or_else(|| FieldError::wrong_type(field, "an object", v))
    }

    /// An optional number field; `Ok(None)` when absent or null.
    pub fn opt_f64_field(&self, field: &str) -> Result<Option<f64>, FieldError> {
        match self.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| FieldError::wrong_type(field, "a number", v)),
        }
    }

    /// A required field of any type.
    pub fn require(&self, field: &str) -> Result<&Value, FieldError> {
        self.get(field)
            .ok_or_else(|| FieldError::Missing(field.to_owned()))
    }
}

/// The fields that name a row, in order of precedence: cascade's `id`, Gym's `uuid`.
/// The fields that identify a row, first found wins: ours and Gym's `id`, Gym's mcqa
/// `uuid`, SWE-bench's (and SWE-Gym's, SWE-RL's) `instance_id`.
const ID_FIELDS: [&str; 3] = ["id", "uuid", "instance_id"];

/// The JSON type of a value, for error messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_strings_integers_uuids_or_line_numbers() {
        let at = |line: &str| Sample::at_line(serde_json::from_str(line).unwrap(), 7);
        let cases = [
            (
                r#"{"id": "a", "uuid": "u", "response": "x"}"#,
                serde_json::json!("a"),
            ),
            (r#"{"id": 3, "response": "x"}"#, serde_json::json!(3)),
            (
                r#"{"uuid": "3c26", "response": "x"}"#,
                serde_json::json!("3c26"),
            ),
            (
                r#"{"instance_id": "astropy__astropy-12907", "response": "x"}"#,
                serde_json::json!("astropy__astropy-12907"),
            ),
            (r#"{"id": null, "response": "x"}"#, serde_json::json!(7)),
            (r#"{"response": "x"}"#, serde_json::json!(7)),
            (
                r#"{"extra_info": {"index": 4, "split": "train"}, "response": "x"}"#,
                serde_json::json!(4),
            ),
            (
                r#"{"uuid": "u", "extra_info": {"index": 4}, "response": "x"}"#,
                serde_json::json!("u"),
            ),
            (
                r#"{"extra_info": {"index": null}, "response": "x"}"#,
                serde_json::json!(7),
            ),
            (
                r#"{"extra_info": {"index": 2.0}, "response": "x"}"#,
                serde_json::json!(7),
            ),
        ];
        for (line, id) in cases {
            let s = at(line);
            assert_eq!(s.validate_common(), Ok(()), "{line}");
            assert_eq!(s.id_value(), id, "{line}");
        }
        assert_eq!(at(r#"{"response": "x"}"#).id_text(), "7");
        assert_eq!(Sample::new(serde_json::json!({})).id_value(), Value::Null);
        // A row and the same row with a response keep the line that names them.
        let row = at("{}").with_field("response", "r".into());
        assert_eq!(
            (row.id_value(), row.response()),
            (serde_json::json!(7), Ok("r"))
        );
    }

    #[test]
    fn reports_missing_and_wrong_fields() {
        let s = Sample::from_json_line(r#"{"id": 3.5, "response": "x"}"#).unwrap();
        assert_eq!(
            s.validate_common().unwrap_err().to_string(),
            "field `id` must be a string, an integer or absent, found a number"
        );
        let s = Sample::from_json_line(r#"{"uuid": [], "response": "x"}"#).unwrap();
        assert!(s.validate_common().is_err());
        assert_eq!(s.id_value(), serde_json::json!([]));
        let s = Sample::from_json_line(r#"{"id": "a"}"#).unwrap();
        assert_eq!(
            s.validate_common().unwrap_err(),
            FieldError::Missing("response".into())
        );
        let s = Sample::from_json_line("[1]").unwrap();
        assert!(s.validate_common().is_err());
    }
}
