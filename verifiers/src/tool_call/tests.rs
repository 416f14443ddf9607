//! The rules of the module docs, one test each.

use serde_json::{json, Value};

use super::*;

fn tools() -> Vec<FunctionTool> {
    let tools = json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                           "unit": {"type": "string", "enum": ["c", "f"]}},
            "required": ["city"]}}},
        {"type": "function", "name": "convert", "parameters": {"type": "object",
            "properties": {"amount": {"type": "number"}, "rates": {"type": "array", "items": {"type": "number"}},
                           "exact": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
                           "options": {"type": "object"},
                           "legs": {"type": "array", "items": {"type": "object"}}},
            "required": ["amount"]}}
    ]);
    tools_from_json(tools.as_array().unwrap(), "tools").unwrap()
}

fn truth(value: Value) -> Vec<ExpectedCall> {
    ground_truth_from_json(&value, "ground_truth").unwrap()
}

/// Scores a text response against the reference.
fn score(text: &str, gt: Value) -> Comparison {
    let calls = parse_text(text, &tools()).unwrap();
    compare(&calls, &truth(gt), &tools()).unwrap()
}

fn hermes(name: &str, args: Value) -> String {
    format!(
        "<tool_call>\n{}\n</tool_call>",
        json!({"name": name, "arguments": args})
    )
}

fn weather_gt() -> Value {
    json!([{"get_weather": {"city": ["Paris", "Paris, France"], "days": [3, ""], "unit": ["", "c"]}}])
}

#[test]
fn hermes_calls_with_object_or_string_arguments() {
    let object = hermes("get_weather", json!({"city": "Paris", "days": 3}));
    assert!(score(&object, weather_gt()).correct());
    let string =
        r#"<tool_call>{"name": "get_weather", "arguments": "{\"city\": \"paris\"}"}</tool_call>"#;
    let c = score(string, weather_gt());
    assert!(c.correct(), "{c:?}");
    assert_eq!(c.calls[0].format, CallFormat::Hermes);
    assert_eq!(c.calls[0].matched_to, Some(0));
}

#[test]
fn qwen3_coder_xml_values_are_typed_by_the_schema() {
    let xml = "<tool_call>\n<function=convert>\n<parameter=amount>\n10\n</parameter>\n\
               <parameter=exact>True</parameter><parameter=tags>[\"a\", \"b\"]</parameter>\n\
               <parameter=rates>[1, 2.5]</parameter>\n</function>\n</tool_call>";
    let calls = parse_text(xml, &tools()).unwrap();
    assert_eq!(calls[0].format, CallFormat::Qwen3CoderXml);
    let args = calls[0].arguments.as_ref().unwrap();
    assert_eq!(args["amount"], json!(10));
    assert_eq!(args["exact"], json!(true));
    assert_eq!(args["tags"], json!(["a", "b"]));
    let gt = json!([{"convert": {"amount": [10.0], "exact": [true], "tags": [["a", "b"]], "rates": [[1.0, 2.5]]}}]);
    assert!(compare(&calls, &truth(gt), &tools()).unwrap().correct());
    // Bare (no <tool_call>), string kept, unparsable integer kept as text and so wrong.
    let bare = "<function=get_weather><parameter=city>\nNew York\n</parameter><parameter=days>three</parameter></function>";
    let calls = parse_text(bare, &tools()).unwrap();
    let args = calls[0].arguments.as_ref().unwrap();
    assert_eq!(args["city"], json!("New York"));
    assert_eq!(args["days"], json!("three"));
    let c = score(
        bare,
        json!([{"get_weather": {"city": ["new york"], "days": [3]}}]),
    );
    assert_eq!(c.verdict, Verdict::Mismatch);
    assert!(c.calls[0].errors[0].contains("type_error:simple"), "{c:?}");
}

#[test]
fn xml_null_and_unclosed_tags() {
    let text = "<function=get_weather><parameter=city>Rome<parameter=unit>NULL";
    let calls = parse_text(text, &tools()).unwrap();
    let args = calls[0].arguments.as_ref().unwrap();
    assert_eq!(args["city"], json!("Rome"));
    assert_eq!(args["unit"], Value::Null);
}

