//! NeMo Gym rows, read as they are: the prompt is `responses_create_params.input` (the
//! OpenAI Responses API input) and the function tools are
//! `responses_create_params.tools`. Every environment whose public data is in Gym's
//! layout reads its prompt through [`gym_prompt`], so users point cascade at those rows
//! without converting them.
//!
//! `input` is either a string (one user message) or a list of message items
//! (`{role, content}`, with or without `type: "message"`), whose `content` is a string
//! or a list of text parts (`input_text`, `output_text` or `text`). `instructions`, when
//! set, becomes a leading system message, as the Responses API treats it.
//!
//! The rest of a Gym row is read by the environment that owns it, so `score`, `train`,
//! `serve` and the Python package read it alike: the id (`id`, `uuid` or the line,
//! [`Sample::id_value`]), math_with_judge's `question`/`expected_answer` (`math`),
//! code_gen's `verifier_metadata.unit_tests` ([`code_gen_fields`], `code`), and the
//! model's Responses output ([`verify_sample`]: the scored text and `response_output`,
//! read by `cascade_verifiers::tool_call::responses`).

use cascade_verifiers::tool_call::responses;
use cascade_verifiers::{FieldError, Sample};
use serde_json::{json, Map, Value};

use crate::environment::ChatMessage;

/// The field that marks a Gym row.
pub const PARAMS: &str = "responses_create_params";

/// The chat prompt of a Gym row, or `None` when the row has no
/// `responses_create_params` (a cascade-layout row).
pub fn gym_prompt(row: &Sample) -> Result<Option<Vec<ChatMessage>>, FieldError> {
    let Some(params) = row.get(PARAMS) else {
        return Ok(None);
    };
    let params = params
        .as_object()
        .ok_or_else(|| FieldError::wrong_type(PARAMS, "an object", params))?;
    let mut messages = Vec::new();
    if let Some(instructions) = params.get("instructions").filter(|v| !v.is_null()) {
        let field = format!("{PARAMS}.instructions");
        let text = instructions
            .as_str()
            .ok_or_else(|| FieldError::wrong_type(&field, "a string", instructions))?;
        messages.push(ChatMessage::system(text));
    }
    let field = format!("{PARAMS}.input");
    match params.get("input") {
        None => return Err(FieldError::Missing(field)),
        Some(Value::String(text)) => messages.push(ChatMessage::user(text.as_str())),
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                messages.push(input_message(item, &format!("{field}[{i}]"))?);
            }
        }
        Some(other) => {
            return Err(FieldError::wrong_type(
                &field,
                "a string or an array",
                other,
            ))
        }
    }
    Ok(Some(messages))
}

/// The function tools of a Gym row (`responses_create_params.tools`), or `None` when
/// the row has none.
pub fn gym_tools(row: &Sample) -> Result<Option<&Vec<Value>>, FieldError> {
    let Some(tools) = row.get(PARAMS).and_then(|p| p.get("tools")) else {
        return Ok(None);
    };
    match tools {
        Value::Null => Ok(None),
        Value::Array(list) => Ok(Some(list)),
        other => Err(FieldError::wrong_type(
            format!("{PARAMS}.tools"),
            "an array",
            other,
        )),
    }
}

fn input_message(item: &Value, field: &str) -> Result<ChatMessage, FieldError> {
    let object = item
        .as_object()
        .ok_or_else(|| FieldError::wrong_type(field, "an object", item))?;
    if let Some(kind) = object.get("type").and_then(Value::as_str) {
        if kind != "message" {
            return Err(FieldError::WrongType {
                field: format!("{field}.type"),
                expected: "\"message\" (a prompt holds messages only)",
                found: "another item type",
            });
        }
    }
    let role = string_of(object, "role", field)?;
    let content = match object.get("content") {
        None => return Err(FieldError::Missing(format!("{field}.content"))),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => text_parts(parts, &format!("{field}.content"))?,
        Some(other) => {
            return Err(FieldError::wrong_type(
                format!("{field}.content"),
                "a string or an array",
                other,
            ))
        }
    };
    Ok(ChatMessage {
        role: role.to_owned(),
        content,
    })
}

