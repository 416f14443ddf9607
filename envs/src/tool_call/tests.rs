use serde_json::{json, Value};

use super::*;
use crate::{EnvConfig, Registry};

fn weather_tool() -> Value {
    json!({"type": "function", "name": "get_weather", "description": "Current weather",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"},
           "days": {"type": "integer", "default": 1}}, "required": ["city"]}, "strict": false})
}

fn gym_row(extra: Value) -> Value {
    let mut row = json!({"id": "a", "responses_create_params": {
        "input": [{"role": "user", "content": "Weather in Paris?"}], "tools": [weather_tool()]}});
    for (k, v) in extra.as_object().unwrap() {
        row[k] = v.clone();
    }
    row
}

fn score(row: Value) -> Reward {
    ToolCallEnv::default().score(&Sample::new(row))
}

const PARIS: &str =
    r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>"#;

#[test]
fn prompt_describes_the_tools_in_the_system_message() {
    let env = ToolCallEnv::default();
    let msgs = env.prompt(&Sample::new(gym_row(json!({})))).unwrap();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0].role, "system");
    assert!(
        msgs[0]
            .content
            .contains(r#"{"function":{"description":"Current weather","name":"get_weather""#),
        "{}",
        msgs[0].content
    );
    assert!(msgs[0].content.ends_with("</tool_call>"));
    assert_eq!(msgs[1], ChatMessage::user("Weather in Paris?"));
    // Cascade layout: `prompt` and `tools`; a leading system message gets the section.
    let config = ToolCallConfig {
        call_style: CallStyle::Qwen3Coder,
        system_prompt: Some("Be exact.".into()),
        ..Default::default()
    };
    let row = json!({"id": "b", "prompt": "Weather?", "tools": [weather_tool()]});
    let msgs = ToolCallEnv::new(config)
        .prompt(&Sample::new(row.clone()))
        .unwrap();
    assert!(msgs[0].content.starts_with("Be exact.\n\n# Tools"));
    assert!(msgs[0].content.contains("<function=example_function_name>"));
    let bare = ToolCallConfig {
        no_tools_in_prompt: true,
        ..Default::default()
    };
    assert_eq!(
        ToolCallEnv::new(bare).prompt(&Sample::new(row)).unwrap(),
        vec![ChatMessage::user("Weather?")]
    );
    let err = env
        .prompt(&Sample::new(json!({"id": "c", "prompt": "x"})))
        .unwrap_err();
    assert_eq!(err, FieldError::Missing("tools".into()));
}

#[test]
fn scores_a_gym_row_with_bfcl_ground_truth() {
    let gt = json!([{"get_weather": {"city": ["Paris"], "days": ["", 1]}}]);
    let r = score(gym_row(json!({"ground_truth": gt, "response": PARIS})));
    assert_eq!(r.score, 1.0, "{r:?}");
    assert_eq!(r.details["verdict"], "correct");
    assert_eq!(r.details["source"], "response");
    assert_eq!(r.details["reference"], "ground_truth");
    assert_eq!(
        r.details["calls"],
        json!([{"name": "get_weather", "format": "hermes", "matched_to": 0, "errors": []}])
    );
    // ground_truth as a JSON string, as some exports store it.
    let r = score(gym_row(
        json!({"ground_truth": gt.to_string(), "response": PARIS}),
    ));
    assert_eq!(r.score, 1.0);
    let r = score(gym_row(
        json!({"ground_truth": gt, "response": "Sunny, I think."}),
    ));
    assert_eq!(
        (r.score, r.details["verdict"].as_str()),
        (0.0, Some("no_call"))
    );
}

#[test]
fn thinking_mode_responses() {
    let gt = json!([{"get_weather": {"city": ["Paris"], "days": ["", 1]}}]);
    let london =
        r#"<tool_call>{"name": "get_weather", "arguments": {"city": "London"}}</tool_call>"#;
    let row = |response: String| gym_row(json!({"ground_truth": gt, "response": response}));
    // A call drafted inside closed thinking is not read; the one after it is.
    assert_eq!(
        score(row(format!("<think>{london}</think>{PARIS}"))).score,
        1.0
    );
    assert_eq!(
        score(row(format!("<think>{PARIS}</think>{london}"))).score,
        0.0
    );
    let cut = score(row(format!("<think>so {PARIS}")));
    assert_eq!(cut.score, 0.0);
    assert!(
        cut.error_message().unwrap().contains("truncated"),
        "{cut:?}"
    );
}

