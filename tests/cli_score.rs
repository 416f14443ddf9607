//! End-to-end tests of `cascade score`, `check` and `envs`, run on the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

fn cascade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(args)
        .output()
        .expect("run cascade")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn envs_lists_builtins_with_origin() {
    let out = cascade(&["envs"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let row = text
        .lines()
        .find(|l| l.starts_with("exact_match "))
        .expect("exact_match listed");
    assert!(
        row.contains("verifier") && row.contains("cascade-verifiers"),
        "{row}"
    );
}

#[test]
fn scores_to_stdout_in_order_with_summary_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        concat!(
            r#"{"id":"b","response":" 7 ","answer":"7","extra":[1]}"#,
            "\n",
            "\n",
            r#"{"id":"a","response":"8","answer":"7"}"#,
            "\n",
        ),
    );
    let out = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(
        text,
        concat!(
            r#"{"id":"b","reward":1.0,"details":{}}"#,
            "\n",
            r#"{"id":"a","reward":0.0,"details":{}}"#,
            "\n",
        )
    );
    let err = stderr(&out);
    assert!(err.contains("2 samples, mean reward 0.5000"), "{err}");
    assert!(err.contains("pass") && err.contains("fail"), "{err}");
}

/// NeMo Gym rows carry integer ids, `uuid`s or none: each is scored and named, the
/// id echoed as given, a row without one by its line (blank lines count).
#[test]
fn integer_uuid_and_missing_ids_are_scored_and_echoed() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        concat!(
            r#"{"id":7,"response":"x","answer":"x"}"#,
            "\n",
            r#"{"uuid":"3c26f339","response":"x","answer":"x"}"#,
            "\n\n",
            r#"{"response":"x","answer":"x"}"#,
            "\n",
        ),
    );
    let out = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = lines(&out.stdout);
    let ids: Vec<_> = got.iter().map(|l| l["id"].clone()).collect();
    assert_eq!(ids, [json!(7), json!("3c26f339"), json!(4)]);
    assert!(got.iter().all(|l| l["reward"] == json!(1.0)), "{got:?}");
}

#[test]
fn bad_fields_get_reward_zero_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        concat!(
            r#"{"id":"1","response":"x"}"#,
            "\n",
            r#"{"id":2.5,"response":"x","answer":"x"}"#,
            "\n",
            r#"[1,2,3]"#,
            "\n",
            r#"{"id":"4","response":5,"answer":"5"}"#,
            "\n",
            r#"{"id":"5","response":"ok","answer":"ok"}"#,
            "\n",
        ),
    );
    let out = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = lines(&out.stdout);
    assert_eq!(got.len(), 5);
    let errors: Vec<_> = got.iter().map(|l| l["details"]["error"].clone()).collect();
    assert_eq!(errors[0], json!("missing field `answer`"));
    assert_eq!(
        errors[1],
        json!("field `id` must be a string, an integer or absent, found a number")
    );
    assert_eq!(
        errors[2],
        json!("field `<line>` must be a JSON object, found an array")
    );
    assert_eq!(
        errors[3],
        json!("field `response` must be a string, found a number")
    );
    assert_eq!(got[4]["reward"], json!(1.0));
    assert_eq!(got[1]["id"], json!(2.5), "a bad id is still echoed");
    assert!(got[..4].iter().all(|l| l["reward"] == json!(0.0)));
}

#[test]
fn jobs_keep_input_order_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..3000u32 {
        // Scrambled ids and mixed outcomes, so any reordering shows.
        let id = (i * 7919) % 3001;
        let answer = if i.is_multiple_of(3) { "yes" } else { "no" };
        text.push_str(
            &json!({"id": id.to_string(), "response": "yes", "answer": answer}).to_string(),
        );
        text.push('\n');
    }
    let input = write(dir.path(), "in.jsonl", &text);
    let one = dir.path().join("one.jsonl");
    let four = dir.path().join("four.jsonl");
    for (jobs, out) in [("1", &one), ("4", &four)] {
        let o = cascade(&[
            "score",
            "--env",
            "exact_match",
            "--jobs",
            jobs,
            "--input",
            input.to_str().unwrap(),
            "--output",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let a = std::fs::read(&one).unwrap();
    assert_eq!(a, std::fs::read(&four).unwrap());
    let got = lines(&a);
    assert_eq!(got.len(), 3000);
    for (i, l) in got.iter().enumerate() {
        let i = i as u32;
        assert_eq!(l["id"], json!(((i * 7919) % 3001).to_string()));
        assert_eq!(
            l["reward"],
            json!(if i.is_multiple_of(3) { 1.0 } else { 0.0 })
        );
    }
}

#[test]
fn malformed_json_is_exit_2_naming_file_and_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "broken.jsonl",
        "{\"id\":\"1\",\"response\":\"x\",\"answer\":\"x\"}\n{\"id\": \"2\", \n",
    );
    let output = dir.path().join("out.jsonl");
    let out = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        input.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("broken.jsonl:2: malformed JSON"), "{err}");
    assert!(!output.exists(), "no output file on a refused input");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temp file left behind"
    );
}

