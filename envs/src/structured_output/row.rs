//! A `structured_output` row's task fields (Gym's names), read and checked, and the
//! model's answer as text or as a Responses API object.

use cascade_verifiers::structured_output::{Answer, FunctionCall, ResponseMode, SchemaType};
use cascade_verifiers::tool_call::responses;
use cascade_verifiers::{FieldError, Sample};
use serde_json::{Map, Value};
use thiserror::Error;

/// What is wrong with a row.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RowError {
    #[error(transparent)]
    Field(#[from] FieldError),
    /// `schema_str` is a string but not JSON: Gym's `schema_error`.
    #[error("`schema_str` is not JSON: {0}")]
    SchemaNotJson(String),
}

/// The task of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutputRow {
    /// `schema_str`, parsed (a string of JSON, or the schema itself).
    pub schema: Value,
    /// `schema_type`; Gym's default is `json`.
    pub schema_type: SchemaType,
    /// `strict`: cascade's own optional flag (Gym always strictifies); `None` = strict.
    pub strict: Option<bool>,
    /// `response_mode` (`text`, the default, or `tool_call`) with `tool_name` and
    /// `tool_payload_key`.
    pub mode: ResponseMode,
}

impl TryFrom<&Sample> for StructuredOutputRow {
    type Error = RowError;

    fn try_from(row: &Sample) -> Result<Self, RowError> {
        let schema = match row.require("schema_str")? {
            Value::String(text) => {
                serde_json::from_str(text).map_err(|e| RowError::SchemaNotJson(e.to_string()))?
            }
            other @ (Value::Object(_) | Value::Bool(_)) => other.clone(),
            other => {
                return Err(FieldError::wrong_type(
                    "schema_str",
                    "a string of JSON or an object",
                    other,
                )
                .into())
            }
        };
        let schema_type = match row.get("schema_type") {
            None | Some(Value::Null) => SchemaType::Json,
            Some(v) => v.as_str().and_then(SchemaType::parse).ok_or_else(|| {
                FieldError::wrong_type(
                    "schema_type",
                    "one of \"json\", \"yaml\", \"xml\", \"toml\", \"csv\"",
                    v,
                )
            })?,
        };
        let strict = match row.get("strict") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => return Err(FieldError::wrong_type("strict", "a boolean", other).into()),
        };
        let mode = match opt_str(row, "response_mode")? {
            None | Some("text") => ResponseMode::Text,
            Some("tool_call") => ResponseMode::ToolCall {
                tool_name: opt_str(row, "tool_name")?.map(str::to_owned),
                payload_key: opt_str(row, "tool_payload_key")?.map(str::to_owned),
            },
            Some(_) => {
                let v = row.get("response_mode").unwrap_or(&Value::Null);
                return Err(FieldError::wrong_type(
                    "response_mode",
                    "\"text\" or \"tool_call\"",
                    v,
                )
                .into());
            }
        };
        Ok(Self {
            schema,
            schema_type,
            strict,
            mode,
        })
    }
}

/// The model's answer: `response` as text, or as a Responses API object (Gym's
/// `response`), whose message `output_text` parts are the text (joined, as Gym does) and
/// whose `function_call` items are the calls.
/// Through the server's Gym route the Responses object arrives split: `response` is the
/// last output text and `response_output` the output items. When the items hold
/// function calls they are the answer, as they are for Gym; otherwise the calls, if
/// any, are still in the text (a server that did not parse the model's tool-call
/// syntax), so the text is read.
pub fn answer_of(sample: &Sample) -> Result<Answer, FieldError> {
    if let Some(items) = sample.get("response_output") {
        let list = items
            .as_array()
            .ok_or_else(|| FieldError::wrong_type("response_output", "an array", items))?;
        if responses::has_function_calls(list) {
            let mut response = Map::new();
            response.insert("output".into(), items.clone());
            return Ok(responses_answer(&response));
        }
    }
    match sample.require("response")? {
        Value::String(text) => Ok(Answer::text(text.as_str())),
        Value::Object(response) => Ok(responses_answer(response)),
        other => Err(FieldError::wrong_type(
            "response",
            "a string or a Responses API object",
            other,
        )),
    }
}