#[test]
fn reads_gym_references_unchanged() {
    // xlam_fc: other declared parameters may be left out or given their default.
    let answers = json!([{"name": "get_weather", "arguments": {"city": "Paris"}}]);
    let with_default = r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 1}}</tool_call>"#;
    for response in [PARIS, with_default] {
        let r = score(gym_row(
            json!({"expected_answers": answers, "response": response}),
        ));
        assert_eq!(r.score, 1.0, "{r:?}");
        assert_eq!(r.details["reference"], "expected_answers");
    }
    // single_step_tool_use: exactly the expected arguments; a message when one is expected.
    let action = json!({"type": "function_call", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"});
    assert_eq!(
        score(gym_row(
            json!({"expected_action": action, "response": PARIS})
        ))
        .score,
        1.0
    );
    let r = score(gym_row(
        json!({"expected_action": action, "response": with_default}),
    ));
    assert_eq!(r.score, 0.0);
    let message = json!({"type": "message", "content": "Which city?"});
    assert_eq!(
        score(gym_row(
            json!({"expected_action": message, "response": "Which city?"})
        ))
        .score,
        1.0
    );
    assert_eq!(
        score(gym_row(
            json!({"expected_action": message, "response": PARIS})
        ))
        .score,
        0.0
    );
}

#[test]
fn function_call_items_from_the_server_come_first() {
    let gt = json!([{"get_weather": {"city": ["Rome"]}}]);
    let output = json!([{"type": "function_call", "name": "get_weather", "arguments": "{\"city\":\"Rome\"}", "call_id": "c"}]);
    let r = score(gym_row(
        json!({"ground_truth": gt, "response": PARIS, "response_output": output}),
    ));
    assert_eq!(r.score, 1.0, "{r:?}");
    assert_eq!(r.details["source"], "response_output");
    assert_eq!(r.details["calls"][0]["format"], "function_call_item");
    // Output items without a call: the text is read.
    let output = json!([{"type": "message", "role": "assistant", "content": []}]);
    let r = score(gym_row(
        json!({"ground_truth": gt, "response": PARIS, "response_output": output}),
    ));
    assert_eq!(r.details["source"], "response");
    assert_eq!(r.score, 0.0);
}

#[test]
fn malformed_rows_are_errors_naming_the_field() {
    let cases = [
        (
            json!({"id": "a", "response": PARIS, "ground_truth": []}),
            "missing field `tools`",
        ),
        (
            gym_row(json!({"response": PARIS})),
            "missing field `ground_truth`",
        ),
        (
            json!({"id": "a", "response": PARIS, "tools": {}, "ground_truth": []}),
            "field `tools` must be an array of function tools, found an object",
        ),
        (
            gym_row(json!({"response": PARIS, "ground_truth": [{"get_forecast": {}}]})),
            "ground_truth[0]: names `get_forecast`, which no tool declares",
        ),
        (
            gym_row(
                json!({"response": PARIS, "ground_truth": [{"get_weather": {"city": "Paris"}}]}),
            ),
            "ground_truth[0].get_weather.city: must be a list of accepted values",
        ),
        (
            json!({"id": "a", "response": PARIS, "tools": [{"type": "function", "parameters": {}}], "ground_truth": []}),
            "tools[0]: a function needs a string `name`",
        ),
        (
            gym_row(json!({"response": PARIS, "expected_action": {"type": "noop"}})),
            "expected_action.type: must be \"function_call\" or \"message\"",
        ),
        (
            gym_row(json!({"response": 3, "ground_truth": []})),
            "field `response` must be a string, found a number",
        ),
    ];
    for (row, message) in cases {
        let r = score(row);
        assert_eq!((r.score, r.error_message()), (0.0, Some(message)));
    }
}

#[test]
fn registered_with_a_typed_config() {
    let registry = Registry::discover().unwrap();
    let config = EnvConfig::from_pairs(["call_style=qwen3_coder"]).unwrap();
    assert!(registry.create("tool_call", &config).is_ok());
    let bad = EnvConfig::from_pairs(["call_style=json"]).unwrap();
    assert!(registry.create("tool_call", &bad).is_err());
}

/// xlam_fc and single_step rows whose arguments are a dict or a list of dicts: the
/// exact expected call scores 1 (it used to get "Expected one of []"), another does not.
#[test]
fn dict_and_list_of_dict_arguments_match_exactly() {
    let tool = json!({"type": "function", "name": "book", "parameters": {"type": "object",
        "properties": {"guest": {"type": "object"}, "rooms": {"type": "array", "items": {"type": "object"}}},
        "required": ["guest"]}});
    let args = json!({"guest": {"name": "Ada", "age": 36}, "rooms": [{"beds": 2}, {"beds": 1, "view": "sea"}]});
    let call = |a: &Value| {
        format!(
            "<tool_call>{}</tool_call>",
            json!({"name": "book", "arguments": a})
        )
    };
    let mut other = args.clone();
    other["rooms"][1]["view"] = json!("city");
    let references = [
        json!({"expected_answers": [{"name": "book", "arguments": args.to_string()}]}),
        json!({"expected_action": {"type": "function_call", "name": "book", "arguments": args}}),
    ];
    for reference in references {
        let mut row = json!({"id": "d", "tools": [tool.clone()], "prompt": "Book."});
        for (k, v) in reference.as_object().unwrap() {
            row[k] = v.clone();
        }
        row["response"] = json!(call(&args));
        let r = score(row.clone());
        assert_eq!(r.score, 1.0, "{:?}", r.details);
        row["response"] = json!(call(&other));
        assert_eq!(score(row).score, 0.0);
    }
}
