//! The `tool_call` environment on hostile input: huge and deeply nested responses,
//! wrong argument types, invalid tool JSON and bad schemas all give reward 0 with a
//! reason, never a panic; and a property over arbitrary responses and references.

use cascade_envs::tool_call::ToolCallEnv;
use cascade_envs::{Environment, Reward, Sample};
use proptest::prelude::*;
use serde_json::{json, Value};

fn row(response: &str, ground_truth: Value) -> Sample {
    Sample::new(json!({
        "id": "t",
        "responses_create_params": {"input": "Book it.", "tools": [
            {"type": "function", "name": "book", "parameters": {"type": "object", "properties": {
                "seat": {"type": "integer"}, "name": {"type": "string"},
                "extras": {"type": "array", "items": {"type": "string"}}, "meta": {"type": "object"}},
                "required": ["seat"]}}]},
        "ground_truth": ground_truth,
        "response": response,
    }))
}

fn gt() -> Value {
    json!([{"book": {"seat": [12], "name": ["", "Ann"], "extras": ["", ["window"]]}}])
}

fn score(sample: &Sample) -> Reward {
    ToolCallEnv::default().score(sample)
}

fn reason(r: &Reward) -> String {
    let of = |k: &str| r.details.get(k).and_then(Value::as_str).map(str::to_owned);
    of("error")
        .or_else(|| of("reason"))
        .or_else(|| Some(r.details.get("calls")?.to_string()))
        .unwrap_or_default()
}

#[test]
fn ten_megabyte_response_is_refused_with_a_reason() {
    let huge = format!("<tool_call>{}", "a".repeat(10 << 20));
    let r = score(&row(&huge, gt()));
    assert_eq!(r.score, 0.0);
    assert_eq!(r.details["verdict"], "unreadable");
    assert!(
        reason(&r).contains("over the limit of 1048576"),
        "{}",
        reason(&r)
    );
}

#[test]
fn deeply_nested_arguments_are_an_invalid_call() {
    for nested in ["[".repeat(100_000), "{\"a\":".repeat(50_000)] {
        let text = format!("<tool_call>{{\"name\": \"book\", \"arguments\": {nested}</tool_call>");
        let r = score(&row(&text, gt()));
        assert_eq!(r.score, 0.0);
        assert!(
            reason(&r).contains("recursion limit exceeded"),
            "{}",
            reason(&r)
        );
    }
    let xml = format!(
        "<function=book><parameter=meta>{}</parameter></function>",
        "[".repeat(100_000)
    );
    let r = score(&row(&xml, gt()));
    assert_eq!(r.score, 0.0);
    assert!(reason(&r).contains("required"), "{}", reason(&r));
}

#[test]
fn wrong_types_invalid_json_and_unknown_tools_say_why() {
    let cases = [
        (
            r#"<tool_call>{"name": "book", "arguments": {"seat": "12"}}</tool_call>"#,
            "type_error:simple",
        ),
        (
            r#"<tool_call>{"name": "book", "arguments": {"seat": 12, "extras": "window"}}</tool_call>"#,
            "type_error:simple",
        ),
        (
            r#"<tool_call>{"name": "book", "arguments": {"seat": 12,}}</tool_call>"#,
            "invalid JSON in <tool_call>",
        ),
        (
            r#"<tool_call>{"name": "cancel", "arguments": {}}</tool_call>"#,
            "unknown tool `cancel`",
        ),
        (
            "<function=book><parameter=seat>twelve</parameter></function>",
            "Expected type int, got str",
        ),
    ];
    for (response, why) in cases {
        let r = score(&row(response, gt()));
        assert_eq!(r.score, 0.0, "{response}");
        assert!(reason(&r).contains(why), "{response}: {}", reason(&r));
    }
    let good = r#"<tool_call>{"name": "book", "arguments": {"seat": 12, "extras": ["Window"]}}</tool_call>"#;
    assert_eq!(score(&row(good, gt())).score, 1.0);
}

#[test]
fn bad_schemas_are_row_errors() {
    let mut sample = row("", gt()).value().clone();
    sample["responses_create_params"]["tools"][0]["parameters"] = json!("not a schema");
    let r = score(&Sample::new(sample.clone()));
    assert_eq!(r.error_message(), Some("responses_create_params.tools[0].parameters: `parameters` must be a JSON Schema object"));
    sample["responses_create_params"]["tools"][0]["parameters"] =
        json!({"properties": [], "required": "seat"});
    assert!(score(&Sample::new(sample))
        .error_message()
        .unwrap()
        .contains("`properties` must be an object"));
    let r = score(&row("", json!("[{\"book\": ")));
    assert!(r
        .error_message()
        .unwrap()
        .starts_with("ground_truth: a JSON string that does not parse"));
    let too_many: Vec<Value> = (0..65).map(|_| json!({"book": {"seat": [1]}})).collect();
    let r = score(&row("", Value::Array(too_many)));
    assert_eq!(
        r.error_message(),
        Some("ground_truth: 65 entries, over the limit of 64")
    );
}

/// Fragments a model might emit, glued together at random.
fn response_strategy() -> impl Strategy<Value = String> {
    let fragments = prop_oneof![
        Just("<tool_call>".to_owned()),
        Just("</tool_call>".to_owned()),
        Just("<think>".to_owned()),
        Just("</think>".to_owned()),
        Just("<function=book>".to_owned()),
        Just("</function>".to_owned()),
        Just("<parameter=seat>".to_owned()),
        Just("<parameter=extras>".to_owned()),
        Just("</parameter>".to_owned()),
        Just(r#"{"name": "book", "arguments": {"seat": 12}}"#.to_owned()),
        Just(r#"{"name": "book", "arguments": "{\"seat\": 12, \"name\": \"ann\"}"}"#.to_owned()),
        Just("[\"window\"]".to_owned()),
        "[0-9]{1,3}",
        "\\PC{0,12}",
    ];
    prop::collection::vec(fragments, 0..12).prop_map(|parts| parts.concat())
}

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z ]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn never_panics_rewards_are_binary_and_deterministic(
        response in response_strategy(),
        ground_truth in value_strategy(),
        output in prop::option::of(prop::collection::vec(value_strategy(), 0..3)),
    ) {
        let mut sample = row(&response, ground_truth).value().clone();
        if let Some(items) = output {
            sample["response_output"] = Value::Array(items);
        }
        let sample = Sample::new(sample);
        let first = score(&sample);
        prop_assert!(first.score == 0.0 || first.score == 1.0);
        let again = score(&sample);
        prop_assert_eq!(serde_json::to_string(&first).unwrap(), serde_json::to_string(&again).unwrap());
    }

    #[test]
    fn well_formed_ground_truth_and_calls_never_error(
        response in response_strategy(),
    ) {
        let r = score(&row(&response, gt()));
        // The only error a well-formed row can get: a response cut off inside `<think>`.
        prop_assert!(r.error_message().is_none_or(|e| e.starts_with("truncated")), "{:?}", r);
        // A truncated response is an error without a verdict: nothing was compared.
        prop_assert!(r.error_message().is_some() != r.details.contains_key("verdict"), "{:?}", r);
    }
}
