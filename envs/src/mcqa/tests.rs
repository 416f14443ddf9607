use super::*;
use crate::{EnvConfig, Registry};
use serde_json::json;

fn sample(value: Value) -> Sample {
    Sample::new(value)
}

fn gym_row(response: &str) -> Value {
    json!({
        "id": "q1",
        "responses_create_params": {"input": [{"role": "user", "content": "Which is a noble gas?\nA: Neon\nB: Sodium"}]},
        "options": [{"A": "Neon"}, {"B": "Sodium"}],
        "expected_answer": "A",
        "response": response,
    })
}

fn env(pairs: &[&str]) -> McqaEnv {
    McqaEnv::new(
        EnvConfig::from_pairs(pairs.iter().copied())
            .unwrap()
            .parse("mcqa")
            .unwrap(),
    )
}

#[test]
fn gym_rows_keep_their_prompt() {
    let msgs = McqaEnv::default().prompt(&sample(gym_row(""))).unwrap();
    assert_eq!(
        msgs,
        vec![ChatMessage::user(
            "Which is a noble gas?\nA: Neon\nB: Sodium"
        )]
    );
}

#[test]
fn cascade_rows_render_question_options_and_the_modes_instruction() {
    let row =
        sample(json!({"prompt": "Which is a noble gas?", "options": {"A": "Neon", "B": "Sodium"}}));
    let msgs = McqaEnv::default().prompt(&row).unwrap();
    assert_eq!(
        msgs[0].content,
        format!(
            "Which is a noble gas?\n\nA: Neon\nB: Sodium\n\n{}",
            instruction(GradingMode::StrictSingleLetterBoxed)
        )
    );
    let colon = sample(
        json!({"question": "Q?", "options": [{"A": "x"}], "grading_mode": "lenient_answer_colon"}),
    );
    assert!(McqaEnv::default().prompt(&colon).unwrap()[0]
        .content
        .ends_with("\"Answer: X\", where X is the letter of the correct option."));
    let system = env(&["system_prompt=Be brief.", "grading_mode=lenient_boxed"]);
    let msgs = system.prompt(&colon).unwrap();
    assert_eq!(msgs[0], ChatMessage::system("Be brief."));
    assert!(msgs[1].content.contains("or its text"));
    let err = McqaEnv::default()
        .prompt(&sample(json!({"prompt": "Q?"})))
        .unwrap_err();
    assert_eq!(err, FieldError::Missing("options".into()));
    assert!(McqaEnv::default()
        .prompt(&sample(json!({"prompt": "Q?", "options": [3]})))
        .is_err());
}

#[test]
fn thinking_mode_responses() {
    let score = |r: &str| McqaEnv::default().score(&sample(gym_row(r)));
    // Candidates inside closed thinking are not read.
    assert_eq!(score("<think>\\boxed{A}</think>So \\boxed{B}.").score, 0.0);
    assert_eq!(
        score("<think>\\boxed{B}</think>So \\boxed{A}.<|im_end|>").score,
        1.0
    );
    // Unclosed: no final answer, an error.
    let cut = score("<think>So \\boxed{A}");
    assert_eq!(cut.score, 0.0);
    assert!(
        cut.error_message().unwrap().contains("truncated"),
        "{cut:?}"
    );
}

#[test]
fn scores_with_details() {
    let r = McqaEnv::default().score(&sample(gym_row("<think>\\boxed{B}?</think>So \\boxed{A}.")));
    assert_eq!(r.score, 1.0);
    assert_eq!(
        Value::Object(r.details),
        json!({"extracted": "A", "expected": "A", "mode": "strict_single_letter_boxed", "verdict": "correct"})
    );
    let r = McqaEnv::default().score(&sample(gym_row("\\boxed{B}")));
    assert_eq!(
        (r.score, r.details["verdict"].as_str()),
        (0.0, Some("wrong"))
    );
    let r = McqaEnv::default().score(&sample(gym_row("Answer: A")));
    assert_eq!(r.details["extracted"], Value::Null);
    assert_eq!(r.details["reason"], "no \\boxed{} answer");
    assert_eq!(r.outcome(), "no_answer");
}

#[test]
fn config_mode_overrides_the_rows_as_in_gym() {
    let mut row = gym_row("Answer: A");
    row["grading_mode"] = json!("lenient_answer_colon");
    assert_eq!(McqaEnv::default().score(&sample(row.clone())).score, 1.0);
    let strict = env(&["grading_mode=strict_single_letter_boxed"]).score(&sample(row.clone()));
    assert_eq!(
        (strict.score, strict.details["mode"].as_str()),
        (0.0, Some("strict_single_letter_boxed"))
    );
    let md =
        env(&["grading_mode=lenient_answer_colon_md"]).score(&sample(gym_row("**Answer:** A")));
    assert_eq!(
        (md.score, md.details["mode"].as_str()),
        (1.0, Some("lenient_answer_colon_md"))
    );
    // Gym's plain colon mode compares the whole rest of the line: markdown is no answer.
    let plain =
        env(&["grading_mode=lenient_answer_colon"]).score(&sample(gym_row("**Answer:** A")));
    assert_eq!(plain.score, 0.0);
    // The md mode also reads the row's `answer_prefix`.
    let mut prefixed = gym_row("The correct option is A.");
    prefixed["template_metadata"] = json!({"answer_prefix": "The correct option is"});
    prefixed["grading_mode"] = json!("lenient_answer_colon_md");
    assert_eq!(McqaEnv::default().score(&sample(prefixed)).score, 1.0);
}

