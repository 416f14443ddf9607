//! The one reader of OpenAI Responses API output items (NeMo Gym's `response.output`,
//! carried in a sample as `response_output`) and of chat-layout `tool_calls`: the text
//! an environment scores and the function calls, as written, for every environment
//! (tool calling, structured output, workplace) and for the server's Gym route.
//!
//! A call's `arguments` are kept as the model wrote them (a JSON string, an object or
//! absent); each environment types them its own way ([`super::parse`] for tool calling).

use serde_json::Value;

/// One function call as written: a Responses `function_call` item, or a chat
/// `tool_calls[]` entry (`{function: {name, arguments}}` or `{name, arguments}`).
#[derive(Debug, Clone, PartialEq)]
pub struct RawCall {
    /// `None` when the item has no string `name`.
    pub name: Option<String>,
    /// `arguments` as written (`parameters` read as its alias); `None` when absent.
    pub arguments: Option<Value>,
}

impl RawCall {
    /// The call an item or a `tool_calls[]` entry holds.
    pub fn from_item(item: &Value) -> Self {
        let call = item
            .get("function")
            .filter(|f| f.is_object())
            .unwrap_or(item);
        Self {
            name: call.get("name").and_then(Value::as_str).map(str::to_owned),
            arguments: call
                .get("arguments")
                .or_else(|| call.get("parameters"))
                .cloned(),
        }
    }
}

fn is_type(item: &Value, kind: &str) -> bool {
    item.get("type").and_then(Value::as_str) == Some(kind)
}

fn is_assistant_message(item: &Value) -> bool {
    is_type(item, "message") && item.get("role").and_then(Value::as_str) == Some("assistant")
}

/// The `function_call` items of a Responses `output`, in order; other items skipped.
pub fn function_calls(items: &[Value]) -> impl Iterator<Item = RawCall> + '_ {
    items
        .iter()
        .filter(|item| is_type(item, "function_call"))
        .map(RawCall::from_item)
}

/// Whether `items` hold any `function_call` item.
pub fn has_function_calls(items: &[Value]) -> bool {
    items.iter().any(|item| is_type(item, "function_call"))
}

/// The `output_text` parts of one message item, in order.
fn output_texts(item: &Value) -> impl Iterator<Item = &str> {
    let parts = item.get("content").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter(|part| is_type(part, "output_text"))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
}

/// The text Gym scores: the last `output_text` of the last assistant message, or ""
/// when there is none (reasoning or tool calls only).
pub fn last_output_text(items: &[Value]) -> String {
    items
        .iter()
        .rev()
        .filter(|item| is_assistant_message(item))
        .find_map(|item| output_texts(item).last())
        .unwrap_or_default()
        .to_owned()
}

/// Every `output_text` of every message item, joined in order (structured output's
/// answer text, as Gym's structured_outputs server reads it).
pub fn all_output_text(items: &[Value]) -> String {
    items
        .iter()
        .filter(|item| is_type(item, "message"))
        .flat_map(output_texts)
        .collect()
}

/// The calls of one chat-layout assistant turn: its `tool_calls` when it has any,
/// else `None`, meaning the calls (if any) are in the text. An empty `tool_calls`
/// list is what vLLM sends without a tool parser, so it does not hide text calls.
pub fn chat_tool_calls(message: &Value) -> Option<Vec<RawCall>> {
    let list = message.get("tool_calls")?.as_array()?;
    (!list.is_empty()).then(|| list.iter().map(RawCall::from_item).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_text_and_calls_of_output_items() {
        let items = json!([
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}]},
            {"type": "function_call", "name": "f", "arguments": "{\"x\": 1}", "call_id": "c"},
            {"type": "function_call", "arguments": {"y": 2}}
        ]);
        let items = items.as_array().unwrap();
        assert_eq!(last_output_text(items), "b");
        assert_eq!(all_output_text(items), "ab");
        assert_eq!(last_output_text(&[]), "");
        let calls: Vec<RawCall> = function_calls(items).collect();
        assert_eq!(calls[0].name.as_deref(), Some("f"));
        assert_eq!(calls[0].arguments, Some(json!("{\"x\": 1}")));
        assert_eq!(
            (calls[1].name.as_ref(), &calls[1].arguments),
            (None, &Some(json!({"y": 2})))
        );
        assert!(has_function_calls(items));
    }

    #[test]
    fn empty_tool_calls_leave_the_text_to_read() {
        let with = json!({"role": "assistant", "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "g", "arguments": "{}"}}]});
        let calls = chat_tool_calls(&with).unwrap();
        assert_eq!(
            (calls[0].name.as_deref(), &calls[0].arguments),
            (Some("g"), &Some(json!("{}")))
        );
        let empty = json!({"role": "assistant", "content": "<tool_call>…", "tool_calls": []});
        assert_eq!(chat_tool_calls(&empty), None);
        assert_eq!(chat_tool_calls(&json!({"role": "assistant"})), None);
    }
}
