//! Gym rows to cascade samples: the scored text and the task-field names.

use cascade_envs::Sample;
use serde_json::{json, Map, Value};

/// Gym's name for a field → cascade's, per environment, applied when the cascade name
/// is absent: math_with_judge's `question` / `expected_answer`.
const ALIASES: &[(&str, &str, &str)] = &[
    ("math", "expected_answer", "answer"),
    ("math", "question", "problem"),
];

/// The text Gym scores: the last `output_text` of the last assistant message in
/// `response.output`, or "" when there is none (reasoning or tool calls only).
pub fn last_output_text(response: &Map<String, Value>) -> String {
    let items = response.get("output").and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .rev()
        .filter(|item| {
            item.get("type").and_then(Value::as_str) == Some("message")
                && item.get("role").and_then(Value::as_str) == Some("assistant")
        })
        .find_map(|item| {
            let parts = item.get("content")?.as_array()?;
            parts.iter().rev().find_map(|part| {
                (part.get("type")?.as_str()? == "output_text")
                    .then(|| part.get("text")?.as_str().map(str::to_owned))
                    .flatten()
            })
        })
        .unwrap_or_default()
}

/// The sample field holding the Responses API `output` items, for environments that
/// score more than text (`function_call` items, for tool calling).
pub const RESPONSE_OUTPUT: &str = "response_output";

/// The cascade sample for a Gym row of `env` with the model's `response` (a Responses
/// API object): the task fields, Gym's names mapped onto cascade's, `response` set to
/// the scored text ([`last_output_text`]), `response_output` to `response.output`, and
/// an `id` (the row's, as a string, or `"verify"`; Gym rows often have none).
pub fn gym_row_to_sample(
    env: &str,
    task: &Map<String, Value>,
    response: &Map<String, Value>,
) -> Sample {
    let mut fields = task.clone();
    for (_, gym, ours) in ALIASES.iter().filter(|(e, _, _)| *e == env) {
        if !fields.contains_key(*ours) {
            if let Some(v) = task.get(*gym) {
                fields.insert((*ours).to_owned(), v.clone());
            }
        }
    }
    if env == "code" {
        code_fields_from_unit_tests(&mut fields);
    }
    let id = match task.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => "verify".to_owned(),
        Some(other) => other.to_string(),
    };
    fields.insert("id".into(), Value::String(id));
    fields.insert("response".into(), Value::String(last_output_text(response)));
    if let Some(output) = response.get("output").filter(|o| o.is_array()) {
        fields.insert(RESPONSE_OUTPUT.into(), output.clone());
    }
    Sample::new(Value::Object(fields))
}

/// code_gen's rows carry LiveCodeBench tests in `verifier_metadata.unit_tests`
/// (`inputs`, `outputs`, `fn_name`) and are Python: stdin/stdout tests become cascade's
/// `tests: {kind: stdio, cases}`. Function-call tests (`fn_name` set) are left out, so
/// such a row gets reward 0 naming the missing `tests`.
fn code_fields_from_unit_tests(fields: &mut Map<String, Value>) {
    if !fields.contains_key("language") {
        fields.insert("language".into(), json!("python"));
    }
    if fields.contains_key("tests") {
        return;
    }
    let Some(unit) = fields
        .get("verifier_metadata")
        .and_then(|m| m.get("unit_tests"))
    else {
        return;
    };
    if unit.get("fn_name").is_some_and(|f| !f.is_null()) {
        return;
    }
    let strings = |key: &str| -> Option<Vec<String>> {
        unit.get(key)?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let (Some(inputs), Some(outputs)) = (strings("inputs"), strings("outputs")) else {
        return;
    };
    let cases: Vec<Value> = inputs
        .into_iter()
        .zip(outputs)
        .map(|(input, output)| json!({"input": input, "output": output}))
        .collect();
    fields.insert("tests".into(), json!({"kind": "stdio", "cases": cases}));
}
