//! The calls in a model's turn, in the formats Cascade-style models emit:
//!
//! - Hermes / Qwen: `<tool_call>{"name": ..., "arguments": ...}</tool_call>`, any
//!   number of them; `arguments` an object or a JSON string holding one (`parameters`
//!   is read as its alias). An unclosed last block runs to the end of the text.
//! - Qwen3-Coder XML: `<function=name><parameter=p>value</parameter></function>`, bare
//!   or inside `<tool_call>`. Values are typed by the tool's JSON Schema as vLLM's
//!   `qwen3coder` parser does: `null` (any case) is null; strings stay strings; integer
//!   and number parameters are parsed (a whole number becomes an int), booleans are
//!   `true`/`false` (any case); other types are parsed as JSON; whatever fails to parse
//!   stays the string, and so fails the type check. One leading and one trailing
//!   newline of a value are dropped.
//! - OpenAI Responses `function_call` output items (`name`, `arguments` as a JSON
//!   string), when the response came through the server.
//!
//! `<think>` blocks are never read for calls: text up to the last `</think>` is
//! reasoning, and so is everything after an unclosed `<think>`.

use serde_json::{Map, Number, Value};
use thiserror::Error;

use super::responses::{function_calls, RawCall};
use super::schema::{FunctionTool, ParamType};
use super::{MAX_CALLS, MAX_RESPONSE_BYTES};

/// Where a call came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallFormat {
    Hermes,
    Qwen3CoderXml,
    ResponsesItem,
}

impl CallFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hermes => "hermes",
            Self::Qwen3CoderXml => "qwen3_coder_xml",
            Self::ResponsesItem => "function_call_item",
        }
    }
}

/// One call as the model wrote it. A call that cannot be read (invalid JSON, no
/// name) is kept, so that it counts as a call and its fault is reported.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedCall {
    pub format: CallFormat,
    pub name: Option<String>,
    pub arguments: Result<Map<String, Value>, String>,
}

/// The turn as a whole cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    #[error("the response is {bytes} bytes, over the limit of {MAX_RESPONSE_BYTES}")]
    TooLong { bytes: usize },
    #[error("the response holds more than {MAX_CALLS} tool calls")]
    TooManyCalls,
}

/// The text outside reasoning: the final answer ([`crate::final_answer`]); empty when
/// the turn was cut off while thinking.
pub fn visible_text(text: &str) -> &str {
    crate::final_answer::final_answer(text).text().unwrap_or("")
}

/// The calls in a text response. `tools` types Qwen3-Coder parameter values.
pub fn parse_text(text: &str, tools: &[FunctionTool]) -> Result<Vec<ParsedCall>, ParseError> {
    Ok(text_calls(text, tools)?
        .into_iter()
        .map(|(format, call)| match call {
            Ok(raw) => ParsedCall::from_raw(raw, format),
            Err(message) => ParsedCall {
                format,
                name: None,
                arguments: Err(message),
            },
        })
        .collect())
}

/// One call read from text, its arguments as written, or why it cannot be read.
pub type TextCall = (CallFormat, Result<RawCall, String>);

/// The calls in a text response, their arguments as written (Hermes) or typed by
/// `tools` (Qwen3-Coder XML): for environments that type arguments their own way.
pub fn text_calls(text: &str, tools: &[FunctionTool]) -> Result<Vec<TextCall>, ParseError> {
    if text.len() > MAX_RESPONSE_BYTES {
        return Err(ParseError::TooLong { bytes: text.len() });
    }
    let text = visible_text(text);
    let blocks = tool_call_blocks(text);
    let mut calls = Vec::new();
    if blocks.is_empty() {
        xml_calls(text, tools, &mut calls)?;
    }
    for block in blocks {
        let block = block.trim();
        if block.starts_with("<function=") {
            xml_calls(block, tools, &mut calls)?;
        } else {
            push(&mut calls, (CallFormat::Hermes, hermes_call(block)))?;
        }
    }
    Ok(calls)
}

/// The `function_call` items of a Responses API `output`; other items are skipped.
pub fn parse_output_items(items: &[Value]) -> Result<Vec<ParsedCall>, ParseError> {
    let mut calls = Vec::new();
    for call in function_calls(items) {
        push(
            &mut calls,
            ParsedCall::from_raw(call, CallFormat::ResponsesItem),
        )?;
    }
    Ok(calls)
}

impl ParsedCall {
    /// A call read by [`super::responses`], its arguments checked to be an object.
    pub fn from_raw(call: RawCall, format: CallFormat) -> Self {
        let arguments = match &call.arguments {
            None => Err("the call has no `arguments`".to_owned()),
            Some(args) => arguments_object(args),
        };
        Self {
            format,
            name: call.name,
            arguments,
        }
    }
}

fn push<T>(calls: &mut Vec<T>, call: T) -> Result<(), ParseError> {
    if calls.len() >= MAX_CALLS {
        return Err(ParseError::TooManyCalls);
    }
    calls.push(call);
    Ok(())
}