#[test]
fn missing_input_and_unknown_env_are_exit_2() {
    let out = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        "/nonexistent/in.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/nonexistent/in.jsonl"),
        "{}",
        stderr(&out)
    );

    let out = cascade(&["score", "--env", "no_such_env", "--input", "x.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("unknown environment `no_such_env`; known:") && err.contains("exact_match"),
        "{err}"
    );

    let out = cascade(&["score", "--input", "x.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "missing --env is a usage error");
}

#[test]
fn output_into_a_missing_folder_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        "{\"id\":\"1\",\"response\":\"x\",\"answer\":\"x\"}\n",
    );
    let out = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        input.to_str().unwrap(),
        "--output",
        "/nonexistent/dir/out.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("/nonexistent/dir/out.jsonl"));
}

#[test]
fn check_passes_on_stored_scores_and_fails_with_a_diff_on_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(
        dir.path(),
        "in.jsonl",
        concat!(
            r#"{"id":"a","response":"1","answer":"1"}"#,
            "\n",
            r#"{"id":"b","response":"2","answer":"3"}"#,
            "\n",
            r#"{"id":"c","response":"2"}"#,
            "\n",
        ),
    );
    let expected = dir.path().join("expected.jsonl");
    let o = cascade(&[
        "score",
        "--env",
        "exact_match",
        "--input",
        input.to_str().unwrap(),
        "--output",
        expected.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let check = |exp: &Path| {
        cascade(&[
            "check",
            "--env",
            "exact_match",
            "--input",
            input.to_str().unwrap(),
            "--expected",
            exp.to_str().unwrap(),
        ])
    };
    let ok = check(&expected);
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));

    // Tamper with the stored scores: line b claims reward 1, line c lost its error.
    let stored = std::fs::read_to_string(&expected).unwrap();
    let tampered = stored
        .replace(r#"{"id":"b","reward":0.0"#, r#"{"id":"b","reward":1.0"#)
        .replace("missing field `answer`", "something else");
    let bad = write(dir.path(), "tampered.jsonl", &tampered);
    let o = check(&bad);
    assert_eq!(o.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&o.stdout);
    assert!(diff.contains("input line 2 (id \"b\")"), "{diff}");
    assert!(diff.contains("reward: expected 1.0, got 0.0"), "{diff}");
    assert!(
        diff.contains(r#"details.error: expected "something else", got "missing field `answer`""#),
        "{diff}"
    );
    assert!(
        !diff.contains("id \"a\""),
        "matching lines are not reported: {diff}"
    );
    assert!(
        stderr(&o).contains("check failed: 2 of 3 lines differ"),
        "{}",
        stderr(&o)
    );

    // A shorter expected file is a mismatch too; a malformed one is exit 2.
    let short = write(dir.path(), "short.jsonl", stored.lines().next().unwrap());
    assert_eq!(check(&short).status.code(), Some(1));
    let broken = write(dir.path(), "broken.jsonl", "not json\n");
    let o = check(&broken);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("broken.jsonl:1"));
}