fn responses_answer(response: &Map<String, Value>) -> Answer {
    let items = response.get("output").and_then(Value::as_array);
    let items = items.map_or(&[][..], Vec::as_slice);
    let text = responses::all_output_text(items);
    let calls = responses::function_calls(items)
        .map(|call| FunctionCall {
            name: call.name.unwrap_or_default(),
            arguments: call.arguments.unwrap_or(Value::Null),
        })
        .collect();
    let api_error = response
        .get("error")
        .filter(|e| !e.is_null())
        .map(|e| e.to_string());
    Answer {
        text,
        function_calls: Some(calls),
        api_error,
    }
}

fn opt_str<'a>(row: &'a Sample, field: &str) -> Result<Option<&'a str>, FieldError> {
    match row.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(FieldError::wrong_type(field, "a string", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(v: Value) -> Result<StructuredOutputRow, RowError> {
        StructuredOutputRow::try_from(&Sample::new(v))
    }

    #[test]
    fn reads_gym_fields_with_defaults() {
        let r = row(json!({"schema_str": "{\"type\": \"object\"}"})).unwrap();
        assert_eq!(r.schema, json!({"type": "object"}));
        assert_eq!(
            (r.schema_type, r.strict, r.mode),
            (SchemaType::Json, None, ResponseMode::Text)
        );
        let r = row(
            json!({"schema_str": {"type": "array"}, "schema_type": "YAML", "strict": false,
            "response_mode": "tool_call", "tool_name": "f", "tool_payload_key": null}),
        )
        .unwrap();
        assert_eq!(r.schema_type, SchemaType::Yaml);
        assert_eq!(r.strict, Some(false));
        assert_eq!(
            r.mode,
            ResponseMode::ToolCall {
                tool_name: Some("f".into()),
                payload_key: None
            }
        );
    }

    #[test]
    fn names_the_bad_field() {
        let cases = [
            (json!({}), "missing field `schema_str`"),
            (json!({"schema_str": 3}), "field `schema_str` must be a string of JSON or an object, found a number"),
            (json!({"schema_str": "{", "schema_type": "json"}), "`schema_str` is not JSON: EOF while parsing an object at line 1 column 1"),
            (json!({"schema_str": "{}", "schema_type": "ini"}), "field `schema_type` must be one of \"json\", \"yaml\", \"xml\", \"toml\", \"csv\", found a string"),
            (json!({"schema_str": "{}", "strict": "yes"}), "field `strict` must be a boolean, found a string"),
            (json!({"schema_str": "{}", "response_mode": "audio"}), "field `response_mode` must be \"text\" or \"tool_call\", found a string"),
            (json!({"schema_str": "{}", "response_mode": "tool_call", "tool_name": 1}), "field `tool_name` must be a string, found a number"),
        ];
        for (v, message) in cases {
            assert_eq!(row(v).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn reads_the_servers_split_responses_object() {
        let sample = Sample::new(json!({"response": "ignored text", "response_output": [
            {"type": "function_call", "name": "save", "arguments": "{\"a\": 1}"}
        ]}));
        let answer = answer_of(&sample).unwrap();
        assert_eq!(answer.function_calls.unwrap()[0].name, "save");
        let bad = Sample::new(json!({"response": "x", "response_output": {}}));
        assert!(answer_of(&bad).is_err());
    }

    #[test]
    fn reads_a_responses_object() {
        let sample = Sample::new(json!({"response": {"error": null, "output": [
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "{\"a\":"}, {"type": "output_text", "text": "1}"}]},
            {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}
        ]}}));
        let answer = answer_of(&sample).unwrap();
        assert_eq!(answer.text, "{\"a\":1}");
        assert_eq!(answer.function_calls.unwrap()[0].name, "f");
        assert_eq!(answer.api_error, None);
        assert!(answer_of(&Sample::new(json!({"response": 1}))).is_err());
    }
}