#[test]
fn malformed_rows_are_named() {
    let cases = [
        (json!({"options": "A, B"}), "field `options` must be an array of one-key objects or an object, found a string"),
        (json!({"options": [{"AB": "x"}]}), "field `options[0].AB` must be a single letter A-Z, found \"AB\""),
        (json!({"options": [{"A": 1}]}), "field `options[0].A` must be a string, found a number"),
        (json!({"options": [{"A": "x"}, {"a": "y"}]}), "field `options`: option letter A appears twice"),
        (json!({"options": [{"A": null}]}), "field `options`: no option is defined"),
        (json!({"expected_answer": "E"}), "expected answer E is not one of the options (A, B)"),
        (json!({"expected_answer": 0}), "field `expected_answer` must be a string, found a number"),
        (json!({"expected_answer": "AB"}), "field `expected_answer` must be a single letter A-Z, found \"AB\""),
        (json!({"grading_mode": "loose"}), "field `grading_mode` must be strict_single_letter_boxed, lenient_boxed or lenient_answer_colon, found \"loose\""),
        (json!({"response": null}), "field `response` must be a string, found null"),
    ];
    for (patch, message) in cases {
        let mut row = gym_row("\\boxed{A}");
        for (k, v) in patch.as_object().unwrap() {
            row[k] = v.clone();
        }
        let r = McqaEnv::default().score(&sample(row));
        assert_eq!((r.score, r.error_message()), (0.0, Some(message)));
        assert_eq!(r.details["extracted"], Value::Null);
    }
    let mut no_gold = gym_row("\\boxed{A}");
    no_gold.as_object_mut().unwrap().remove("expected_answer");
    assert_eq!(
        McqaEnv::default().score(&sample(no_gold)).error_message(),
        Some("missing field `expected_answer`")
    );
}

#[test]
fn cascade_layout_reads_answer_and_lowercase_gold() {
    let row = json!({"id": "c", "prompt": "Q?", "options": {"a": "x", "b": "y"}, "answer": " b ", "response": "\\boxed{B}"});
    let r = McqaEnv::default().score(&sample(row));
    assert_eq!((r.score, r.details["expected"].as_str()), (1.0, Some("B")));
}

#[test]
fn registered_and_config_is_checked() {
    let registry = Registry::discover().unwrap();
    assert!(registry.contains("mcqa"));
    for bad in ["grading_mode=loose", "colour=red"] {
        assert!(
            registry
                .create("mcqa", &EnvConfig::from_pairs([bad]).unwrap())
                .is_err(),
            "{bad}"
        );
    }
    let env = registry
        .create(
            "mcqa",
            &EnvConfig::from_pairs(["grading_mode=lenient_boxed"]).unwrap(),
        )
        .unwrap();
    assert_eq!(env.score(&sample(gym_row("\\boxed{neon}"))).score, 1.0);
}

#[test]
fn template_patterns_are_read_first() {
    let mut row = gym_row("Thinking... Option Selected: a");
    row["template_metadata"] =
        json!({"template_id": "t", "output_regex": "Option Selected:\\s*([A-Za-z])"});
    let r = McqaEnv::default().score(&sample(row.clone()));
    assert_eq!(
        (r.score, r.details["extracted_by"].as_str()),
        (1.0, Some("output_regex"))
    );
    row["template_metadata"]["output_regex"] =
        json!(["(unclosed", "Option Selected:\\s*([A-Za-z])"]);
    let r = McqaEnv::default().score(&sample(row.clone()));
    assert_eq!(r.score, 1.0);
    assert!(r.details["output_regex_error"]
        .as_str()
        .unwrap()
        .starts_with("output_regex does not compile"));
    row["template_metadata"]["output_regex"] = json!(3);
    let r = McqaEnv::default().score(&sample(row));
    assert_eq!(
        r.error_message(),
        Some("field `template_metadata.output_regex` must be a string or an array of strings, found a number")
    );
}

#[test]
fn pattern_cache_compiles_each_pattern_once() {
    let cache = PatternCache::default();
    let first = cache.get("Choice: (.)").unwrap();
    let again = cache.clone().get("Choice: (.)").unwrap();
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    assert!(cache.get("(").is_err());
}

/// verl's RL layout: chat `prompt`, the letter in `reward_model.ground_truth`, the
/// options beside it (or in an object ground truth).
#[test]
fn verl_rows_read_the_prompt_and_the_ground_truth_letter() {
    let row = |truth: Value, response: &str| {
        sample(json!({
            "data_source": "mmlu",
            "prompt": [{"role": "user", "content": "Which is a noble gas?\nA: Neon\nB: Sodium"}],
            "reward_model": {"style": "rule", "ground_truth": truth},
            "extra_info": {"split": "test", "index": 4},
            "options": [{"A": "Neon"}, {"B": "Sodium"}],
            "response": response,
        }))
    };
    let env = McqaEnv::default();
    let right = row(json!("A"), "\\boxed{A}");
    assert_eq!(
        env.prompt(&right).unwrap(),
        [ChatMessage::user(
            "Which is a noble gas?\nA: Neon\nB: Sodium"
        )]
    );
    assert_eq!(env.score(&right).score, 1.0);
    let wrong = env.score(&row(json!("A"), "\\boxed{B}"));
    assert_eq!(
        (wrong.score, &wrong.details["expected"]),
        (0.0, &json!("A"))
    );
    let fields = json!({"expected_answer": "B", "options": {"A": "Neon", "B": "Sodium"}});
    let mut bare = row(fields, "\\boxed{B}").value().clone();
    bare.as_object_mut().unwrap().remove("options");
    assert_eq!(env.score(&sample(bare)).score, 1.0);
}