/// Both ways of making a sandbox's memory fresh (`CASCADE_SANDBOX_INSTANCE_MEMORY`:
/// copy-on-write with a dirty-page reset, or resident slots rewritten whole) give the
/// same result lines, byte for byte: the choice is speed, never a score.
#[test]
fn code_scores_are_identical_with_either_kind_of_instance_memory() {
    let dir = tempfile::tempdir().unwrap();
    let samples = [
        json!({"id": "stdio", "language": "python", "response": "```python\nprint(sum(map(int, input().split())))\n```",
               "tests": {"kind": "stdio", "cases": [{"input": "2 3", "output": "5"}, {"input": "1 1", "output": "3"}]}}),
        json!({"id": "assert", "language": "python", "response": "```python\ndef add(a, b):\n    return a + b\n```",
               "tests": {"kind": "assert", "code": "def check(candidate):\n    assert candidate(1, 2) == 3\n", "entry_point": "add"}}),
        json!({"id": "raises", "language": "python", "response": "```python\ndef add(a, b):\n    return [][a]\n```",
               "tests": {"kind": "assert", "code": "def check(candidate):\n    assert candidate(1, 2) == 3\n", "entry_point": "add"}}),
        json!({"id": "memory", "language": "python", "response": "```python\nx = bytearray(10**9)\n```",
               "tests": {"kind": "stdio", "cases": [{"input": "", "output": ""}]}}),
        json!({"id": "loop", "language": "python", "response": "```python\nwhile True: pass\n```",
               "tests": {"kind": "stdio", "cases": [{"input": "", "output": ""}]}}),
    ];
    let text: String = samples.iter().map(|s| format!("{s}\n")).collect();
    let input = write(dir.path(), "in.jsonl", &text);
    let mut outputs = Vec::new();
    for memory in ["resident", ""] {
        let out = dir.path().join(format!("out-{memory}.jsonl"));
        let o = Command::new(env!("CARGO_BIN_EXE_cascade"))
            .env("CASCADE_SANDBOX_INSTANCE_MEMORY", memory)
            .args(["score", "--env", "code", "--input", input.to_str().unwrap()])
            .args(["--output", out.to_str().unwrap()])
            .output()
            .expect("run cascade");
        assert!(o.status.success(), "{}", stderr(&o));
        outputs.push(std::fs::read(&out).unwrap());
    }
    let verdicts: Vec<Value> = lines(&outputs[0])
        .iter()
        .map(|l| l["details"]["verdict"].clone())
        .collect();
    assert_eq!(
        verdicts,
        [
            json!("wrong_answer"),
            json!("accepted"),
            json!("runtime_error"),
            json!("memory_limit"),
            json!("time_limit")
        ]
    );
    assert_eq!(
        String::from_utf8_lossy(&outputs[0]),
        String::from_utf8_lossy(&outputs[1])
    );
}

#[test]
fn a_mixed_gym_file_is_scored_row_by_row_by_agent_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let agent = |name: &str| json!({"type": "responses_api_agents", "name": name});
    let rows = [
        json!({"question": "1+1?", "expected_answer": "2", "agent_ref": agent("math_with_judge_simple_agent"),
               "response": "\\boxed{2}"}),
        json!({"uuid": "u-1", "options": [{"A": "x"}, {"B": "y"}], "expected_answer": "B",
               "grading_mode": "strict_single_letter_boxed",
               "responses_create_params": {"input": "Pick one."},
               "agent_ref": agent("mcqa_simple_agent"), "response": "\\boxed{B}"}),
        json!({"id": 3, "agent_ref": agent("echo_simple_agent"), "answer": "z", "response": "z"}),
        json!({"id": 4, "agent_ref": agent("swe_pivot_tool_simulation_agent"), "response": "z"}),
        json!({"id": 5, "response": "z"}),
        json!({"question": "2+2?", "expected_answer": "4", "agent_ref": agent("math_with_judge_simple_agent"),
               "response": "\\boxed{5}"}),
    ];
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    let input = write(dir.path(), "mixed.jsonl", &text);
    let out = cascade(&[
        "score",
        "--route-by",
        "agent_ref.name",
        "--route",
        "echo_simple_agent=exact_match",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let got = lines(&out.stdout);
    let ids: Vec<_> = got.iter().map(|l| l["id"].clone()).collect();
    assert_eq!(
        ids,
        [
            json!(1),
            json!("u-1"),
            json!(3),
            json!(4),
            json!(5),
            json!(6)
        ]
    );
    let rewards: Vec<_> = got.iter().map(|l| l["reward"].as_f64().unwrap()).collect();
    assert_eq!(rewards, [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
    let error = |i: usize| got[i]["details"]["error"].as_str().unwrap_or("").to_owned();
    assert!(
        error(3).contains("--route swe_pivot_tool_simulation_agent=ENV"),
        "{}",
        error(3)
    );
    assert!(error(4).contains("no `agent_ref.name`"), "{}", error(4));
    assert!(
        stderr(&out).contains("routed by agent_ref.name: 6 samples"),
        "{}",
        stderr(&out)
    );

    let bad = cascade(&[
        "score",
        "--route-by",
        "agent_ref.name",
        "--route",
        "x",
        "--input",
        input.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("expected VALUE=ENV"),
        "{}",
        stderr(&bad)
    );
}
