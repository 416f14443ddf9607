//! The `mcqa` environment on hostile input: malformed rows, huge and deeply nested
//! input, and a property over arbitrary responses and rows (never a panic, reward 0 or
//! 1, the same bytes on every run, a reward of 1 only for the expected letter).

use cascade_envs::mcqa::McqaEnv;
use cascade_envs::{Environment, Reward, Sample};
use proptest::prelude::*;
use serde_json::{json, Value};

fn row(response: &str) -> Value {
    json!({
        "id": "t",
        "responses_create_params": {"input": [{"role": "user", "content": "Pick one.\nA: x\nB: y\nC: z\nD: w"}]},
        "options": [{"A": "x"}, {"B": "y"}, {"C": "z"}, {"D": "w"}],
        "expected_answer": "C",
        "response": response,
    })
}

fn score(value: Value) -> Reward {
    McqaEnv::default().score(&Sample::new(value))
}

#[test]
fn ten_megabyte_responses_are_read_from_their_end() {
    let filler = "Consider option A and option B. ".repeat(10 * 1024 * 1024 / 32);
    let late = score(row(&format!("{filler}\\boxed{{C}}")));
    assert_eq!(late.score, 1.0);
    assert!(late.details["capped"]
        .as_str()
        .unwrap()
        .contains("only its end was read"));
    let early = score(row(&format!("\\boxed{{C}}{filler}")));
    assert_eq!(
        (early.score, early.details["reason"].as_str()),
        (0.0, Some("no \\boxed{} answer"))
    );
    let braces = score(row(&format!("{}\\boxed{{C}}", "{".repeat(10 << 20))));
    assert_eq!(braces.score, 1.0);
    let unclosed = score(row(&"\\boxed{".repeat(1 << 20)));
    assert_eq!(
        unclosed.details["reason"],
        "the last \\boxed{ does not close"
    );
    let thinking = score(row(&"<think>".repeat(1 << 20)));
    assert!(thinking.details["reason"]
        .as_str()
        .unwrap()
        .starts_with("truncated"));
    let answers = score(row(&"Answer: ".repeat(1 << 20)));
    assert_eq!(answers.details["verdict"], "no_answer");
}

#[test]
fn huge_and_nested_rows_are_errors_not_crashes() {
    let mut nested = json!("x");
    for _ in 0..1000 {
        nested = json!([nested]);
    }
    let mut deep = row("\\boxed{C}");
    deep["options"] = nested;
    assert_eq!(
        score(deep).error_message(),
        Some("field `options[0]` must be an object such as {\"A\": \"text\"}, found an array")
    );
    // 100k `[` never reaches the env: the line is not JSON within serde's depth limit.
    assert!(Sample::from_json_line(&"[".repeat(100_000)).is_err());
    let mut long_key = row("\\boxed{C}");
    long_key["options"] = json!({ "Q".repeat(1 << 20): "x" });
    let message = score(long_key).error_message().unwrap().to_owned();
    assert!(message.len() < 200, "{message}");
    let mut long_text = row("\\boxed{C}");
    long_text["options"][2] = json!({"C": "z".repeat(10 << 20)});
    assert_eq!(score(long_text).score, 1.0);
    let mut long_mode = row("\\boxed{C}");
    long_mode["grading_mode"] = json!("m".repeat(10 << 20));
    assert!(score(long_mode).error_message().unwrap().len() < 200);
}

#[test]
fn wrong_types_and_missing_fields_name_the_field() {
    for (field, value, message) in [
        (
            "options",
            json!(7),
            "field `options` must be an array of one-key objects or an object, found a number",
        ),
        (
            "options",
            json!([]),
            "field `options`: no option is defined",
        ),
        (
            "expected_answer",
            json!(true),
            "field `expected_answer` must be a string, found a boolean",
        ),
        (
            "expected_answer",
            json!(""),
            "field `expected_answer` must be a single letter A-Z, found \"\"",
        ),
        (
            "grading_mode",
            json!(["lenient_boxed"]),
            "field `grading_mode` must be a string, found an array",
        ),
        (
            "id",
            json!(3.5),
            "field `id` must be a string, an integer or absent, found a number",
        ),
        (
            "response",
            json!({"output_text": "x"}),
            "field `response` must be a string, found an object",
        ),
    ] {
        let mut bad = row("\\boxed{C}");
        bad[field] = value;
        let r = score(bad);
        assert_eq!(
            (r.score, r.error_message()),
            (0.0, Some(message)),
            "{field}"
        );
    }
    let mut no_options = row("\\boxed{C}");
    no_options.as_object_mut().unwrap().remove("options");
    assert_eq!(
        score(no_options).error_message(),
        Some("missing field `options`")
    );
    assert_eq!(score(json!(["not", "an", "object"])).score, 0.0);
}

