//! The model's calls in a sample, from (in this order of precedence):
//! 1. `response_output`: OpenAI Responses output items (`type: "function_call"` with
//!    `name` and an `arguments` string), as the server's Gym route passes them, when
//!    it holds any function call;
//! 2. `response` as a Responses object with an `output` list (a Gym rollout line);
//! 3. `transcript` or `messages`: a recorded multi-turn conversation, whose assistant
//!    turns carry `tool_calls` (OpenAI chat layout), Responses `function_call` items,
//!    or Hermes blocks in their text (read when `tool_calls` is absent or empty: vLLM
//!    without a tool parser sends `tool_calls: []` and the calls in the text);
//! 4. `response` text with Hermes/Qwen `<tool_call>{"name": …, "arguments": …}</tool_call>`
//!    blocks or Qwen3-Coder `<function=…>` XML.
//!
//! Every call is read by `cascade_verifiers::tool_call` (its `responses` reader and
//! text parser), the one reader of calls for every environment.
//!
//! A block or item that cannot be read becomes an `Err` call: it is reported to the
//! model like a tool error and changes nothing. Collection stops one call past the
//! limit, so a response with a million calls costs no more than one with `limit + 1`.

use cascade_verifiers::tool_call::parse::text_calls;
use cascade_verifiers::tool_call::responses::{self, RawCall};
use cascade_verifiers::tool_call::{ParseError, MAX_CALLS};
use cascade_verifiers::workplace::{Arguments, Call};
use cascade_verifiers::{FieldError, Sample};
use serde_json::Value;

/// One call as read: the call, or why it could not be read.
pub type Read = Result<Call, String>;

/// The calls of a sample and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Predicted {
    pub calls: Vec<Read>,
    pub source: &'static str,
}

/// The predicted calls of `sample`, at most `limit + 1` of them.
pub fn predicted(sample: &Sample, limit: usize) -> Result<Predicted, FieldError> {
    let found = |calls, source| Ok(Predicted { calls, source });
    if let Some(items) = sample.get("response_output") {
        let items = items
            .as_array()
            .ok_or_else(|| FieldError::wrong_type("response_output", "an array", items))?;
        let calls = output_items(items, limit);
        // No function_call items: the calls, if any, are still in the text (a server
        // that did not parse the model's tool-call syntax), so look further.
        if !calls.is_empty() {
            return found(calls, "response_output");
        }
    }
    if let Some(Value::Object(response)) = sample.get("response") {
        let items = response
            .get("output")
            .and_then(Value::as_array)
            .ok_or_else(|| FieldError::Missing("response.output".to_owned()))?;
        return found(output_items(items, limit), "response.output");
    }
    for field in ["transcript", "messages"] {
        if let Some(messages) = sample.get(field) {
            let messages = messages
                .as_array()
                .ok_or_else(|| FieldError::wrong_type(field, "an array", messages))?;
            let mut calls = Vec::new();
            for turn in assistant_turns(messages, limit) {
                calls.extend(turn);
                if calls.len() > limit {
                    break;
                }
            }
            return found(calls, "transcript");
        }
    }
    found(hermes(sample.response()?, limit), "response")
}

/// The function calls among Responses output items.
fn output_items(items: &[Value], limit: usize) -> Vec<Read> {
    responses::function_calls(items)
        .take(limit + 1)
        .map(|raw| read_raw(raw, "function_call"))
        .collect()
}

/// A call read by the shared Responses reader, as the workplace runs it.
fn read_raw(raw: RawCall, field: &str) -> Read {
    let name = raw
        .name
        .ok_or_else(|| FieldError::Missing(format!("{field}.name")).to_string())?;
    let arguments = match raw.arguments {
        None | Some(Value::Null) => Arguments::Json(Value::Null),
        Some(Value::String(text)) => Arguments::Text(text),
        Some(v @ Value::Object(_)) => Arguments::Json(v),
        Some(other) => {
            return Err(FieldError::wrong_type(
                format!("{field}.arguments"),
                "a JSON string or an object",
                &other,
            )
            .to_string())
        }
    };
    Ok(Call { name, arguments })
}

/// The calls of each assistant turn of a conversation, turn by turn. A Responses
/// `function_call` item counts as a turn of its own.
pub fn assistant_turns(messages: &[Value], limit: usize) -> impl Iterator<Item = Vec<Read>> + '_ {
    messages.iter().filter_map(move |m| {
        if m.get("type").and_then(Value::as_str) == Some("function_call") {
            return Some(vec![read_raw(RawCall::from_item(m), "function_call")]);
        }
        if m.get("role").and_then(Value::as_str) != Some("assistant") {
            return None;
        }
        if let Some(calls) = responses::chat_tool_calls(m) {
            return Some(
                calls
                    .into_iter()
                    .map(|c| read_raw(c, "tool_calls[]"))
                    .collect(),
            );
        }
        let text = m.get("content").and_then(Value::as_str).unwrap_or("");
        Some(hermes(text, limit))
    })
}

/// The calls of a model turn's text, read by the shared parser
/// (`cascade_verifiers::tool_call::parse::text_calls`: Hermes `<tool_call>` blocks and
/// Qwen3-Coder XML; nothing inside `<think>`), at most `limit + 1`. A text over the
/// parser's bounds is one unreadable call; more calls than it reads are reported as
/// `MAX_CALLS + 1` unreadable ones, so the max_calls check still names the excess.
pub fn hermes(text: &str, limit: usize) -> Vec<Read> {
    // The final answer only (`cascade_verifiers::final_answer`): a turn cut off while
    // thinking holds no calls.
    let text = cascade_verifiers::final_answer::final_answer(text)
        .text()
        .unwrap_or("");
    match text_calls(text, &[]) {
        Ok(calls) => calls
            .into_iter()
            .take(limit + 1)
            .map(|(_, call)| call.and_then(|raw| read_raw(raw, "tool_call")))
            .collect(),
        Err(e @ ParseError::TooManyCalls) => {
            vec![Err(e.to_string()); (MAX_CALLS + 1).min(limit + 1)]
        }
        Err(e @ ParseError::TooLong { .. }) => vec![Err(e.to_string())],
    }
}
