//! `POST /v1/score` over real HTTP: the same bytes as `cascade score`, refusals that
//! name what is wrong, and the security defaults (token, loopback, body limit).

mod common;

use cascade_server::ServerConfig;
use common::{bundled, TestServer};
use serde_json::{json, Value};

fn server_in(dir: &std::path::Path) -> TestServer {
    TestServer::start(ServerConfig {
        jobs: 2,
        base_dir: dir.to_owned(),
        ..ServerConfig::default()
    })
}

/// The `results` array of a reply, each element as its exact text.
fn result_texts(body: &str) -> Vec<String> {
    let lines = cascade_server::score::result_lines(body)
        .unwrap_or_else(|| panic!("not a results body: {body}"));
    for line in &lines {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    lines.into_iter().map(str::to_owned).collect()
}

#[test]
fn every_bundled_sample_scores_as_cascade_score_prints_it() {
    for (env, dir, samples, expected) in bundled() {
        let server = server_in(&dir);
        let body = json!({"env": env, "samples": samples}).to_string();
        let reply = server.post("/v1/score", &body);
        assert_eq!(reply.status, 200, "{env}: {}", reply.body);
        assert_eq!(result_texts(&reply.body), expected, "{env}");
        server.stop().unwrap();
    }
}

#[test]
fn a_bad_sample_in_a_good_batch_gets_reward_zero_and_the_clis_error() {
    let server = server_in(&common::datasets());
    let samples = json!([
        {"id": "ok", "answer": "7", "response": "\\boxed{7}"},
        {"id": "no-answer", "response": "\\boxed{7}"},
        "not an object",
        {"id": "ok2", "answer": "7", "response": "8"}
    ]);
    let reply = server.post(
        "/v1/score",
        &json!({"env": "math", "samples": samples}).to_string(),
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    let texts = result_texts(&reply.body);
    let results = reply.json()["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0]["reward"], json!(1.0));
    assert_eq!(results[1]["reward"], json!(0.0));
    assert!(results[1]["details"]["error"]
        .as_str()
        .unwrap()
        .contains("answer"));
    assert!(results[2]["details"]["error"].is_string());
    assert_eq!(results[3]["id"], json!("ok2"));
    // The same lines as the library's guarded path, i.e. as `cascade score`.
    let env = cascade_envs::Registry::discover()
        .unwrap()
        .create("math", &cascade_envs::EnvConfig::default())
        .unwrap();
    // A sample is named by its id, else by its place in the batch (1-based), as a
    // JSONL row without one is named by its line.
    for (i, (sample, text)) in samples.as_array().unwrap().iter().zip(&texts).enumerate() {
        let sample = cascade_envs::Sample::at_line(sample.clone(), i + 1);
        let line = cascade_envs::ResultLine::new(
            &sample,
            cascade_envs::score_guarded(env.as_ref(), &sample),
        );
        assert_eq!(&line.to_json(), text);
    }
}

#[test]
fn config_reaches_the_environment_and_a_bad_one_is_422() {
    let server = server_in(&common::datasets());
    let bad = json!({"env": "math", "samples": [], "config": {"no_such_key": 1}});
    let reply = server.post("/v1/score", &bad.to_string());
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(
        reply.json()["error"]
            .as_str()
            .unwrap()
            .contains("no_such_key"),
        "{}",
        reply.body
    );
}

#[test]
fn malformed_bodies_are_400_and_missing_fields_422_naming_the_field() {
    let server = server_in(&common::datasets());
    let reply = server.post("/v1/score", "{not json");
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.json()["error"].as_str().unwrap().contains("not JSON"));

    let reply = server.post("/v1/score", r#"{"env": "math"}"#);
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(
        reply.json()["error"]
            .as_str()
            .unwrap()
            .contains("`samples`"),
        "{}",
        reply.body
    );

    let reply = server.post("/v1/score", r#"{"env": "math", "samples": 3}"#);
    assert_eq!(reply.status, 422, "{}", reply.body);
    assert!(
        reply.json()["error"]
            .as_str()
            .unwrap()
            .starts_with("samples"),
        "{}",
        reply.body
    );
}

#[test]
fn an_unknown_env_is_404_listing_the_known_ones() {
    let server = server_in(&common::datasets());
    let reply = server.post("/v1/score", r#"{"env": "chess", "samples": []}"#);
    assert_eq!(reply.status, 404, "{}", reply.body);
    let message = reply.json()["error"].as_str().unwrap().to_owned();
    assert!(message.contains("`chess`"), "{message}");
    for known in ["code", "ifeval", "math", "swe"] {
        assert!(message.contains(known), "{message}");
    }
    let reply = server.post("/chess/verify", r#"{}"#);
    assert_eq!(reply.status, 404, "{}", reply.body);
}

#[test]
fn oversized_bodies_are_413() {
    let server = TestServer::start(ServerConfig {
        max_body_bytes: 1024,
        ..ServerConfig::default()
    });
    let big = json!({"env": "math", "samples": [{"id": "a", "answer": "1", "response": "x".repeat(2000)}]});
    let reply = server.post("/v1/score", &big.to_string());
    assert_eq!(reply.status, 413, "{}", reply.body);
    let small =
        json!({"env": "math", "samples": [{"id": "a", "answer": "1", "response": "\\boxed{1}"}]});
    assert_eq!(server.post("/v1/score", &small.to_string()).status, 200);
}

#[test]
fn security_the_token_is_required_except_on_health() {
    let server = TestServer::start(ServerConfig {
        token: Some("s3cret".into()),
        ..ServerConfig::default()
    });
    let body = r#"{"env": "math", "samples": []}"#;
    assert_eq!(
        server.request("POST", "/v1/score", Some(body), None).status,
        401
    );
    assert_eq!(
        server
            .request("POST", "/v1/score", Some(body), Some("wrong"))
            .status,
        401
    );
    assert_eq!(
        server
            .request("POST", "/v1/score", Some(body), Some("s3cre"))
            .status,
        401
    );
    assert_eq!(
        server
            .request("POST", "/v1/score", Some(body), Some("s3cret"))
            .status,
        200
    );
    assert_eq!(server.request("GET", "/metrics", None, None).status, 401);
    assert_eq!(
        server
            .request("POST", "/math/verify", Some("{}"), None)
            .status,
        401
    );
    assert_eq!(
        server
            .request("POST", "/get_reward", Some("{}"), None)
            .status,
        401
    );
    assert_eq!(server.request("GET", "/health", None, None).status, 200);
    assert!(cascade_server::auth::authorized(
        Some(b"Bearer s3cret"),
        "s3cret"
    ));
    assert!(!cascade_server::auth::authorized(
        Some(b"bearer s3cret"),
        "s3cret"
    ));
    assert!(!cascade_server::auth::authorized(None, "s3cret"));
}

#[test]
fn security_the_default_address_is_loopback() {
    let addr: std::net::SocketAddr = cascade_server::DEFAULT_ADDR.parse().unwrap();
    assert!(addr.ip().is_loopback());
}
