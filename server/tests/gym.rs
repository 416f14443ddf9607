//! The NeMo Gym resources-server routes over real HTTP: Gym rows as Gym datasets hold
//! them (math_with_judge, instruction_following and code_gen field names), the reply
//! shape of `BaseVerifyResponse`, and the same rewards and details as `cascade score`
//! for every bundled sample. `scripts/compare/nemo_gym.sh` checks the same routes with
//! nemo-gym's own pydantic models.

mod common;

use cascade_server::ServerConfig;
use common::{bundled, TestServer};
use serde_json::{json, Map, Value};

/// A Responses API object whose one assistant message says `text` (after a reasoning
/// item, which the scored text skips).
fn response(text: &str) -> Value {
    json!({
        "id": "resp_1", "created_at": 0.0, "model": "policy", "object": "response",
        "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
        "output": [
            {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking \\boxed{999}"}]},
            {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "annotations": []}]}
        ]
    })
}

/// A verify request for a task row: the row's own `responses_create_params` (else a
/// stub prompt), and a response saying `text`, whose `output` is the row's
/// `response_output` items when it has them (tool calls made through the API).
fn verify_request(task: Value, text: &str) -> Value {
    let mut request = task.as_object().unwrap().clone();
    request
        .entry("responses_create_params")
        .or_insert_with(|| json!({"input": [{"role": "user", "content": "the prompt"}]}));
    let mut reply = response(text);
    if let Some(items) = request.remove("response_output") {
        reply["output"] = items;
    }
    request.insert("response".into(), reply);
    Value::Object(request)
}

fn server() -> TestServer {
    TestServer::start(ServerConfig {
        jobs: 2,
        base_dir: common::datasets(),
        ..ServerConfig::default()
    })
}

/// The reply is the request echoed, plus `reward` and `details`.
fn assert_echoes(request: &Value, reply: &Value) {
    for (k, v) in request.as_object().unwrap() {
        assert_eq!(&reply[k], v, "field {k} not echoed");
    }
    assert!(reply["reward"].is_f64());
    assert!(reply["details"].is_object());
}

#[test]
fn math_rows_with_gyms_field_names() {
    let server = server();
    let row = json!({"question": "What is 1+1?", "expected_answer": "2"});
    for (text, reward) in [("So \\boxed{2}.", 1.0), ("So \\boxed{3}.", 0.0)] {
        let request = verify_request(row.clone(), text);
        let reply = server.post("/math/verify", &request.to_string());
        assert_eq!(reply.status, 200, "{}", reply.body);
        let reply = reply.json();
        assert_echoes(&request, &reply);
        assert_eq!(reply["reward"], json!(reward));
        assert!(reply["details"].get("extracted").is_some(), "{reply}");
    }
}

#[test]
fn ifeval_rows_as_instruction_following_holds_them() {
    let server = server();
    let row = json!({
        "id": 7, "prompt": "Answer in lowercase.", "grading_mode": "binary",
        "instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]
    });
    let good = verify_request(row.clone(), "the quick brown fox jumps over the lazy dog while the farmer watches from the old wooden porch.");
    let reply = server.post("/ifeval/verify", &good.to_string()).json();
    assert_echoes(&good, &reply);
    assert_eq!(reply["reward"], json!(1.0), "{reply}");
    assert_eq!(reply["details"]["strict"], json!([true]));
    let bad = verify_request(
        row,
        "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG WHILE THE FARMER WATCHES FROM THE PORCH.",
    );
    assert_eq!(
        server.post("/ifeval/verify", &bad.to_string()).json()["reward"],
        json!(0.0)
    );
}

#[test]
fn code_rows_with_livecodebench_unit_tests() {
    let server = server();
    let row = json!({
        "verifier_metadata": {"unit_tests": {"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"], "fn_name": null}}
    });
    let good = verify_request(
        row.clone(),
        "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    );
    let reply = server.post("/code/verify", &good.to_string());
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = reply.json();
    assert_echoes(&good, &reply);
    assert_eq!(reply["reward"], json!(1.0), "{reply}");
    let wrong = verify_request(row, "```python\nprint(0)\n```");
    assert_eq!(
        server.post("/code/verify", &wrong.to_string()).json()["reward"],
        json!(0.0)
    );
}