/// The text parts of a message, joined in order. Non-text parts (images, files) have no
/// place in a text prompt, so they are an error rather than silently dropped.
fn text_parts(parts: &[Value], field: &str) -> Result<String, FieldError> {
    let mut text = String::new();
    for (i, part) in parts.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let object = part
            .as_object()
            .ok_or_else(|| FieldError::wrong_type(&at, "an object", part))?;
        match object.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text") => {
                text.push_str(string_of(object, "text", &at)?)
            }
            _ => {
                return Err(FieldError::WrongType {
                    field: format!("{at}.type"),
                    expected: "a text part (input_text, output_text or text)",
                    found: "another part type",
                })
            }
        }
    }
    Ok(text)
}

fn string_of<'a>(
    object: &'a Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<&'a str, FieldError> {
    let at = || format!("{field}.{key}");
    let v = object.get(key).ok_or_else(|| FieldError::Missing(at()))?;
    v.as_str()
        .ok_or_else(|| FieldError::wrong_type(at(), "a string", v))
}

/// The sample field holding the Responses API `output` items, for environments that
/// score more than text (`function_call` items, for tool calling).
pub const RESPONSE_OUTPUT: &str = "response_output";

/// The sample for a Gym verify request: the row (`task`, kept whole: its
/// `responses_create_params.tools` are task fields for tool calling) with the model's
/// Responses object: `response` set to the text Gym scores (the last assistant
/// `output_text`) and `response_output` to its `output` items.
pub fn verify_sample(task: &Map<String, Value>, response: &Map<String, Value>) -> Sample {
    let mut fields = task.clone();
    let items = response.get("output").and_then(Value::as_array);
    let text = responses::last_output_text(items.map_or(&[][..], Vec::as_slice));
    fields.insert("response".into(), Value::String(text));
    if let Some(items) = items {
        fields.insert(RESPONSE_OUTPUT.into(), Value::Array(items.clone()));
    }
    Sample::new(Value::Object(fields))
}