/// The bodies of `<tool_call>` blocks, in order.
fn tool_call_blocks(text: &str) -> Vec<&str> {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let body = &rest[start + OPEN.len()..];
        match body.find(CLOSE) {
            Some(end) => {
                blocks.push(&body[..end]);
                rest = &body[end + CLOSE.len()..];
            }
            None => {
                blocks.push(body);
                break;
            }
        }
    }
    blocks
}

/// One `<tool_call>` block: a JSON object with a string `name`; absent or null
/// arguments are no arguments.
fn hermes_call(block: &str) -> Result<RawCall, String> {
    let value: Value =
        serde_json::from_str(block).map_err(|e| format!("invalid JSON in <tool_call>: {e}"))?;
    if !value.is_object() {
        return Err("a <tool_call> must hold a JSON object".to_owned());
    }
    let mut call = RawCall::from_item(&value);
    if call.name.is_none() {
        return Err("a <tool_call> needs a string `name`".to_owned());
    }
    if call.arguments.as_ref().is_none_or(Value::is_null) {
        call.arguments = Some(Value::Object(Map::new()));
    }
    Ok(call)
}

/// Arguments given as an object, or as a JSON string holding an object.
fn arguments_object(args: &Value) -> Result<Map<String, Value>, String> {
    let decoded;
    let args = match args {
        Value::String(text) => {
            decoded = serde_json::from_str::<Value>(text)
                .map_err(|e| format!("the arguments string is not valid JSON: {e}"))?;
            &decoded
        }
        other => other,
    };
    match args {
        Value::Object(map) => Ok(map.clone()),
        _ => Err("the arguments must be a JSON object".to_owned()),
    }
}

/// Every `<function=...>` block of `text`.
fn xml_calls(
    text: &str,
    tools: &[FunctionTool],
    calls: &mut Vec<TextCall>,
) -> Result<(), ParseError> {
    const OPEN: &str = "<function=";
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let end = first_of(after, "</function>", OPEN);
        push(
            calls,
            (CallFormat::Qwen3CoderXml, xml_call(&after[..end], tools)),
        )?;
        rest = &after[end..];
    }
    Ok(())
}

/// One function block, after `<function=`: `name>` then the parameters.
fn xml_call(block: &str, tools: &[FunctionTool]) -> Result<RawCall, String> {
    let (name, body) = block.split_once('>').unwrap_or((block, ""));
    let name = name.trim();
    if name.is_empty() {
        return Err("a <function=...> block without a name".to_owned());
    }
    let tool = tools.iter().find(|t| t.name == name);
    let mut arguments = Map::new();
    for (param, raw) in xml_params(body) {
        let kind = tool.and_then(|t| t.param(param)).map(|s| s.kind);
        arguments.insert(param.to_owned(), typed_value(raw, kind));
    }
    Ok(RawCall {
        name: Some(name.to_owned()),
        arguments: Some(Value::Object(arguments)),
    })
}

/// `(name, raw value)` of each `<parameter=name>value</parameter>`; an unclosed one
/// runs to the next parameter or the end of the function.
fn xml_params(body: &str) -> Vec<(&str, &str)> {
    const OPEN: &str = "<parameter=";
    let mut params = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find(OPEN) {
        let after = &rest[start + OPEN.len()..];
        let Some((name, tail)) = after.split_once('>') else {
            break;
        };
        let end = first_of(tail, "</parameter>", OPEN);
        let value = &tail[..end];
        let value = value.strip_prefix('\n').unwrap_or(value);
        let value = value.strip_suffix('\n').unwrap_or(value);
        params.push((name.trim(), value));
        rest = &tail[end..];
    }
    params
}

/// Where the element ends: at its closing tag or the next opening one, whichever
/// comes first, else at the end of the text.
fn first_of(text: &str, close: &str, open: &str) -> usize {
    [text.find(close), text.find(open)]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(text.len())
}

/// A parameter's text typed by its declared type (`None`: not declared, kept as text).
fn typed_value(raw: &str, kind: Option<ParamType>) -> Value {
    let text = || Value::String(raw.to_owned());
    if raw.eq_ignore_ascii_case("null") {
        return Value::Null;
    }
    let Some(kind) = kind else {
        return text();
    };
    let trimmed = raw.trim();
    match kind {
        ParamType::String | ParamType::Any => text(),
        ParamType::Integer => trimmed.parse::<i64>().map_or_else(|_| text(), Value::from),
        ParamType::Float => number(trimmed).unwrap_or_else(text),
        ParamType::Boolean => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => text(),
        },
        ParamType::Array | ParamType::Tuple | ParamType::Dict | ParamType::Untyped => {
            serde_json::from_str(trimmed).unwrap_or_else(|_| text())
        }
    }
}

/// A number parameter: a whole number becomes an int, as vLLM's parser does.
fn number(text: &str) -> Option<Value> {
    let f: f64 = text.parse().ok()?;
    if !f.is_finite() {
        return None;
    }
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Some(Value::from(f as i64));
    }
    Number::from_f64(f).map(Value::Number)
}