#[test]
fn responses_function_call_items() {
    let items = json!([
        {"type": "reasoning", "summary": []},
        {"type": "function_call", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}", "call_id": "c1"},
        {"type": "message", "role": "assistant", "content": []}
    ]);
    let calls = parse_output_items(items.as_array().unwrap()).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].format, CallFormat::ResponsesItem);
    assert!(compare(&calls, &truth(weather_gt()), &tools())
        .unwrap()
        .correct());
    let bad = json!([{"type": "function_call", "name": "get_weather", "arguments": "{oops"}]);
    let calls = parse_output_items(bad.as_array().unwrap()).unwrap();
    assert!(calls[0]
        .arguments
        .as_ref()
        .unwrap_err()
        .starts_with("the arguments string is not valid JSON"));
}

#[test]
fn think_blocks_are_never_read() {
    let draft = hermes("get_weather", json!({"city": "London"}));
    let answer = hermes("get_weather", json!({"city": "Paris"}));
    let text = format!("<think>maybe {draft}</think>\n{answer}");
    assert!(score(&text, weather_gt()).correct());
    // Qwen3 templates open <think> in the prompt: only the closing tag is seen.
    assert!(score(&format!("maybe {draft}</think>{answer}"), weather_gt()).correct());
    // An unclosed <think> hides what follows.
    assert_eq!(
        score(&format!("<think>{answer}"), weather_gt()).verdict,
        Verdict::NoCall
    );
}

#[test]
fn names_must_match() {
    let c = score(
        &hermes("get_forecast", json!({"city": "Paris"})),
        weather_gt(),
    );
    assert_eq!(c.verdict, Verdict::Mismatch);
    assert_eq!(c.calls[0].errors, ["unknown tool `get_forecast`"]);
    let c = score(&hermes("convert", json!({"amount": 1})), weather_gt());
    assert_eq!(c.calls[0].errors, ["no reference call to `convert`"]);
}

#[test]
fn required_optional_and_unknown_parameters() {
    // `city` is required by the schema.
    let c = score(&hermes("get_weather", json!({"days": 3})), weather_gt());
    assert!(c.calls[0].errors[0].contains("missing_required"), "{c:?}");
    // `days` and `unit` are optional (""), so leaving them out is fine; giving an
    // optional one a value it does not list is not.
    assert!(score(
        &hermes("get_weather", json!({"city": "Paris", "unit": "c"})),
        weather_gt()
    )
    .correct());
    let c = score(
        &hermes("get_weather", json!({"city": "Paris", "unit": "f"})),
        weather_gt(),
    );
    assert!(c.calls[0].errors[0].contains("value_error:string"), "{c:?}");
    // A parameter the schema does not declare, or the reference does not name.
    let c = score(
        &hermes("get_weather", json!({"city": "Paris", "country": "FR"})),
        weather_gt(),
    );
    assert!(c.calls[0].errors[0].contains("unexpected_param"), "{c:?}");
    let gt = json!([{"get_weather": {"city": ["Paris"]}}]);
    let c = score(
        &hermes("get_weather", json!({"city": "Paris", "days": 3})),
        gt,
    );
    assert!(c.calls[0].errors[0].contains("unexpected_param"), "{c:?}");
    // A parameter the reference needs (no "") but the schema leaves optional.
    let gt = json!([{"get_weather": {"city": ["Paris"], "days": [3]}}]);
    let c = score(&hermes("get_weather", json!({"city": "Paris"})), gt);
    assert!(c.calls[0].errors[0].contains("missing_optional"), "{c:?}");
}