/// code_gen's rows carry LiveCodeBench tests in `verifier_metadata.unit_tests`
/// (`inputs`, `outputs`, `fn_name`) and are Python: the row with cascade's `language`
/// (`python` unless given) and, from stdin/stdout tests, `tests: {kind: stdio, cases}`.
/// Function-call tests (`fn_name` set) are left out, so such a row gets reward 0 naming
/// the missing `tests`. `None` when the row is not a code_gen row.
pub fn code_gen_fields(row: &Sample) -> Option<Sample> {
    let unit = row.get("verifier_metadata")?.get("unit_tests")?;
    let mut derived = row.clone();
    if row.get("language").is_none() {
        derived = derived.with_field("language", json!("python"));
    }
    if row.get("tests").is_some() || unit.get("fn_name").is_some_and(|f| !f.is_null()) {
        return Some(derived);
    }
    let strings = |key: &str| -> Option<Vec<String>> {
        unit.get(key)?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let (Some(inputs), Some(outputs)) = (strings("inputs"), strings("outputs")) else {
        return Some(derived);
    };
    let cases: Vec<Value> = inputs
        .into_iter()
        .zip(outputs)
        .map(|(input, output)| json!({"input": input, "output": output}))
        .collect();
    Some(derived.with_field("tests", json!({"kind": "stdio", "cases": cases})))
}

/// The row field that names a Gym row's agent, by which NeMo-RL routes mixed files.
pub const AGENT_FIELD: &str = "agent_ref.name";

/// The cascade environment that grades the rows of NeMo Gym agent `agent`: Gym names
/// an agent after its resources server (`mcqa_simple_agent`, and per version
/// `structured_outputs_v4_simple_agent`). `None` for servers cascade has no env for.
pub fn agent_env(agent: &str) -> Option<&'static str> {
    let server = agent
        .strip_suffix("_simple_agent")
        .or_else(|| agent.strip_suffix("_agent"))?;
    let server = server
        .strip_prefix("structured_outputs")
        .map_or(server, |version| {
            // `structured_outputs`, `_v3`, `_json`, …: one server, several data versions.
            if version.is_empty() || version.starts_with('_') {
                "structured_outputs"
            } else {
                server
            }
        });
    Some(match server {
        "instruction_following" | "ifbench" => "ifeval",
        "math_with_judge" => "math",
        "mcqa" => "mcqa",
        "structured_outputs" => "structured_output",
        "workplace_assistant" => "workplace",
        "xlam_fc" | "single_step_tool_use_with_argument_comparison" => "tool_call",
        "code_gen" => "code",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(params: Value) -> Sample {
        Sample::new(json!({"id": "a", PARAMS: params}))
    }

    #[test]
    fn reads_string_and_message_inputs() {
        let plain = row(json!({"input": "What is 2+2?"}));
        assert_eq!(
            gym_prompt(&plain).unwrap().unwrap(),
            vec![ChatMessage::user("What is 2+2?")]
        );
        let parts = row(json!({
            "instructions": "Be brief.",
            "input": [
                {"role": "system", "content": "sys"},
                {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "Hello, "}, {"type": "input_text", "text": "world"}]}
            ]
        }));
        assert_eq!(
            gym_prompt(&parts).unwrap().unwrap(),
            vec![
                ChatMessage::system("Be brief."),
                ChatMessage::system("sys"),
                ChatMessage::user("Hello, world"),
            ]
        );
        assert_eq!(gym_prompt(&Sample::new(json!({"id": "b"}))).unwrap(), None);
    }

    #[test]
    fn names_the_bad_field() {
        let cases = [
            (json!("x"), "field `responses_create_params` must be an object, found a string"),
            (json!({}), "missing field `responses_create_params.input`"),
            (json!({"input": 3}), "field `responses_create_params.input` must be a string or an array, found a number"),
            (json!({"input": [{"role": "user"}]}), "missing field `responses_create_params.input[0].content`"),
            (
                json!({"input": [{"role": "user", "content": [{"type": "input_image"}]}]}),
                "field `responses_create_params.input[0].content[0].type` must be a text part (input_text, output_text or text), found another part type",
            ),
        ];
        for (params, message) in cases {
            assert_eq!(gym_prompt(&row(params)).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn a_verify_request_becomes_the_row_with_its_text_and_items() {
        let task = json!({"id": 7, PARAMS: {"input": "x", "tools": []}});
        let output = json!([
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]},
            {"type": "function_call", "name": "f", "arguments": "{}"}]);
        let response = json!({"output": output});
        let sample = verify_sample(task.as_object().unwrap(), response.as_object().unwrap());
        assert_eq!(sample.response(), Ok("hello"));
        assert_eq!(sample.id_value(), json!(7), "the id as given");
        assert_eq!(sample.get(RESPONSE_OUTPUT).unwrap(), &output);
        assert_eq!(sample.get(PARAMS).unwrap(), &task[PARAMS]);
    }

    #[test]
    fn code_gen_unit_tests_become_stdio_tests() {
        let row = Sample::new(json!({"verifier_metadata": {"unit_tests":
            {"inputs": ["1\n"], "outputs": ["2\n"], "fn_name": null}}}));
        let derived = code_gen_fields(&row).unwrap();
        assert_eq!(derived.get("language").unwrap(), "python");
        assert_eq!(
            derived.get("tests").unwrap(),
            &json!({"kind": "stdio", "cases": [{"input": "1\n", "output": "2\n"}]})
        );
        assert!(code_gen_fields(&Sample::new(json!({"tests": {}}))).is_none());
    }

    #[test]
    fn reads_tools() {
        let tools = json!([{"type": "function", "name": "f", "parameters": {}}]);
        let r = row(json!({"input": "x", "tools": tools}));
        assert_eq!(gym_tools(&r).unwrap().unwrap().len(), 1);
        assert_eq!(gym_tools(&row(json!({"input": "x"}))).unwrap(), None);
        assert!(gym_tools(&row(json!({"input": "x", "tools": {}}))).is_err());
    }

    #[test]
    fn gym_agents_name_the_env_that_grades_their_rows() {
        let cases = [
            ("instruction_following_simple_agent", Some("ifeval")),
            ("ifbench_simple_agent", Some("ifeval")),
            ("math_with_judge_simple_agent", Some("math")),
            ("mcqa_simple_agent", Some("mcqa")),
            ("structured_outputs_simple_agent", Some("structured_output")),
            (
                "structured_outputs_v4_simple_agent",
                Some("structured_output"),
            ),
            ("workplace_assistant_simple_agent", Some("workplace")),
            ("xlam_fc_simple_agent", Some("tool_call")),
            ("swe_pivot_tool_simulation_agent", None),
            ("structured_outputsx_simple_agent", None),
            ("mcqa", None),
        ];
        for (agent, env) in cases {
            assert_eq!(agent_env(agent), env, "{agent}");
        }
    }
}
