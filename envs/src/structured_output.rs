//! The `structured_output` environment: the answer must be a JSON, YAML, XML, TOML or CSV
//! document (or one function call's arguments) that the row's JSON Schema accepts, made
//! strict as NeMo Gym's `structured_outputs` server does. The checks, the format
//! conversions and the caps are `cascade_verifiers::structured_output`'s.
//!
//! Rows are Gym's, unchanged: `schema_str`, `schema_type`, and for the tool-call form
//! `response_mode: "tool_call"`, `tool_name`, `tool_payload_key`; the prompt is
//! `responses_create_params.input` (a cascade-layout row gives a `prompt` string).
//! cascade adds an optional row flag `strict` (default true). `response` is the model's
//! text, or a Responses API object (its `function_call` items are then the calls).
//!
//! Reward 1 when the document parses and the schema accepts it, else 0. `details`:
//! `error_type` (null, or `no_output`, `parse_error`, `schema_violation`,
//! `invalid_schema`, `too_large`, `missing_tool_call`, `multiple_tool_calls`,
//! `wrong_tool_name`, `tool_arguments_parse_error`, `missing_tool_payload_key`,
//! `api_error`, `invalid_row`), `message`, and on a violation `instance_path` (a JSON
//! pointer) and `schema_path`; also `schema_type`, `strict`, `response_mode`,
//! `extracted_from` and `verdict`. A row that cannot be used (bad fields, a schema that
//! is not JSON or not a schema) also sets `details.error`.

mod row;

use cascade_verifiers::final_answer::final_answer;
use cascade_verifiers::structured_output::{check, ResponseMode, StructuredTask};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::Value;

pub use row::{answer_of, RowError, StructuredOutputRow};

use crate::environment::{ChatMessage, Environment};
use crate::gym::gym_prompt;
use crate::registry::EnvPlugin;

/// Whose word decides strictness.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strictness {
    /// The row's `strict` flag, strict when absent (Gym's behaviour).
    #[default]
    Row,
    /// Always strict, whatever the row says.
    Always,
    /// Never strict: the schema as written.
    Never,
}

/// Settings of the `structured_output` environment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StructuredOutputConfig {
    pub strict: Strictness,
    /// Type XML leaves by the schema (Gym's server setting of the same name).
    pub xml_coerce_types: bool,
    /// An optional system message put before the row's prompt.
    pub system_prompt: Option<String>,
}

impl Default for StructuredOutputConfig {
    fn default() -> Self {
        Self {
            strict: Strictness::Row,
            xml_coerce_types: true,
            system_prompt: None,
        }
    }
}

/// The `structured_output` environment.
#[derive(Debug, Clone, Default)]
pub struct StructuredOutputEnv {
    config: StructuredOutputConfig,
}

impl StructuredOutputEnv {
    pub fn new(config: StructuredOutputConfig) -> Self {
        Self { config }
    }

    fn task(&self, row: StructuredOutputRow) -> StructuredTask {
        let strict = match self.config.strict {
            Strictness::Row => row.strict.unwrap_or(true),
            Strictness::Always => true,
            Strictness::Never => false,
        };
        StructuredTask {
            schema: row.schema,
            schema_type: row.schema_type,
            strict,
            mode: row.mode,
            xml_coerce_types: self.config.xml_coerce_types,
        }
    }
}

impl Environment for StructuredOutputEnv {
    fn name(&self) -> &str {
        "structured_output"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        let mut messages = Vec::new();
        if let Some(system) = &self.config.system_prompt {
            messages.push(ChatMessage::system(system.clone()));
        }
        match gym_prompt(row)? {
            Some(gym) => messages.extend(gym),
            None => messages.push(ChatMessage::user(row.str_field("prompt")?)),
        }
        Ok(messages)
    }

    fn score(&self, sample: &Sample) -> Reward {
        let unusable = |message: String, error_type: &str| {
            Reward::error(message)
                .with("error_type", error_type)
                .with("verdict", error_type)
        };
        if let Err(e) = sample.validate_row() {
            return unusable(e.to_string(), "invalid_row");
        }
        let row = match StructuredOutputRow::try_from(sample) {
            Ok(row) => row,
            Err(e @ RowError::SchemaNotJson(_)) => {
                return unusable(e.to_string(), "invalid_schema")
            }
            Err(e) => return unusable(e.to_string(), "invalid_row"),
        };
        let answer = match answer_of(sample) {
            Ok(answer) => answer,
            Err(e) => return unusable(e.to_string(), "invalid_row"),
        };
        let mode = match row.mode {
            ResponseMode::Text => "text",
            ResponseMode::ToolCall { .. } => "tool_call",
        };
        let mut reward = check(&self.task(row), &answer).with("response_mode", Value::from(mode));
        // Cut off while thinking: no final answer, which every env reports as an error.
        if let Err(why) = final_answer(&answer.text).answer() {
            reward.set("error", why.to_string());
        }
        reward
    }
}