#[test]
fn accepted_values_and_type_coercion() {
    let gt = json!([{"convert": {"amount": [2.5, 3.0]}}]);
    // An int is accepted where a float is declared; a float is not an int.
    assert!(score(&hermes("convert", json!({"amount": 3})), gt.clone()).correct());
    assert!(!score(&hermes("convert", json!({"amount": 2})), gt.clone()).correct());
    let c = score(&hermes("convert", json!({"amount": "3"})), gt);
    assert!(c.calls[0].errors[0].contains("type_error:simple"), "{c:?}");
    let gt = json!([{"get_weather": {"city": ["Paris"], "days": [3]}}]);
    let c = score(
        &hermes("get_weather", json!({"city": "Paris", "days": 3.0})),
        gt.clone(),
    );
    assert!(
        c.calls[0].errors[0].contains("Expected type int, got float"),
        "{c:?}"
    );
    // A boolean is not an int, as in Python's type().
    assert!(!score(
        &hermes("get_weather", json!({"city": "Paris", "days": true})),
        gt
    )
    .correct());
    // The "variable" case: the reference holds a string where an int is declared.
    let gt = json!([{"get_weather": {"city": ["Paris"], "days": ["n_days"]}}]);
    assert!(score(
        &hermes("get_weather", json!({"city": "Paris", "days": "n_days"})),
        gt
    )
    .correct());
}

#[test]
fn strings_are_standardized_like_bfcl() {
    let gt = json!([{"get_weather": {"city": ["New York, NY"]}}]);
    for city in ["new york ny", "NEW-YORK,NY", "New_York.NY"] {
        assert!(
            score(&hermes("get_weather", json!({"city": city})), gt.clone()).correct(),
            "{city}"
        );
    }
    assert!(!score(&hermes("get_weather", json!({"city": "New York City"})), gt).correct());
}

#[test]
fn lists_and_nested_dicts() {
    let call = |args| hermes("convert", args);
    let gt = json!([{"convert": {"amount": [1], "tags": [["Red", "blue"], ["green"]], "rates": ["", [0.5, 1.0]]}}]);
    assert!(score(
        &call(json!({"amount": 1, "tags": ["red", "BLUE"]})),
        gt.clone()
    )
    .correct());
    assert!(score(
        &call(json!({"amount": 1, "tags": ["green"], "rates": [0.5, 1]})),
        gt.clone()
    )
    .correct());
    // Order matters inside a list.
    assert!(!score(
        &call(json!({"amount": 1, "tags": ["blue", "red"]})),
        gt.clone()
    )
    .correct());
    let c = score(&call(json!({"amount": 1, "tags": ["red", 3]})), gt);
    assert!(c.calls[0].errors[0].contains("type_error:nested"), "{c:?}");
    let gt = json!([{"convert": {"amount": [1], "options": [{"mode": ["Fast", "quick"], "retries": [2, ""]}],
        "legs": [[{"from": ["NYC"], "to": ["LA"]}, {"from": ["LA"], "to": ["SF"]}]]}}]);
    let ok = json!({"amount": 1, "options": {"mode": "fast"},
                    "legs": [{"from": "nyc", "to": "la"}, {"from": "LA", "to": "sf"}]});
    assert!(score(&call(ok), gt.clone()).correct());
    let extra_key = json!({"amount": 1, "options": {"mode": "fast", "x": 1}});
    let c = score(&call(extra_key), gt.clone());
    assert!(
        c.calls[0].errors[0].contains("value_error:dict_key"),
        "{c:?}"
    );
    let one_leg = json!({"amount": 1, "options": {"mode": "quick", "retries": 2}, "legs": [{"from": "NYC", "to": "LA"}]});
    let c = score(&call(one_leg), gt);
    assert!(c.calls[0].errors[0].contains("list_dict_count"), "{c:?}");
}

#[test]
fn parallel_calls_match_in_any_order() {
    let gt = json!([{"get_weather": {"city": ["Paris"]}}, {"get_weather": {"city": ["Rome"]}},
                    {"convert": {"amount": [5]}}]);
    let text = [
        hermes("convert", json!({"amount": 5})),
        hermes("get_weather", json!({"city": "Rome"})),
        hermes("get_weather", json!({"city": "Paris"})),
    ]
    .concat();
    let c = score(&text, gt);
    assert!(c.correct(), "{c:?}");
    let matched: Vec<_> = c.calls.iter().map(|r| r.matched_to).collect();
    assert_eq!(matched, [Some(2), Some(1), Some(0)]);
}

