//! One input line: a JSON object with an `id`, the model's `response` and whatever
//! fields its environment needs.

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
}

impl Sample {
    pub fn new(value: Value) -> Self {
        Self { value }
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

    /// The sample id, when present and a string.
    pub fn id(&self) -> Option<&str> {
        self.get("id").and_then(Value::as_str)
    }

    /// The id as it should be echoed in the result line: the original value, whatever
    /// its type, so a bad id is still traceable.
    pub fn id_value(&self) -> Value {
        self.get("id").cloned().unwrap_or(Value::Null)
    }

    pub fn get(&self, field: &str) -> Option<&Value> {
        self.value.as_object().and_then(|m| m.get(field))
    }

    /// Checks that the line is an object with a string `id` and a string `response`.
    pub fn validate_common(&self) -> Result<(), FieldError> {
        if !self.value.is_object() {
            return Err(FieldError::wrong_type(
                "<line>",
                "a JSON object",
                &self.value,
            ));
        }
        self.str_field("id")?;
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
    fn reports_missing_and_wrong_fields() {
        let s = Sample::from_json_line(r#"{"id": 3, "response": "x"}"#).unwrap();
        assert_eq!(
            s.validate_common().unwrap_err().to_string(),
            "field `id` must be a string, found a number"
        );
        let s = Sample::from_json_line(r#"{"id": "a"}"#).unwrap();
        assert_eq!(
            s.validate_common().unwrap_err(),
            FieldError::Missing("response".into())
        );
        let s = Sample::from_json_line("[1]").unwrap();
        assert!(s.validate_common().is_err());
    }
}
