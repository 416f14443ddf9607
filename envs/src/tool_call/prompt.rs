//! The prompt: the row's messages, with the tools described in the system message in
//! the layout Qwen's chat templates use, and the call format the model should write.

use serde_json::{json, Value};

use crate::environment::ChatMessage;

use super::CallStyle;

const HERMES: &str = "For each function call, return a json object with function name and \
arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \
\"arguments\": <args-json-object>}\n</tool_call>";

const QWEN3_CODER: &str = "If you choose to call a function ONLY reply in the following format \
with NO suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n\
value_1\n</parameter>\n</function>\n</tool_call>";

/// The tools section: one tool per line, in the chat layout
/// (`{"type": "function", "function": {...}}`) whatever layout the row used.
pub fn tools_section(tools: &[Value], style: CallStyle) -> String {
    let lines: Vec<String> = tools.iter().map(|t| chat_layout(t).to_string()).collect();
    let format = match style {
        CallStyle::Hermes => HERMES,
        CallStyle::Qwen3Coder => QWEN3_CODER,
    };
    format!(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\n{format}",
        lines.join("\n")
    )
}

fn chat_layout(tool: &Value) -> Value {
    match tool.get("function") {
        Some(_) => tool.clone(),
        None => {
            let mut function = tool.as_object().cloned().unwrap_or_default();
            function.remove("type");
            function.remove("strict");
            json!({"type": "function", "function": function})
        }
    }
}

/// Puts `section` at the end of the leading system message, or in a new one.
pub fn with_system(mut messages: Vec<ChatMessage>, section: String) -> Vec<ChatMessage> {
    match messages.first_mut() {
        Some(first) if first.role == "system" => {
            first.content = format!("{}\n\n{section}", first.content);
        }
        _ => messages.insert(0, ChatMessage::system(section)),
    }
    messages
}
