//! The model's calls in a sample, from (in this order of precedence):
//! 1. `response_output`: OpenAI Responses output items (`type: "function_call"` with
//!    `name` and an `arguments` string), as the server's Gym route passes them, when
//!    it holds any function call;
//! 2. `response` as a Responses object with an `output` list (a Gym rollout line);
//! 3. `transcript` or `messages`: a recorded multi-turn conversation, whose assistant
//!    turns carry `tool_calls` (OpenAI chat layout), Responses `function_call` items,
//!    or Hermes blocks in their text;
//! 4. `response` text with Hermes/Qwen `<tool_call>{"name": …, "arguments": …}</tool_call>`
//!    blocks.
//!
//! A block or item that cannot be read becomes an `Err` call: it is reported to the
//! model like a tool error and changes nothing. Collection stops one call past the
//! limit, so a response with a million calls costs no more than one with `limit + 1`.

use cascade_verifiers::workplace::{Arguments, Call, MAX_ARGUMENT_BYTES};
use cascade_verifiers::{FieldError, Sample};
use serde_json::Value;

use super::row::call;

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
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call"))
        .take(limit + 1)
        .map(|item| call(item, "function_call").map_err(|e| e.to_string()))
        .collect()
}

/// The calls of each assistant turn of a conversation, turn by turn. A Responses
/// `function_call` item counts as a turn of its own.
pub fn assistant_turns(messages: &[Value], limit: usize) -> impl Iterator<Item = Vec<Read>> + '_ {
    messages.iter().filter_map(move |m| {
        if m.get("type").and_then(Value::as_str) == Some("function_call") {
            return Some(vec![call(m, "function_call").map_err(|e| e.to_string())]);
        }
        if m.get("role").and_then(Value::as_str) != Some("assistant") {
            return None;
        }
        if let Some(Value::Array(tool_calls)) = m.get("tool_calls") {
            let calls = tool_calls
                .iter()
                .map(|tc| {
                    call(tc.get("function").unwrap_or(tc), "tool_calls[]")
                        .map_err(|e| e.to_string())
                })
                .collect();
            return Some(calls);
        }
        let text = m.get("content").and_then(Value::as_str).unwrap_or("");
        Some(hermes(text, limit))
    })
}

// To be unified with `cascade_verifiers::tool_call`'s Hermes parser once that lands.
/// The Hermes/Qwen `<tool_call>` blocks of a model turn, at most `limit + 1`. Only the
/// turn's final answer holds calls: text up to the last `</think>` is thinking, and an
/// unclosed `<think>` means the whole turn is thinking. An unclosed `<tool_call>` runs to the end of the text.
pub fn hermes(text: &str, limit: usize) -> Vec<Read> {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    // The final answer only (`cascade_verifiers::final_answer`): a turn cut off while
    // thinking holds no calls.
    let text = cascade_verifiers::final_answer::final_answer(text)
        .text()
        .unwrap_or("");
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        if calls.len() > limit {
            break;
        }
        let body = &rest[start + OPEN.len()..];
        let (inner, next) = match body.find(CLOSE) {
            Some(end) => (&body[..end], &body[end + CLOSE.len()..]),
            None => (body, ""),
        };
        calls.push(block(inner.trim()));
        rest = next;
    }
    calls
}

fn block(text: &str) -> Read {
    if text.len() > 2 * MAX_ARGUMENT_BYTES {
        return Err(format!(
            "the tool call is longer than {} bytes",
            2 * MAX_ARGUMENT_BYTES
        ));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("the tool call is not valid JSON: {e}"))?;
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or("the tool call has no string `name`")?;
    let arguments = match value.get("arguments").or_else(|| value.get("parameters")) {
        None | Some(Value::Null) => Arguments::Json(Value::Null),
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(v) => Arguments::Json(v.clone()),
    };
    Ok(Call {
        name: name.to_owned(),
        arguments,
    })
}
