//! OpenRLHF's remote reward route over real HTTP, with the body that OpenRLHF's
//! `SingleTurnAgentExecutor._fetch_rewards_via_http` posts: `{"query", "prompts",
//! "labels"}`, where a query is the decoded prompt followed by the response.

mod common;

use cascade_server::ServerConfig;
use common::TestServer;
use serde_json::{json, Value};

#[test]
fn openrlhfs_request_shape_gets_rewards_scores_and_extra_logs() {
    let server = TestServer::start(ServerConfig::default());
    let prompt = "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n";
    let body = json!({
        "query": [format!("{prompt}It is \\boxed{{4}}.<|im_end|>"), format!("{prompt}\\boxed{{5}}<|im_end|>"), "no prompt prefix \\boxed{4}"],
        "prompts": [prompt, prompt, prompt],
        "labels": ["4", "4", "4"],
    });
    let reply = server.post("/math/get_reward", &body.to_string());
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = reply.json();
    assert_eq!(reply["rewards"], json!([1.0, 0.0, 1.0]));
    assert_eq!(reply["scores"], reply["rewards"]);
    assert_eq!(reply["extra_logs"]["cascade_error"], json!([0.0, 0.0, 0.0]));
    assert_eq!(reply["details"].as_array().unwrap().len(), 3);
}

#[test]
fn object_labels_carry_the_task_fields_and_bad_ones_cost_one_sample() {
    let server = TestServer::start(ServerConfig {
        default_env: Some("ifeval".into()),
        ..ServerConfig::default()
    });
    let label = json!({"instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}]});
    let body = json!({
        "query": ["p: the quick brown fox jumps over the lazy dog while the farmer watches from the old wooden porch.", "p: the quick brown fox jumps over the lazy dog while the farmer watches from the old wooden porch."],
        "prompts": ["p: ", "p: "],
        "labels": [label.to_string(), "not fields"],
    });
    let reply = server.post("/get_reward", &body.to_string());
    assert_eq!(reply.status, 200, "{}", reply.body);
    let reply = reply.json();
    assert_eq!(reply["rewards"], json!([1.0, 0.0]));
    assert_eq!(reply["extra_logs"]["cascade_error"], json!([0.0, 1.0]));
    assert!(reply["details"][1]["error"].is_string());
}

#[test]
fn mismatched_lengths_are_422_naming_the_field() {
    let server = TestServer::start(ServerConfig::default());
    let body = json!({"query": ["a", "b"], "prompts": ["a"], "labels": ["1", "2"]});
    let reply = server.post("/math/get_reward", &body.to_string());
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(reply.body.contains("prompts"), "{}", reply.body);
    let reply = server.post("/math/get_reward", r#"{"prompts": []}"#);
    assert_eq!(reply.status, 422);
    assert!(reply.body.contains("`query`"), "{}", reply.body);
}

#[test]
fn rewards_equal_cascade_score_on_the_bundled_math_samples() {
    let (_, _, samples, expected) = common::bundled()
        .into_iter()
        .find(|(env, ..)| env == "math")
        .unwrap();
    let usable: Vec<(&Value, &String)> = samples
        .iter()
        .zip(&expected)
        .filter(|(s, _)| {
            s["response"].is_string() && s["answer"].is_string() && s["id"].is_string()
        })
        .collect();
    let body = json!({
        "query": usable.iter().map(|(s, _)| s["response"].clone()).collect::<Vec<_>>(),
        "prompts": usable.iter().map(|_| "").collect::<Vec<_>>(),
        "labels": usable.iter().map(|(s, _)| s["answer"].clone()).collect::<Vec<_>>(),
    });
    let server = TestServer::start(ServerConfig::default());
    let reply = server.post("/math/get_reward", &body.to_string()).json();
    for (i, (_, line)) in usable.iter().enumerate() {
        let expected: Value = serde_json::from_str(line).unwrap();
        assert_eq!(reply["rewards"][i], expected["reward"], "{line}");
        assert_eq!(reply["details"][i], expected["details"], "{line}");
    }
}
