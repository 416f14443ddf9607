//! A call's arguments, checked against its tool's declaration the way a Python
//! `tool(**arguments)` call fails: an unknown argument or a value of the wrong type is
//! an error (reported to the model as the tool's result). Missing arguments are not
//! an error here: like Gym's tools, each tool answers "… not provided" itself.

use serde_json::{Map, Value};

use super::schema::{Kind, ToolSpec};
use crate::sample::type_name;

/// The most bytes of one call's argument text.
pub const MAX_ARGUMENT_BYTES: usize = 64 * 1024;

/// Checked arguments of one call.
#[derive(Debug, Clone, Copy)]
pub struct Args<'a> {
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Args<'a> {
    /// A string argument; `None` when absent, null or empty (Python's falsy `""`,
    /// which every Gym tool treats as not provided).
    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.map
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// An integer argument, or `default` when absent or null.
    pub fn int(&self, key: &str, default: i64) -> i64 {
        self.map
            .and_then(|m| m.get(key))
            .and_then(Value::as_i64)
            .unwrap_or(default)
    }
}

/// Checks `value` against `spec`: an object (or null, meaning no arguments) whose keys
/// are declared parameters, strings where strings are declared, integers where
/// integers are. Null stands for "not given", as Gym's tool route drops `None`s.
pub fn check<'a>(spec: &ToolSpec, value: &'a Value) -> Result<Args<'a>, String> {
    let map = match value {
        Value::Null => return Ok(Args { map: None }),
        Value::Object(map) => map,
        other => {
            return Err(format!(
                "arguments must be a JSON object, found {}",
                type_name(other)
            ))
        }
    };
    for (key, v) in map {
        let Some(kind) = spec.kind(key) else {
            return Err(format!("unexpected argument '{key}'"));
        };
        let fits = match (kind, v) {
            (_, Value::Null) => true,
            (Kind::String, Value::String(s)) => s.len() <= MAX_ARGUMENT_BYTES,
            (Kind::Integer, Value::Number(n)) => n.is_i64(),
            _ => false,
        };
        if !fits {
            let wanted = match kind {
                Kind::String => "a string",
                Kind::Integer => "an integer",
            };
            return Err(format!(
                "argument '{key}' must be {wanted}, found {}",
                type_name(v)
            ));
        }
    }
    Ok(Args { map: Some(map) })
}

/// Parses a call's argument text (a JSON object, as Responses items and Gym's
/// `ground_truth` carry it). Bounded: at most [`MAX_ARGUMENT_BYTES`], and serde_json's
/// nesting limit (128) turns deeply nested input into an error, not a stack overflow.
pub fn parse_text(text: &str) -> Result<Value, String> {
    if text.len() > MAX_ARGUMENT_BYTES {
        return Err(format!(
            "arguments are longer than {MAX_ARGUMENT_BYTES} bytes"
        ));
    }
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text).map_err(|e| format!("arguments are not valid JSON: {e}"))
}