#[test]
fn the_scored_text_is_the_last_assistant_output_text() {
    let mut r = response("first \\boxed{1}").as_object().unwrap().clone();
    let output = r.get_mut("output").unwrap().as_array_mut().unwrap();
    output.push(json!({"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "a"}, {"type": "output_text", "text": "last \\boxed{2}"}]}));
    output.push(json!({"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}));
    assert_eq!(cascade_server::gym::last_output_text(&r), "last \\boxed{2}");
    assert_eq!(cascade_server::gym::last_output_text(&Map::new()), "");
}

#[test]
fn tool_calls_are_read_from_function_call_items() {
    let server = server();
    let row = json!({"responses_create_params": {"input": "Weather in Rome?", "tools": [
        {"type": "function", "name": "get_weather",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]},
        "ground_truth": [{"get_weather": {"city": ["Rome"]}}]});
    for (city, reward) in [("Rome", 1.0), ("Oslo", 0.0)] {
        let mut request = verify_request(row.clone(), "");
        request["response"]["output"] = json!([
            {"id": "rs_1", "type": "reasoning", "summary": []},
            {"type": "function_call", "name": "get_weather", "call_id": "call_1", "id": "fc_1",
             "arguments": format!("{{\"city\": \"{city}\"}}"), "status": "completed"}]);
        let reply = server
            .post("/tool_call/verify", &request.to_string())
            .json();
        assert_echoes(&request, &reply);
        assert_eq!(reply["reward"], reward, "{reply}");
        assert_eq!(reply["details"]["source"], "response_output");
        assert_eq!(reply["details"]["calls"][0]["format"], "function_call_item");
    }
}

#[test]
fn the_sample_carries_the_output_items_and_the_whole_row() {
    let task = json!({"id": 7, "responses_create_params": {"input": "x", "tools": []}});
    let reply = response("hello");
    let sample =
        cascade_server::gym::verify_sample(task.as_object().unwrap(), reply.as_object().unwrap());
    assert_eq!(sample.get("response").unwrap(), "hello");
    assert_eq!(sample.id_value(), json!(7), "the id as given");
    assert_eq!(
        sample.get(cascade_server::gym::RESPONSE_OUTPUT).unwrap(),
        &reply["output"]
    );
    assert_eq!(
        sample.get("responses_create_params").unwrap(),
        &task["responses_create_params"]
    );
}

#[test]
fn verify_rewards_and_details_equal_cascade_score_on_every_bundled_sample() {
    for (env, dir, samples, expected) in bundled() {
        let server = TestServer::start(ServerConfig {
            jobs: 2,
            base_dir: dir,
            ..ServerConfig::default()
        });
        for (sample, line) in samples.iter().zip(&expected) {
            let mut task = sample.as_object().unwrap().clone();
            let text = match task.remove("response") {
                Some(Value::String(s)) => s,
                _ => continue, // a deliberately malformed sample: no text to wrap
            };
            // Wrapped for /verify, an IFEval row becomes a Gym `instruction_following`
            // row, graded by Gym's blank rule (an empty text is checked as is, not failed).
            if env == "ifeval" && text.trim().is_empty() {
                continue;
            }
            let request = verify_request(Value::Object(task), &text);
            let reply = server.post(&format!("/{env}/verify"), &request.to_string());
            assert_eq!(reply.status, 200, "{env}: {}", reply.body);
            let reply = reply.json();
            let expected: Value = serde_json::from_str(line).unwrap();
            assert_eq!(
                reply["reward"], expected["reward"],
                "{env} {}",
                sample["id"]
            );
            if env == "ifeval" {
                // The same blank rule: a loose variant (first or last line dropped) can be
                // blank, so only the strict verdicts and the reward are the same.
                assert_eq!(
                    reply["details"]["strict"], expected["details"]["strict"],
                    "{env} {}",
                    sample["id"]
                );
                continue;
            }
            assert_eq!(
                reply["details"], expected["details"],
                "{env} {}",
                sample["id"]
            );
        }
        server.stop().unwrap();
    }
}

#[test]
fn seed_session_and_aggregate_metrics() {
    let server = server();
    let reply = server.post("/math/seed_session", "{}");
    assert_eq!((reply.status, reply.json()), (200, json!({})));
    let body = json!({"verify_responses": [
        {"_ng_task_index": 0, "_ng_rollout_index": 0, "reward": 1.0},
        {"_ng_task_index": 0, "_ng_rollout_index": 1, "reward": 0.0}]});
    let reply = server.post("/math/aggregate_metrics", &body.to_string());
    assert_eq!(reply.status, 200, "{}", reply.body);
    let m = reply.json();
    assert_eq!(m["key_metrics"], json!({"mean/reward": 0.5}));
    assert_eq!(m["group_level_metrics"][0]["_ng_task_index"], json!(0));
}

#[test]
fn the_unprefixed_routes_serve_the_default_env() {
    let server = TestServer::start(ServerConfig {
        default_env: Some("math".into()),
        ..ServerConfig::default()
    });
    let request = verify_request(json!({"expected_answer": "4"}), "\\boxed{4}");
    assert_eq!(
        server.post("/verify", &request.to_string()).json()["reward"],
        json!(1.0)
    );
    assert_eq!(server.post("/seed_session", "{}").status, 200);
    let without = TestServer::start(ServerConfig::default());
    let reply = without.post("/verify", &request.to_string());
    assert_eq!(reply.status, 404);
    assert!(reply.body.contains("--env"), "{}", reply.body);
}

#[test]
fn verify_without_a_response_is_422_naming_it() {
    let server = server();
    let reply = server.post(
        "/math/verify",
        r#"{"responses_create_params": {"input": []}}"#,
    );
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(reply.body.contains("`response`"), "{}", reply.body);
}
