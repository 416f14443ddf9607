//! `structured_output` on malformed and hostile input: every sample gets reward 0 or 1
//! with a reason, never a panic, in bounded work (each case here is a cap being hit,
//! not a timing assertion); and a property test over arbitrary responses and rows.

use cascade_envs::structured_output::StructuredOutputEnv;
use cascade_envs::{Environment, Sample};
use proptest::prelude::*;
use serde_json::{json, Value};

const PERSON: &str =
    r#"{"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}"#;

fn score(row: Value) -> cascade_envs::Reward {
    StructuredOutputEnv::default().score(&Sample::new(row))
}

fn text_row(schema_type: &str, response: &str) -> Value {
    json!({"id": "x", "schema_str": PERSON, "schema_type": schema_type, "response": response})
}

#[test]
fn hostile_documents_get_zero_with_a_reason() {
    let n = 100_000;
    let cases = [
        ("json", "[".repeat(n), "parse_error"),
        ("json", "{\"a\":".repeat(n), "parse_error"),
        ("yaml", "[".repeat(n), "parse_error"),
        ("yaml", "{a: ".repeat(n), "parse_error"),
        ("toml", format!("a = {}", "[".repeat(n)), "parse_error"),
        (
            "toml",
            format!("{} = 1", vec!["k"; n].join(".")),
            "parse_error",
        ),
        ("xml", "<a>".repeat(n), "parse_error"),
        (
            "xml",
            "<!DOCTYPE a [<!ENTITY e \"x\">]><a>&e;</a>".to_owned(),
            "parse_error",
        ),
        ("csv", format!("a\n{}", ",".repeat(n)), "parse_error"),
        ("json", "x".repeat(10 * 1024 * 1024), "too_large"),
        ("json", String::new(), "no_output"),
    ];
    for (kind, response, error_type) in cases {
        let r = score(text_row(kind, &response));
        assert_eq!(r.score, 0.0, "{kind}");
        assert_eq!(
            r.details["error_type"], error_type,
            "{kind}: {:?}",
            r.details
        );
        assert!(r.details["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
}

#[test]
fn yaml_billion_laughs_is_a_parse_error() {
    let mut bomb = String::from(
        "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n",
    );
    let mut prev = "a".to_owned();
    for level in ["b", "c", "d", "e", "f", "g", "h", "i"] {
        bomb.push_str(&format!(
            "{level}: &{level} [{}]\n",
            vec![format!("*{prev}"); 9].join(", ")
        ));
        prev = level.to_owned();
    }
    let r = score(text_row("yaml", &bomb));
    assert_eq!(r.details["error_type"], "parse_error", "{:?}", r.details);
}

#[test]
fn malformed_rows_and_schemas_are_errors() {
    let rows = [
        json!({"id": "x", "schema_str": "{\"type\": ", "response": "{}"}),
        json!({"id": "x", "schema_str": "{\"type\": \"strin\"}", "response": "\"a\""}),
        json!({"id": "x", "schema_str": "{\"$ref\": \"http://127.0.0.1:9/s.json\"}", "response": "{}"}),
        json!({"id": "x", "schema_str": "{\"$ref\": \"file:///etc/hostname\"}", "response": "{}"}),
        json!({"id": "x", "schema_str": format!("{{\"enum\": [\"{}\"]}}", "z".repeat(1 << 20)), "response": "{}"}),
        json!({"id": "x", "schema_str": PERSON, "schema_type": 5, "response": "{}"}),
        json!({"id": "x", "schema_str": PERSON, "response": 7}),
        json!({"id": "x", "schema_str": PERSON}),
        json!({"id": "x", "response": "{}"}),
        json!("not an object"),
    ];
    for row in rows {
        let r = score(row.clone());
        assert_eq!(r.score, 0.0);
        assert!(r.error_message().is_some(), "{row}: {:?}", r.details);
        assert!(r.details["error_type"].is_string());
    }
}

#[test]
fn wrong_types_and_bad_tool_json_are_zero() {
    let r = score(text_row("json", r#"{"name": 3, "age": "x"}"#));
    assert_eq!(r.details["error_type"], "schema_violation");
    assert_eq!(r.details["instance_path"], "/age");
    let tool = |response: Value| {
        score(
            json!({"id": "t", "schema_str": PERSON, "response_mode": "tool_call",
            "tool_name": "person", "response": response}),
        )
    };
    let bad_args = tool(
        json!({"output": [{"type": "function_call", "name": "person", "arguments": "{not json"}]}),
    );
    assert_eq!(bad_args.details["error_type"], "tool_arguments_parse_error");
    let unknown = tool(json!(
        "<tool_call>{\"name\": \"nobody\", \"arguments\": {}}</tool_call>"
    ));
    assert_eq!(unknown.details["error_type"], "wrong_tool_name");
    let broken = tool(json!(
        "<tool_call>{\"name\": \"person\", \"arguments\": {</tool_call>"
    ));
    assert_eq!(broken.details["error_type"], "missing_tool_call");
}

const SCHEMAS: &[&str] = &[
    PERSON,
    r#"{"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": ["string", "null"]}}}}"#,
    r#"{"type": "object", "properties": {"root": {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "number"}}}}}}"#,
    r#"{"type": "string", "pattern": "^(a|aa)+$"}"#,
    r##"{"anyOf": [{"type": "boolean"}, {"$ref": "#/$defs/n"}], "$defs": {"n": {"type": "integer"}}}"##,
    r#"{"type": "strin"}"#,
    "not json",
];

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("\"a\"".to_owned()),
        Just(":".to_owned()),
        Just(",".to_owned()),
        Just("1".to_owned()),
        Just("<root>".to_owned()),
        Just("</root>".to_owned()),
        Just("<x>2</x>".to_owned()),
        Just("```json\n".to_owned()),
        Just("\n```\n".to_owned()),
        Just("<think>".to_owned()),
        Just("</think>".to_owned()),
        Just("<tool_call>".to_owned()),
        Just("</tool_call>".to_owned()),
        Just("name: x\n".to_owned()),
        Just("- ".to_owned()),
        Just(" = ".to_owned()),
        Just("a,b\n".to_owned()),
        Just("\n".to_owned()),
        Just("&amp;".to_owned()),
        Just("*a &a".to_owned()),
        "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn any_response_and_row_scores_zero_or_one_deterministically(
        parts in prop::collection::vec(fragment(), 0..24),
        schema in prop::sample::select(SCHEMAS),
        schema_type in prop::sample::select(&["json", "yaml", "xml", "toml", "csv", "JSON", "ini"][..]),
        strict in prop::option::of(any::<bool>()),
        tool_mode in any::<bool>(),
    ) {
        let response = parts.concat();
        let mut row = json!({"id": "p", "schema_str": schema, "schema_type": schema_type, "response": response});
        if let Some(strict) = strict {
            row["strict"] = json!(strict);
        }
        if tool_mode {
            row["response_mode"] = json!("tool_call");
            row["tool_name"] = json!("a");
        }
        let first = score(row.clone());
        prop_assert!(first.score == 0.0 || first.score == 1.0);
        prop_assert!(first.details["error_type"].is_null() == (first.score == 1.0));
        let again = score(row);
        prop_assert_eq!(serde_json::to_vec(&first).unwrap(), serde_json::to_vec(&again).unwrap());
    }
}
