//! The tool-call form: the answer is one function call, and the document is its
//! arguments (or one argument of them), as Gym's `extract_tool_call_payload`.
//!
//! Calls come from the Responses object's `function_call` items when the sample has
//! them, else from Hermes `<tool_call>{"name": …, "arguments": …}</tool_call>` blocks in
//! the text, read by the `tool_call` verifier's parser (one parser for every
//! environment).

use serde_json::Value;

use super::{ErrorType, Failure};
use crate::final_answer::final_answer;
use crate::tool_call::parse_text;

/// One function call: its name and its `arguments` as given (a JSON string or a value).
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: Value,
}

/// The document carried by the answer's single function call, and where it was found.
pub fn payload(
    answer: &super::Answer,
    tool_name: Option<&str>,
    payload_key: Option<&str>,
) -> Result<(Value, &'static str), Failure> {
    if let Some(error) = &answer.api_error {
        return Err(Failure::new(ErrorType::ApiError, error.clone()));
    }
    let (calls, source) = match &answer.function_calls {
        Some(items) => (items.clone(), "function_call"),
        None => (hermes_calls(&answer.text)?, "tool_call_tag"),
    };
    let call = match calls.as_slice() {
        [] => {
            let message = "no function call in the response";
            return Err(Failure::new(ErrorType::MissingToolCall, message));
        }
        [one] => one,
        many => {
            let names: Vec<&str> = many.iter().map(|c| c.name.as_str()).collect();
            let message = format!(
                "expected exactly one function call, got: {}",
                names.join(", ")
            );
            return Err(Failure::new(ErrorType::MultipleToolCalls, message));
        }
    };
    if let Some(expected) = tool_name.filter(|n| *n != call.name) {
        let message = format!("expected tool '{expected}', got: {}", call.name);
        return Err(Failure::new(ErrorType::WrongToolName, message));
    }
    let arguments = match &call.arguments {
        Value::String(text) => serde_json::from_str(text).map_err(|e| {
            Failure::new(
                ErrorType::ToolArgumentsParseError,
                format!("arguments: {e}"),
            )
        })?,
        Value::Object(_) => call.arguments.clone(),
        _ => {
            let message = "arguments must be an object or a JSON string";
            return Err(Failure::new(ErrorType::ToolArgumentsParseError, message));
        }
    };
    let document = match payload_key {
        None => arguments,
        Some(key) => match arguments {
            Value::Object(mut map) if map.contains_key(key) => map.remove(key).unwrap_or_default(),
            _ => {
                let message = format!("missing tool payload key: {key}");
                return Err(Failure::new(ErrorType::MissingToolPayloadKey, message));
            }
        },
    };
    Ok((document, source))
}

/// The calls of a text answer (thinking excluded), read by the one tool-call parser
/// ([`crate::tool_call::parse_text`]: Hermes blocks, an unclosed last one running to the
/// end, and Qwen3-Coder XML). A block without a name is no call at all, as a serving
/// parser would leave it as text; unreadable arguments are Gym's argument error.
fn hermes_calls(text: &str) -> Result<Vec<FunctionCall>, Failure> {
    let Some(answer) = final_answer(text).text() else {
        return Ok(Vec::new());
    };
    let parsed = parse_text(answer, &[]).map_err(|e| malformed(&e.to_string()))?;
    parsed
        .into_iter()
        .map(|call| {
            let name = call.name.ok_or_else(|| {
                malformed("a <tool_call> block is not a JSON object with a string `name`")
            })?;
            let arguments = call.arguments.map_err(|e| {
                Failure::new(
                    ErrorType::ToolArgumentsParseError,
                    format!("arguments: {e}"),
                )
            })?;
            Ok(FunctionCall {
                name,
                arguments: Value::Object(arguments),
            })
        })
        .collect()
}

fn malformed(message: &str) -> Failure {
    Failure::new(ErrorType::MissingToolCall, message)
}

#[cfg(test)]
mod tests {
    use super::super::Answer;
    use super::*;
    use serde_json::json;

    fn from_text(text: &str, name: Option<&str>, key: Option<&str>) -> Result<Value, Failure> {
        payload(&Answer::text(text), name, key).map(|(v, _)| v)
    }

    #[test]
    fn reads_one_hermes_call_and_unwraps_the_payload() {
        let text = "<think><tool_call>{\"name\": \"draft\", \"arguments\": {}}</tool_call></think>\
                    Sure.\n<tool_call>\n{\"name\": \"save\", \"arguments\": {\"data\": {\"a\": 1}}}\n</tool_call>";
        assert_eq!(
            from_text(text, Some("save"), Some("data")).unwrap(),
            json!({"a": 1})
        );
        assert_eq!(
            from_text(text, None, None).unwrap(),
            json!({"data": {"a": 1}})
        );
        let string_args = r#"<tool_call>{"name": "f", "arguments": "{\"x\": 2}"}</tool_call>"#;
        assert_eq!(
            from_text(string_args, Some("f"), None).unwrap(),
            json!({"x": 2})
        );
        let unclosed = r#"<tool_call>{"name": "f", "parameters": {"x": 3}}"#;
        assert_eq!(from_text(unclosed, None, None).unwrap(), json!({"x": 3}));
    }

    #[test]
    fn each_failure_has_gyms_error_type() {
        let kind = |text: &str, name: Option<&str>, key: Option<&str>| {
            from_text(text, name, key).unwrap_err().error_type
        };
        let call = |name: &str, args: &str| {
            format!("<tool_call>{{\"name\": \"{name}\", \"arguments\": {args}}}</tool_call>")
        };
        assert_eq!(kind("just prose", None, None), ErrorType::MissingToolCall);
        assert_eq!(
            kind("<tool_call>not json</tool_call>", None, None),
            ErrorType::MissingToolCall
        );
        let two = format!("{}{}", call("f", "{}"), call("g", "{}"));
        assert_eq!(kind(&two, None, None), ErrorType::MultipleToolCalls);
        assert_eq!(
            kind(&call("g", "{}"), Some("f"), None),
            ErrorType::WrongToolName
        );
        assert_eq!(
            kind(&call("f", "\"{bad\""), None, None),
            ErrorType::ToolArgumentsParseError
        );
        assert_eq!(
            kind(&call("f", "[1]"), None, None),
            ErrorType::ToolArgumentsParseError
        );
        assert_eq!(
            kind(&call("f", "{\"x\": 1}"), None, Some("data")),
            ErrorType::MissingToolPayloadKey
        );
    }

    #[test]
    fn responses_items_win_over_text() {
        let answer = Answer {
            text: "<tool_call>{\"name\": \"other\", \"arguments\": {}}</tool_call>".into(),
            function_calls: Some(vec![FunctionCall {
                name: "f".into(),
                arguments: json!("{\"data\": [1]}"),
            }]),
            api_error: None,
        };
        assert_eq!(
            payload(&answer, Some("f"), Some("data")).unwrap(),
            (json!([1]), "function_call")
        );
        let failed = Answer {
            api_error: Some("rate limited".into()),
            ..answer
        };
        assert_eq!(
            payload(&failed, None, None).unwrap_err().error_type,
            ErrorType::ApiError
        );
    }
}
