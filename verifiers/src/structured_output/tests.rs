//! End-to-end rules of [`check`]: every format, strictness, tool calls, details, caps.

use serde_json::{json, Value};

use super::*;

fn person_schema() -> Value {
    json!({"type": "object", "properties": {
        "name": {"type": "string"}, "age": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}}
    }})
}

fn task(schema_type: SchemaType) -> StructuredTask {
    StructuredTask {
        schema: person_schema(),
        schema_type,
        strict: true,
        mode: ResponseMode::Text,
        xml_coerce_types: true,
    }
}

fn score(task: &StructuredTask, text: &str) -> Reward {
    check(task, &Answer::text(text))
}

#[test]
fn every_format_passes_a_conforming_document() {
    let cases = [
        (
            SchemaType::Json,
            r#"{"name": "Ada", "age": 36, "tags": ["math"]}"#,
        ),
        (SchemaType::Yaml, "name: Ada\nage: 36\ntags:\n  - math\n"),
        (
            SchemaType::Toml,
            "name = \"Ada\"\nage = 36\ntags = [\"math\"]\n",
        ),
    ];
    for (kind, text) in cases {
        let r = score(&task(kind), text);
        assert_eq!(r.score, 1.0, "{kind:?}: {:?}", r.details);
        assert_eq!(r.details["error_type"], Value::Null);
        assert_eq!(r.details["schema_type"], kind.name());
        assert_eq!(r.details["extracted_from"], "bare");
    }
    let xml_task = StructuredTask {
        schema: json!({"type": "object", "properties": {"person": person_schema()}}),
        ..task(SchemaType::Xml)
    };
    let xml = "<person><name>Ada</name><age>36</age><tags><tag>math</tag></tags></person>";
    assert_eq!(score(&xml_task, xml).score, 1.0);
    let csv_task = StructuredTask {
        schema: json!({"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "age": {"type": "integer"}}}}),
        ..task(SchemaType::Csv)
    };
    assert_eq!(score(&csv_task, "name,age\nAda,36\nAlan,41\n").score, 1.0);
    assert_eq!(score(&csv_task, "name,age\nAda,old\n").score, 0.0);
}

#[test]
fn strictness_can_be_turned_off() {
    let partial = r#"{"name": "Ada", "extra": true}"#;
    let strict = score(&task(SchemaType::Json), partial);
    assert_eq!(strict.score, 0.0);
    assert_eq!(strict.details["error_type"], "schema_violation");
    assert_eq!(strict.details["strict"], true);
    let lax = StructuredTask {
        strict: false,
        ..task(SchemaType::Json)
    };
    let r = score(&lax, partial);
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    assert_eq!(r.details["strict"], false);
}

#[test]
fn the_first_violation_is_located() {
    let r = score(
        &task(SchemaType::Json),
        r#"{"name": "Ada", "age": 36, "tags": ["a", 2]}"#,
    );
    assert_eq!(r.details["error_type"], "schema_violation");
    assert_eq!(r.details["instance_path"], "/tags/1");
    assert_eq!(r.details["schema_path"], "/properties/tags/items/type");
    assert!(r.details["message"]
        .as_str()
        .unwrap()
        .contains("not of type"));
    assert!(r.details.get("error").is_none());
}

#[test]
fn fences_thinking_and_empty_answers() {
    let fenced = "<think>{\"name\": 1}</think>Here you go:\n```json\n{\"name\": \"Ada\", \"age\": 1, \"tags\": []}\n```\nDone.";
    let r = score(&task(SchemaType::Json), fenced);
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    assert_eq!(r.details["extracted_from"], "fenced_block");
    for empty in ["", "   \n", "<think>only thinking", "<think>x</think>  "] {
        let r = score(&task(SchemaType::Json), empty);
        assert_eq!(r.details["error_type"], "no_output", "{empty:?}");
    }
    let r = score(&task(SchemaType::Json), "Sure! {\"name\": \"Ada\"}");
    assert_eq!(r.details["error_type"], "parse_error");
}

#[test]
fn malformed_documents_are_parse_errors_in_every_format() {
    for (kind, bad) in [
        (SchemaType::Json, "{\"name\": "),
        (SchemaType::Yaml, "name: [unclosed"),
        (SchemaType::Toml, "name = "),
        (SchemaType::Xml, "<person><name>x</person>"),
        (SchemaType::Csv, "a\n1,2"),
    ] {
        let r = score(&task(kind), bad);
        assert_eq!(r.score, 0.0);
        assert_eq!(
            r.details["error_type"], "parse_error",
            "{kind:?}: {:?}",
            r.details
        );
    }
}

#[test]
fn deep_documents_are_refused_in_every_format_without_overflow() {
    let n = 100_000;
    let docs = [
        (SchemaType::Json, "[".repeat(n)),
        (SchemaType::Yaml, "[".repeat(n)),
        (SchemaType::Yaml, "- ".repeat(n)),
        (SchemaType::Toml, format!("a = {}", "[".repeat(n))),
        (SchemaType::Toml, format!("[{}]", vec!["t"; n].join("."))),
        (SchemaType::Xml, "<a>".repeat(n)),
    ];
    for (kind, doc) in docs {
        let r = score(&task(kind), &doc);
        assert_eq!(r.score, 0.0, "{kind:?}");
        assert_eq!(r.details["error_type"], "parse_error", "{kind:?}");
    }
}

#[test]
fn oversized_responses_and_schemas_are_capped() {
    let big = format!("{{\"name\": \"{}\"}}", "x".repeat(10 * 1024 * 1024));
    let r = score(&task(SchemaType::Json), &big);
    assert_eq!(r.details["error_type"], "too_large");
    assert!(r.details["message"].as_str().unwrap().contains("cap"));
    let huge_schema = StructuredTask {
        schema: json!({"enum": vec!["y".repeat(1024); 1024]}),
        ..task(SchemaType::Json)
    };
    let r = score(&huge_schema, "\"y\"");
    assert_eq!(r.details["error_type"], "invalid_schema");
    assert!(r.error_message().unwrap().contains("cap"));
}

#[test]
fn invalid_schemas_are_row_errors() {
    let bad = StructuredTask {
        schema: json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
        ..task(SchemaType::Json)
    };
    let r = score(&bad, "{\"a\": 1}");
    assert_eq!(r.score, 0.0);
    assert_eq!(r.details["error_type"], "invalid_schema");
    assert!(r.error_message().unwrap().starts_with("invalid schema"));
}

#[test]
fn xml_coercion_can_be_turned_off() {
    let xml_task = StructuredTask {
        schema: json!({"type": "object", "properties": {"p": {"type": "object", "properties": {"age": {"type": "integer"}}}}}),
        ..task(SchemaType::Xml)
    };
    assert_eq!(score(&xml_task, "<p><age>3</age></p>").score, 1.0);
    let raw = StructuredTask {
        xml_coerce_types: false,
        ..xml_task
    };
    let r = score(&raw, "<p><age>3</age></p>");
    assert_eq!(r.details["instance_path"], "/p/age");
}

#[test]
fn tool_call_mode_validates_the_arguments() {
    let tool = StructuredTask {
        mode: ResponseMode::ToolCall {
            tool_name: Some("save".into()),
            payload_key: Some("extraction".into()),
        },
        ..task(SchemaType::Yaml)
    };
    let good = r#"<tool_call>{"name": "save", "arguments": {"extraction": {"name": "Ada", "age": 3, "tags": []}}}</tool_call>"#;
    let r = score(&tool, good);
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    assert_eq!(r.details["extracted_from"], "tool_call_tag");
    let wrong =
        r#"<tool_call>{"name": "save", "arguments": {"extraction": {"name": "Ada"}}}</tool_call>"#;
    assert_eq!(
        score(&tool, wrong).details["error_type"],
        "schema_violation"
    );
    let items = Answer {
        function_calls: Some(vec![]),
        ..Answer::text(good)
    };
    assert_eq!(
        check(&tool, &items).details["error_type"],
        "missing_tool_call"
    );
}