inventory::submit! {
    EnvPlugin {
        name: "structured_output",
        origin: env!("CARGO_PKG_NAME"),
        description: "JSON, YAML, XML, TOML or CSV answers (or a function call's arguments) validated against the row's JSON Schema, made strict as NeMo Gym does",
        make: |config| Ok(Box::new(StructuredOutputEnv::new(config.parse("structured_output")?))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EnvConfig, Registry};
    use serde_json::json;

    fn sample(v: Value) -> Sample {
        Sample::new(v)
    }

    #[test]
    fn prompt_from_gym_rows_and_cascade_rows() {
        let env = StructuredOutputEnv::default();
        let gym = sample(json!({"responses_create_params": {"input": [
            {"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Name?"}]},
            "schema_str": "{}"}));
        let msgs = env.prompt(&gym).unwrap();
        assert_eq!(
            msgs,
            vec![
                ChatMessage::system("Answer in JSON."),
                ChatMessage::user("Name?")
            ]
        );
        let plain = sample(json!({"prompt": "Give JSON.", "schema_str": "{}"}));
        assert_eq!(
            env.prompt(&plain).unwrap(),
            vec![ChatMessage::user("Give JSON.")]
        );
        assert_eq!(
            env.prompt(&sample(json!({"schema_str": "{}"})))
                .unwrap_err(),
            FieldError::Missing("prompt".into())
        );
    }

    /// A Gym structured row without an id, with an `allOf` schema whose branches each
    /// declare properties: an object holding both is valid, as in Gym.
    #[test]
    fn all_of_branches_and_rows_without_ids_are_scored() {
        let schema = json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}]});
        let row = sample(
            json!({"response": "{\"a\": 1, \"b\": \"x\"}", "schema_str": schema.to_string()}),
        );
        let r = StructuredOutputEnv::default().score(&row);
        assert_eq!(r.score, 1.0, "{:?}", r.details);
    }

    #[test]
    fn strictness_from_row_and_config() {
        let row = |strict: Value| {
            sample(
                json!({"id": "a", "response": "{\"a\": 1, \"b\": 2}", "strict": strict,
                "schema_str": "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}}"}),
            )
        };
        let score = |config: &str, strict: Value| {
            let config: StructuredOutputConfig = EnvConfig::from_pairs([config])
                .unwrap()
                .parse("structured_output")
                .unwrap();
            StructuredOutputEnv::new(config).score(&row(strict)).score
        };
        assert_eq!(score("strict=row", Value::Null), 0.0);
        assert_eq!(score("strict=row", json!(false)), 1.0);
        assert_eq!(score("strict=always", json!(false)), 0.0);
        assert_eq!(score("strict=never", json!(true)), 1.0);
    }

    #[test]
    fn thinking_mode_responses() {
        let env = StructuredOutputEnv::default();
        let schema = "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\"]}";
        let score = |response: &str| {
            env.score(&sample(
                json!({"id": "a", "response": response, "schema_str": schema}),
            ))
        };
        assert_eq!(
            score("<think>{\"a\": \"x\"}</think>\n{\"a\": 1}").score,
            1.0
        );
        assert_eq!(
            score("<think>{\"a\": 1}</think>\n{\"a\": \"x\"}").score,
            0.0
        );
        let cut = score("<think>so {\"a\": 1}");
        assert_eq!(cut.score, 0.0);
        assert_eq!(cut.details["error_type"], "no_output");
        assert!(
            cut.error_message().unwrap().contains("truncated"),
            "{cut:?}"
        );
    }

    #[test]
    fn bad_rows_are_errors_with_a_type() {
        let env = StructuredOutputEnv::default();
        let r = env.score(&sample(
            json!({"id": "a", "response": "{}", "schema_str": "{oops"}),
        ));
        assert_eq!(r.details["error_type"], "invalid_schema");
        assert!(r.error_message().unwrap().contains("not JSON"));
        let r = env.score(&sample(json!({"id": "a", "response": "{}"})));
        assert_eq!(r.details["error_type"], "invalid_row");
        assert_eq!(r.error_message(), Some("missing field `schema_str`"));
        let r = env.score(&sample(
            json!({"id": 1.5, "response": "{}", "schema_str": "{}"}),
        ));
        assert_eq!(
            r.error_message(),
            Some("field `id` must be a string, an integer or absent, found a number")
        );
        let r = env.score(&sample(json!([1])));
        assert_eq!(r.details["error_type"], "invalid_row");
    }

    #[test]
    fn tool_call_rows_read_responses_items() {
        let env = StructuredOutputEnv::default();
        let r = env.score(&sample(json!({"id": "a", "schema_str": "{\"type\": \"array\"}",
            "response_mode": "tool_call", "tool_name": "emit", "tool_payload_key": "rows",
            "response": {"output": [{"type": "function_call", "name": "emit", "arguments": "{\"rows\": [1]}"}]}})));
        assert_eq!(r.score, 1.0, "{:?}", r.details);
        assert_eq!(r.details["response_mode"], "tool_call");
        assert_eq!(r.details["extracted_from"], "function_call");
    }

    #[test]
    fn registered_and_config_is_checked() {
        let registry = Registry::discover().unwrap();
        assert!(registry.contains("structured_output"));
        let bad = EnvConfig::from_pairs(["strict=sometimes"]).unwrap();
        assert!(registry.create("structured_output", &bad).is_err());
        let unknown = EnvConfig::from_pairs(["colour=red"]).unwrap();
        assert!(registry.create("structured_output", &unknown).is_err());
        let good = EnvConfig::from_pairs(["xml_coerce_types=false"]).unwrap();
        assert!(registry.create("structured_output", &good).is_ok());
    }
}