/// Pieces models write, so that random responses hit the parsers' paths.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\\boxed{".to_owned()),
        Just("\\fbox{".to_owned()),
        Just("}".to_owned()),
        Just("{".to_owned()),
        Just("\\text{".to_owned()),
        Just("\\textbf{(".to_owned()),
        Just(")".to_owned()),
        Just("<think>".to_owned()),
        Just("</think>".to_owned()),
        Just("Answer:".to_owned()),
        Just("**".to_owned()),
        Just(" or ".to_owned()),
        Just("\n".to_owned()),
        Just("$".to_owned()),
        Just("\\".to_owned()),
        "[A-Fa-f]",
        "[A-D][).:] [xyzw]",
        "[xyzw ]{0,6}",
        any::<String>(),
    ]
}

fn response() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..24).prop_map(|parts| parts.concat())
}

/// Arbitrary JSON, a few levels deep, for the task fields.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[A-Ea-e]{0,2}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[A-Ea-e]{1,2}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn mode() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!("strict_single_letter_boxed")),
        Just(json!("lenient_boxed")),
        Just(json!("lenient_answer_colon")),
        Just(json!("lenient_answer_colon_md")),
    ]
}

/// `template_metadata`: arbitrary JSON, or a random pattern.
fn template() -> impl Strategy<Value = Value> {
    prop_oneof![
        json_value(),
        r"[A-Da-d:()\\s*+?|\[\]{}.^$]{0,12}".prop_map(|p| json!({"output_regex": p})),
        r"[A-Da-z :*(]{0,12}".prop_map(|p| json!({"answer_prefix": p})),
    ]
}

fn check(sample: &Sample) -> Result<Reward, TestCaseError> {
    let env = McqaEnv::default();
    let reward = env.score(sample);
    prop_assert!(reward.score == 0.0 || reward.score == 1.0);
    let again = env.score(sample);
    prop_assert_eq!(
        serde_json::to_vec(&reward).unwrap(),
        serde_json::to_vec(&again).unwrap()
    );
    Ok(reward)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_response_scores_0_or_1_deterministically(text in response(), mode in mode(), gold in "[A-D]") {
        let mut value = row(&text);
        value["grading_mode"] = mode;
        value["expected_answer"] = json!(gold.clone());
        value["template_metadata"] = json!({"output_regex": ["Option:\\s*([A-D])", "(?i)final: (.)"]});
        let reward = check(&Sample::new(value))?;
        // The only error a well-formed row can get: a response cut off inside `<think>`.
        prop_assert!(reward.error_message().is_none_or(|e| e.starts_with("truncated")));
        if reward.score == 1.0 {
            prop_assert_eq!(reward.details["extracted"].as_str(), Some(gold.as_str()));
        }
    }

    #[test]
    fn any_row_scores_0_or_1_deterministically(
        options in json_value(), gold in json_value(), mode in json_value(), text in response(),
        template in template(),
    ) {
        let value = json!({
            "id": "p", "options": options, "expected_answer": gold, "grading_mode": mode,
            "template_metadata": template, "response": text,
        });
        let sample = Sample::new(value);
        check(&sample)?;
        let _ = McqaEnv::default().prompt(&sample);
    }
}

#[test]
fn bundled_train_and_eval_rows_prompt_and_their_solutions_score_1() {
    let env = McqaEnv::default();
    for split in ["train", "eval"] {
        let path = cascade_datasets::bundled_dir().join(format!("mcqa/{split}.jsonl"));
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let mut row: Value = serde_json::from_str(line).unwrap();
            let prompt = env.prompt(&Sample::new(row.clone())).unwrap();
            assert!(prompt[0].content.contains("\\boxed{}"), "{split}: {line}");
            row["response"] = row["solution"].clone();
            let reward = env.score(&Sample::new(row));
            assert_eq!(reward.score, 1.0, "{split}: {line}");
        }
    }
}