#[test]
fn matching_is_maximal_not_greedy() {
    // Reference 0 accepts Paris or Rome, reference 1 only Paris. BFCL's greedy pass
    // would give the first call (Paris) to reference 0 and then fail.
    let gt =
        json!([{"get_weather": {"city": ["Paris", "Rome"]}}, {"get_weather": {"city": ["Paris"]}}]);
    let text = hermes("get_weather", json!({"city": "Paris"}))
        + &hermes("get_weather", json!({"city": "Rome"}));
    assert!(score(&text, gt).correct());
}

#[test]
fn a_wrong_call_count_is_never_correct() {
    let one = hermes("get_weather", json!({"city": "Paris"}));
    let c = score(&format!("{one}{one}"), weather_gt());
    assert_eq!(c.verdict, Verdict::WrongCount);
    assert_eq!(c.calls[0].matched_to, Some(0));
    assert_eq!(
        c.calls[1].errors,
        ["ground_truth[0]: matches, but another call took it"]
    );
    assert_eq!(score("It is sunny.", weather_gt()).verdict, Verdict::NoCall);
    // No reference call: correct only when the model calls nothing.
    assert!(score("It is sunny.", json!([])).correct());
    assert_eq!(score(&one, json!([])).verdict, Verdict::WrongCount);
}

#[test]
fn unreadable_calls_count_and_say_why() {
    let c = score(
        "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": </tool_call>",
        weather_gt(),
    );
    assert_eq!(c.verdict, Verdict::Mismatch);
    assert!(
        c.calls[0].errors[0].starts_with("invalid JSON in <tool_call>"),
        "{c:?}"
    );
    let c = score("<tool_call>{\"arguments\": {}}</tool_call>", weather_gt());
    assert_eq!(c.calls[0].errors, ["a <tool_call> needs a string `name`"]);
    let c = score("<tool_call>[1]</tool_call>", weather_gt());
    assert_eq!(c.calls[0].errors, ["a <tool_call> must hold a JSON object"]);
    let c = score(
        "<tool_call>{\"name\": \"get_weather\", \"arguments\": 3}</tool_call>",
        weather_gt(),
    );
    assert_eq!(c.calls[0].errors, ["the arguments must be a JSON object"]);
}

#[test]
fn limits_are_errors_not_hangs() {
    let long = "x".repeat(MAX_RESPONSE_BYTES + 1);
    assert_eq!(
        parse_text(&long, &tools()),
        Err(ParseError::TooLong {
            bytes: MAX_RESPONSE_BYTES + 1
        })
    );
    let many = "<tool_call>{\"name\": \"f\"}</tool_call>".repeat(MAX_CALLS + 1);
    assert_eq!(parse_text(&many, &tools()), Err(ParseError::TooManyCalls));
    let deep = format!(
        "<tool_call>{{\"name\": \"f\", \"arguments\": {}</tool_call>",
        "[".repeat(100_000)
    );
    let calls = parse_text(&deep, &tools()).unwrap();
    assert!(
        calls[0]
            .arguments
            .as_ref()
            .unwrap_err()
            .contains("recursion limit"),
        "{calls:?}"
    );
}

#[test]
fn a_reference_to_an_undeclared_tool_is_a_row_error() {
    let err = compare(&[], &truth(json!([{"nope": {}}])), &tools()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ground_truth[0]: names `nope`, which no tool declares"
    );
}

#[test]
fn several_functions_in_one_block_and_the_parameters_alias() {
    let xml = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n\
               <function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>";
    let gt = json!([{"get_weather": {"city": ["Rome"]}}, {"get_weather": {"city": ["Paris"]}}]);
    let c = score(xml, gt.clone());
    assert!(c.correct(), "{c:?}");
    assert_eq!(c.calls.len(), 2);
    let alias = r#"<tool_call>{"name": "get_weather", "parameters": {"city": "Rome"}}</tool_call>
<tool_call>{"name": "get_weather", "parameters": {"city": "Paris"}}</tool_call>"#;
    assert!(score(alias, gt).correct());
}
