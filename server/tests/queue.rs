//! Admission control, ordering, disconnects, graceful drain and metrics, over real
//! HTTP. The `gate` environment (tests/common) holds samples until the test lets them
//! go, so "the queue is full" and "a request is in flight" are facts, not timings.

mod common;

use std::time::Duration;

use cascade_server::ServerConfig;
use common::{gate_sample, open_gate, TestServer};
use serde_json::{json, Value};

fn small_queue(max_queue: usize) -> ServerConfig {
    ServerConfig {
        jobs: 2,
        max_queue,
        base_dir: common::datasets(),
        ..ServerConfig::default()
    }
}

fn score_body(env: &str, samples: Vec<Value>) -> String {
    json!({"env": env, "samples": samples}).to_string()
}

/// Polls /metrics until `cascade_queue_depth` is `depth`.
fn wait_for_depth(server: &TestServer, depth: usize) {
    for _ in 0..2000 {
        if metric(&server.get("/metrics").body, "cascade_queue_depth") == Some(depth as f64) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("the queue never reached depth {depth}");
}

fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn a_full_queue_answers_429_with_retry_after_at_once() {
    let server = std::sync::Arc::new(TestServer::start(small_queue(3)));
    let holder = {
        let server = server.clone();
        let samples = vec![gate_sample("a", "full-1"), gate_sample("b", "full-1")];
        std::thread::spawn(move || server.post("/v1/score", &score_body("gate", samples)))
    };
    wait_for_depth(&server, 2);
    let math = |n: usize| {
        let samples = (0..n)
            .map(|i| json!({"id": format!("m{i}"), "answer": "2", "response": "\\boxed{2}"}))
            .collect();
        score_body("math", samples)
    };
    // Two more do not fit in 3 - 2: refused at once.
    let refused = server.post("/v1/score", &math(2));
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.retry_after.as_deref(), Some("1"));
    assert!(refused.json()["error"]
        .as_str()
        .unwrap()
        .contains("--max-queue 3"));
    // One does, and is answered while the gate samples still hold both threads of
    // their pool: each environment scores on a pool of its own, so a math sample
    // never waits behind another environment's batch.
    let accepted = server.post("/v1/score", &math(1));
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(accepted.json()["results"][0]["reward"], json!(1.0));
    // A batch that could never fit is 413, not an endless 429.
    assert_eq!(server.post("/v1/score", &math(4)).status, 413);

    open_gate("full-1");
    let held = holder.join().unwrap();
    assert_eq!(held.status, 200, "{}", held.body);
    let ids: Vec<Value> = held.json()["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!("a"), json!("b")]);
    wait_for_depth(&server, 0);
    let text = server.get("/metrics").body;
    assert!(
        text.contains("cascade_rejects_total{env=\"math\",status=\"429\"} 1"),
        "{text}"
    );
}

#[test]
fn under_load_with_a_tiny_queue_every_accepted_sample_is_correct_and_in_order() {
    let server = std::sync::Arc::new(TestServer::start(small_queue(6)));
    let clients: Vec<_> = (0..16)
        .map(|c| {
            let server = server.clone();
            std::thread::spawn(move || {
                let mut outcomes = Vec::new();
                for round in 0..10 {
                    // Sample i of client c asks for c*1000+round*10+i; half are wrong.
                    let samples: Vec<Value> = (0..3)
                        .map(|i| {
                            let n = c * 1000 + round * 10 + i;
                            let said = if i == 1 { n + 1 } else { n };
                            json!({"id": format!("{n}"), "answer": n.to_string(), "response": format!("\\boxed{{{said}}}")})
                        })
                        .collect();
                    let reply = server.post("/v1/score", &score_body("math", samples.clone()));
                    outcomes.push((samples, reply));
                }
                outcomes
            })
        })
        .collect();
    let (mut accepted, mut refused) = (0, 0);
    for client in clients {
        for (samples, reply) in client.join().unwrap() {
            match reply.status {
                200 => {
                    accepted += 1;
                    let results = reply.json()["results"].as_array().unwrap().clone();
                    assert_eq!(results.len(), samples.len());
                    for (i, (s, r)) in samples.iter().zip(&results).enumerate() {
                        assert_eq!(r["id"], s["id"]);
                        assert_eq!(r["reward"], json!(if i == 1 { 0.0 } else { 1.0 }), "{r}");
                    }
                }
                429 => {
                    refused += 1;
                    assert_eq!(reply.retry_after.as_deref(), Some("1"));
                }
                other => panic!("unexpected status {other}: {}", reply.body),
            }
        }
    }
    assert_eq!(accepted + refused, 160);
    assert!(accepted > 0);
    eprintln!("accepted {accepted}, refused {refused}");
    wait_for_depth(&server, 0);
}

#[test]
fn a_client_that_disconnects_leaks_no_work() {
    let server = TestServer::start(small_queue(4));
    let url = format!("{}/v1/score", server.url);
    let body = score_body(
        "gate",
        vec![gate_sample("x", "gone-1"), gate_sample("y", "gone-1")],
    );
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_millis(300)))
        .build()
        .into();
    // The client gives up (and closes the connection) while its samples are held.
    assert!(agent.post(&url).send(&body).is_err());
    wait_for_depth(&server, 2);
    open_gate("gone-1");
    // The work finishes into the closed connection and frees its share of the queue.
    wait_for_depth(&server, 0);
    let ok = server.post(
        "/v1/score",
        &score_body(
            "gate",
            (0..4)
                .map(|i| gate_sample(&i.to_string(), "gone-1"))
                .collect(),
        ),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
}

