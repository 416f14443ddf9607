//! The `tool_call` environment: one assistant turn of function calls, scored against
//! reference calls by BFCL's AST-checker rules (`cascade_verifiers::tool_call`).
//!
//! Rows ([`row`]): function tools in `tools` or NeMo Gym's
//! `responses_create_params.tools`, and the reference in `ground_truth` (BFCL's
//! possible answers), `expected_answers` (Gym xlam_fc) or `expected_action` (Gym
//! single_step_tool_use). The prompt is `responses_create_params.input` or `prompt`,
//! with the tools described in the system message.
//!
//! The calls are read from `response_output` (Responses API output items, set by the
//! Gym server) when it holds `function_call` items, else from the text `response`
//! (Hermes `<tool_call>` JSON or Qwen3-Coder XML; `<think>` is skipped).
//!
//! Reward 1 iff the calls match the reference as a multiset, else 0. `details`:
//! `verdict` (`correct`, `mismatch`, `wrong_count`, `no_call`, `unreadable`),
//! `calls` (per predicted call: `name`, `format`, `matched_to`, `errors`),
//! `unmatched_expected`, `expected` and `predicted` (counts), `source`, `reference`;
//! `error` for a malformed row, `reason` when a size limit is hit.

mod prompt;
pub mod row;

use cascade_verifiers::tool_call::{compare, parse_output_items, parse_text, ParsedCall};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::environment::{ChatMessage, Environment};
use crate::gym::gym_prompt;
use crate::registry::EnvPlugin;
use row::{raw_tools, ToolCallRow};

/// The call format the prompt asks for (the parser reads every format regardless).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStyle {
    /// `<tool_call>{"name": ..., "arguments": ...}</tool_call>` (Qwen, Hermes).
    #[default]
    Hermes,
    /// `<tool_call><function=name><parameter=p>...` (Qwen3-Coder, Nemotron).
    Qwen3Coder,
}

/// Settings of the `tool_call` environment.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ToolCallConfig {
    /// The call format the prompt describes.
    pub call_style: CallStyle,
    /// Text put before the tools section, at the end of the leading system message.
    pub system_prompt: Option<String>,
    /// Leave the tools out of the prompt (when a chat template renders them).
    pub no_tools_in_prompt: bool,
}

/// The `tool_call` environment.
#[derive(Debug, Clone, Default)]
pub struct ToolCallEnv {
    config: ToolCallConfig,
}

impl ToolCallEnv {
    pub fn new(config: ToolCallConfig) -> Self {
        Self { config }
    }
}

/// The row's messages: Gym's `responses_create_params.input`, else `prompt`.
fn row_messages(row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
    match gym_prompt(row)? {
        Some(messages) => Ok(messages),
        None => Ok(vec![ChatMessage::user(row.str_field("prompt")?)]),
    }
}

/// The predicted calls and where they came from.
fn predicted_calls(
    sample: &Sample,
    row: &ToolCallRow,
) -> (&'static str, Result<Vec<ParsedCall>, String>) {
    let items = sample.get("response_output").and_then(Value::as_array);
    let has_calls = |items: &&Vec<Value>| {
        items
            .iter()
            .any(|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
    };
    if let Some(items) = items.filter(has_calls) {
        return (
            "response_output",
            parse_output_items(items).map_err(|e| e.to_string()),
        );
    }
    let text = sample.response().unwrap_or_default();
    (
        "response",
        parse_text(text, &row.tools).map_err(|e| e.to_string()),
    )
}

impl Environment for ToolCallEnv {
    fn name(&self) -> &str {
        "tool_call"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        let messages = row_messages(row)?;
        let mut system = Vec::new();
        system.extend(self.config.system_prompt.clone());
        if !self.config.no_tools_in_prompt {
            system.push(prompt::tools_section(
                raw_tools(row)?,
                self.config.call_style,
            ));
        }
        if system.is_empty() {
            return Ok(messages);
        }
        Ok(prompt::with_system(messages, system.join("\n\n")))
    }

    fn score(&self, sample: &Sample) -> Reward {
        if let Err(e) = sample.validate_common() {
            return Reward::error(e.to_string());
        }
        let row = match ToolCallRow::try_from(sample) {
            Ok(row) => row,
            Err(e) => return Reward::error(e.to_string()),
        };
        let (source, calls) = predicted_calls(sample, &row);
        let base = |r: Reward| {
            r.with("source", source)
                .with("reference", row.reference.field())
                .with("expected", row.expected.len())
        };
        // A text turn cut off while thinking has no final answer: an error, whatever
        // calls its thinking held (and even when none were expected).
        if let ("response", Err(e)) = (source, sample.final_answer()) {
            return base(Reward::error(e.to_string()));
        }
        let calls = match calls {
            Ok(calls) => calls,
            Err(reason) => {
                return base(
                    Reward::new(0.0)
                        .with("verdict", "unreadable")
                        .with("reason", reason),
                )
            }
        };
        let comparison = match compare(&calls, &row.expected, &row.tools) {
            Ok(c) => c,
            Err(e) => return Reward::error(e.to_string()),
        };
        base(Reward::pass_fail(comparison.correct()))
            .with("verdict", comparison.verdict.as_str())
            .with("predicted", calls.len())
            .with("calls", comparison.calls_json())
            .with("unmatched_expected", json!(comparison.unmatched_expected))
    }
}

inventory::submit! {
    EnvPlugin {
        name: "tool_call",
        origin: env!("CARGO_PKG_NAME"),
        description: "single-step function calls (Hermes JSON, Qwen3-Coder XML, Responses items) matched against BFCL-style `ground_truth` by the AST checker's rules",
        make: |config| Ok(Box::new(ToolCallEnv::new(config.parse("tool_call")?))),
    }
}

#[cfg(test)]
mod tests;
