use super::*;
use crate::{EnvConfig, Registry};
use serde_json::json;

fn row(task: &str, answer: Value, response: &str) -> Sample {
    Sample::new(json!({
        "id": "lc-1",
        "task": task,
        "responses_create_params": {"input": [{"role": "user", "content": "…haystack… q=?"}]},
        "expected_answer": answer,
        "token_length": 120,
        "response": response,
    }))
}

fn env(pairs: &[&str]) -> LongContextEnv {
    LongContextEnv::new(
        EnvConfig::from_pairs(pairs.iter().copied())
            .unwrap()
            .parse("long_context")
            .unwrap(),
    )
}

#[test]
fn needles_and_variables_score_the_jaccard_of_what_is_named() {
    let e = LongContextEnv::default();
    let r = e.score(&row("niah_single", json!(["37"]), "37"));
    assert_eq!((r.score, r.outcome()), (1.0, "correct".into()));
    assert_eq!(r.details["match"], "numbers");
    assert_eq!(r.details["token_length"], 120);
    let r = e.score(&row("niah_multivalue", json!(["12", "7"]), "7, 12, 99"));
    assert!((r.score - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(r.details["extra"], json!(["99"]));
    let r = e.score(&row(
        "variable_tracking",
        json!(["QWERT", "ASDFG"]),
        "QWERT",
    ));
    assert_eq!((r.score, r.outcome()), (0.5, "partial".into()));
    assert_eq!(
        e.score(&row("niah_multikey", json!(["4512"]), ""))
            .outcome(),
        "wrong"
    );
}

#[test]
fn graphs_score_the_f1_of_the_final_answer() {
    let e = LongContextEnv::default();
    let r = e.score(&row(
        "graph_bfs",
        json!(["a1", "b2"]),
        "Final Answer: [a1, b2]",
    ));
    assert_eq!(r.score, 1.0);
    let r = e.score(&row(
        "graph_parents",
        json!(["a1", "b2"]),
        "Final Answer: [a1]",
    ));
    assert!((r.score - 2.0 / 3.0).abs() < 1e-12);
    let r = e.score(&row("graph_parents", json!(["a1"]), "a1"));
    assert_eq!((r.score, r.outcome()), (0.0, "no_answer".into()));
    assert_eq!(r.details["predicted_nodes"], Value::Null);
}

#[test]
fn gym_graphwalks_and_mrcr_rows_are_read_unchanged() {
    let e = LongContextEnv::default();
    let graph = Sample::new(json!({
        "id": "g", "responses_create_params": {"input": "edges…"},
        "expected_answer": "[\"a1\", \"b2\"]", "problem_type": "bfs", "n_tokens": 900,
        "response": "Final Answer: [b2, a1]",
    }));
    let r = e.score(&graph);
    assert_eq!(
        (
            r.score,
            r.details["task"].clone(),
            r.details["token_length"].clone()
        ),
        (1.0, json!("graph_bfs"), json!(900))
    );
    let mrcr = Sample::new(json!({
        "id": "m", "responses_create_params": {"input": "chat…"},
        "expected_answer": "XYabcd", "random_string_to_prepend": "XY",
        "response": "XYbcde",
    }));
    let r = e.score(&mrcr);
    assert_eq!(
        (r.score, r.details["prefix_matched"].clone()),
        (0.75, json!(true))
    );
    let mut no_prefix = mrcr.value().clone();
    no_prefix["response"] = json!("abcd");
    let r = e.score(&Sample::new(no_prefix));
    assert_eq!((r.score, r.outcome()), (0.0, "no_answer".into()));
}

#[test]
fn only_the_final_answer_is_graded() {
    let e = LongContextEnv::default();
    // An answer written only inside the thinking is no answer.
    let r = e.score(&row(
        "niah_single",
        json!(["37"]),
        "<think>It is 37.</think>I am not sure.",
    ));
    assert_eq!(r.score, 0.0);
    // A correct final answer after reasoning that names other candidates is correct.
    let r = e.score(&row(
        "niah_single",
        json!(["37"]),
        "<think>12? 45? 37.</think>\n37",
    ));
    assert_eq!(r.score, 1.0);
    let r = e.score(&row(
        "graph_bfs",
        json!(["a1"]),
        "<think>Final Answer: [b2]</think>Final Answer: [a1]",
    ));
    assert_eq!(r.score, 1.0);
    // Cut off while thinking: an error.
    let cut = e.score(&row("niah_single", json!(["37"]), "<think>It is 37."));
    assert_eq!(cut.score, 0.0);
    assert!(
        cut.error_message().unwrap().contains("truncated"),
        "{cut:?}"
    );
    // MRCR: the prefix is checked at the start of the final answer.
    let mrcr = Sample::new(json!({
        "id": "m", "responses_create_params": {"input": "chat…"},
        "expected_answer": "XYabcd", "random_string_to_prepend": "XY",
        "response": "<think>The prefix is XY.</think>\n\nXYabcd",
    }));
    assert_eq!(e.score(&mrcr).score, 1.0);
}

#[test]
fn rows_over_the_context_are_refused_naming_the_row_and_both_lengths() {
    let e = env(&["max_context_tokens=100"]);
    let sample = row("niah_single", json!(["37"]), "37");
    let r = e.score(&sample);
    assert_eq!(r.score, 0.0);
    let error = r.error_message().unwrap();
    assert!(
        error.contains("\"lc-1\"") && error.contains("120") && error.contains("100"),
        "{error}"
    );
    let prompt_error = e.prompt(&sample).unwrap_err().to_string();
    assert!(
        prompt_error.contains("\"lc-1\"") && prompt_error.contains("never truncated"),
        "{prompt_error}"
    );
    // At the limit is fine.
    assert_eq!(env(&["max_context_tokens=120"]).score(&sample).score, 1.0);
    assert_eq!(
        env(&["max_context_tokens=120"])
            .prompt(&sample)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn malformed_rows_and_long_responses_score_zero_with_a_reason() {
    let e = LongContextEnv::default();
    let cases = [
        (row("niah_single", json!([]), "37"), "at least one"),
        (row("niah_single", json!([37]), "37"), "expected_answer[]"),
        (row("haystack", json!(["37"]), "37"), "must be one of"),
        (row("mrcr", json!("XYa"), "XYa"), "random_string_to_prepend"),
    ];
    for (sample, needle) in cases {
        let r = e.score(&sample);
        assert_eq!(r.score, 0.0);
        assert!(
            r.error_message().unwrap().contains(needle),
            "{:?}",
            r.details
        );
    }
    let mut no_task = row("niah_single", json!(["37"]), "37").value().clone();
    no_task.as_object_mut().unwrap().remove("task");
    assert!(e
        .score(&Sample::new(no_task))
        .error_message()
        .unwrap()
        .contains("missing field `task`"));
    let mut bad_length = row("niah_single", json!(["37"]), "37").value().clone();
    bad_length["token_length"] = json!(-3);
    assert!(e
        .score(&Sample::new(bad_length))
        .error_message()
        .unwrap()
        .contains("token_length"));
    let long = "7 ".repeat(MAX_RESPONSE_BYTES);
    let r = e.score(&row("niah_single", json!(["7"]), &long));
    assert_eq!((r.score, r.outcome()), (0.0, "too_long".into()));
    let huge = format!("XY{}", "a".repeat(20_000));
    let mut mrcr = row("mrcr", json!("XYa"), &huge).value().clone();
    mrcr["random_string_to_prepend"] = json!("XY");
    let r = e.score(&Sample::new(mrcr));
    assert_eq!((r.score, r.outcome()), (0.0, "too_long".into()));
}

#[test]
fn registered_with_a_typed_config() {
    let registry = Registry::discover().unwrap();
    assert!(registry.names().any(|n| n == "long_context"));
    let err = EnvConfig::from_pairs(["max_context=5"])
        .unwrap()
        .parse::<LongContextConfig>("long_context")
        .unwrap_err();
    assert!(err.to_string().contains("max_context"), "{err}");
}

/// A haystack of filler sentences (no other number, no capitalised word) with
/// `needles` inserted through it: the case where RULER's metric pays an echo.
fn context(needles: &[String]) -> String {
    let mut text = String::new();
    for (i, needle) in needles.iter().enumerate() {
        text.push_str(&"the grass is green and the sky is blue. ".repeat(40 + i));
        text.push_str(needle);
        text.push(' ');
    }
    text.push_str(&"the grass is green and the sky is blue. ".repeat(40));
    text
}

fn retrieval_row(task: &str, expected: &[&str], needles: &[String], response: &str) -> Sample {
    let mut value = row(task, json!(expected), response).value().clone();
    value["responses_create_params"]["input"][0]["content"] = json!(context(needles));
    Sample::new(value)
}

/// Echo, partial echo and list-every-candidate answers of every retrieval task kind
/// score 0 (or are paid down); a plain, even verbose, answer is still paid in full.
#[test]
fn echo_never_pays_on_any_retrieval_task() {
    let e = LongContextEnv::default();
    let cases: [(&str, Vec<&str>, Vec<String>); 5] = [
        (
            "niah_single",
            vec!["7264819"],
            vec!["the magic number is 7264819.".into()],
        ),
        (
            "niah_multikey",
            vec!["5531"],
            vec!["the number for key k2 is 5531.".into()],
        ),
        (
            "niah_multivalue",
            vec!["111", "222", "333"],
            ["111", "222", "333"]
                .map(|v| format!("a value for k is {v}."))
                .to_vec(),
        ),
        (
            "niah_multiquery",
            vec!["41", "42"],
            vec!["x is 41.".into(), "y is 42.".into()],
        ),
        (
            "variable_tracking",
            vec!["QWERT", "ASDFG"],
            vec!["VAR QWERT = 5.".into(), "VAR ASDFG = VAR QWERT.".into()],
        ),
    ];
    for (task, expected, needles) in cases {
        let haystack = context(&needles);
        let score = |response: &str| e.score(&retrieval_row(task, &expected, &needles, response));
        let verbose = format!(
            "Having read the whole text carefully, the answer is: {}.",
            expected.join(", ")
        );
        assert_eq!(score(&verbose).score, 1.0, "{task}: {verbose}");
        let echo = score(&haystack);
        assert_eq!(
            (echo.score, echo.outcome()),
            (0.0, "too_long".into()),
            "{task}"
        );
        assert!(echo.details["reason"]
            .as_str()
            .unwrap()
            .contains("copy of the context"));
        let half = &haystack[haystack.len() / 2..];
        assert_eq!(score(half).score, 0.0, "{task}: partial echo");
        let needles_only = needles.join(" ");
        assert!(
            score(&needles_only).score > 0.0,
            "{task}: quoting the needles is an answer"
        );
        let every: Vec<String> = match task {
            "variable_tracking" => ["QWERT", "ASDFG", "ZXCVB", "POIUY", "LKJHG"]
                .map(String::from)
                .to_vec(),
            _ => (0..200)
                .map(|n| n.to_string())
                .chain(expected.iter().map(|s| s.to_string()))
                .collect(),
        };
        let listed = score(&every.join(", "));
        assert!(
            listed.score < 0.5,
            "{task}: listing every candidate: {}",
            listed.score
        );
    }
}

/// MRCR: the prefix then a copy of the conversation scores 0; graph walks' echo has no
/// final answer on its last line, and listing every node is paid down by F1.
#[test]
fn echo_never_pays_on_mrcr_or_graphs() {
    let e = LongContextEnv::default();
    let conversation =
        "User: write a poem about tapirs\nAssistant: tapirs roam the quiet wood\n".repeat(200);
    let mrcr = |response: &str| {
        let mut value = row("mrcr", json!("XYtapirs roam the quiet wood"), response)
            .value()
            .clone();
        value["random_string_to_prepend"] = json!("XY");
        value["responses_create_params"]["input"][0]["content"] = json!(conversation);
        e.score(&Sample::new(value))
    };
    assert_eq!(mrcr("XYtapirs roam the quiet wood").score, 1.0);
    let echo = mrcr(&format!("XY{conversation}"));
    assert_eq!((echo.score, echo.outcome()), (0.0, "too_long".into()));
    let partial = mrcr(&format!("XY{}", &conversation[..conversation.len() / 3]));
    assert_eq!(partial.score, 0.0);
    let edges: String = (0..300).map(|i| format!("n{i} -> n{}\n", i + 1)).collect();
    let question = format!("{edges}Which nodes are the parents of n7? Final Answer: [") + "]";
    let graph = |response: &str| e.score(&row("graph_parents", json!(["n6"]), response));
    assert_eq!(graph("n6 points to n7.\nFinal Answer: [n6]").score, 1.0);
    assert_eq!(graph(&edges).score, 0.0, "an echo of the edge list");
    assert_eq!(
        graph(&question).score,
        0.0,
        "an echo ending in the question"
    );
    let all: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
    let every = graph(&format!("Final Answer: [{}]", all.join(", ")));
    assert!(every.score < 0.01, "{}", every.score);
}