#[test]
fn shutdown_drains_in_flight_requests_then_returns_ok() {
    let mut server = TestServer::start(small_queue(8));
    let url = server.url.clone();
    let in_flight = std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let body = score_body("gate", vec![gate_sample("d", "drain-1")]);
        let mut reply = agent.post(&format!("{url}/v1/score")).send(&body).unwrap();
        (
            reply.status().as_u16(),
            reply.body_mut().read_to_string().unwrap(),
        )
    });
    wait_for_depth(&server, 1);
    server.stop_signal();
    // The server now refuses new connections but waits for the held request.
    std::thread::sleep(Duration::from_millis(100));
    open_gate("drain-1");
    let (status, body) = in_flight.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        r#"{"results":[{"id":"d","reward":1.0,"details":{"gate":"drain-1"}}]}"#
    );
    server.join().unwrap();
}

#[test]
fn metrics_count_requests_samples_rejects_and_latency_per_env() {
    let server = TestServer::start(small_queue(64));
    let samples = vec![json!({"id": "a", "answer": "1", "response": "\\boxed{1}"}); 3];
    assert_eq!(
        server
            .post("/v1/score", &score_body("math", samples))
            .status,
        200
    );
    assert_eq!(
        server.post("/v1/score", &score_body("nope", vec![])).status,
        404
    );
    let reply = server.get("/metrics");
    assert_eq!(reply.status, 200);
    let text = reply.body;
    for line in [
        "# TYPE cascade_requests_total counter",
        "cascade_requests_total{route=\"/v1/score\",env=\"math\",status=\"200\"} 1",
        "cascade_requests_total{route=\"/v1/score\",env=\"unknown\",status=\"404\"} 1",
        "cascade_samples_total{env=\"math\"} 3",
        "cascade_rejects_total{env=\"unknown\",status=\"404\"} 1",
        "# TYPE cascade_request_duration_seconds histogram",
        "cascade_request_duration_seconds_bucket{env=\"math\",le=\"+Inf\"} 1",
        "cascade_request_duration_seconds_count{env=\"math\"} 1",
        "cascade_queue_depth 0",
        "cascade_queue_capacity 64",
    ] {
        assert!(text.lines().any(|l| l == line), "no `{line}` in\n{text}");
    }
}
