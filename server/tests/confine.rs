//! What a client may reach and what it may cost: paths under `--base-dir`, the copy
//! cap, `--env`, operator-only settings, refused configs not kept, per-sample ceilings,
//! `/aggregate_metrics` under admission, and a cheap environment that does not wait
//! behind an expensive one.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use cascade_server::ceilings::Ceilings;
use cascade_server::ServerConfig;
use common::{gate_sample, open_gate, TestServer};
use serde_json::{json, Value};

fn score(server: &TestServer, env: &str, samples: Vec<Value>, config: Value) -> common::Reply {
    let body = json!({"env": env, "samples": samples, "config": config}).to_string();
    server.post("/v1/score", &body)
}

fn swe_sample(repo: &str) -> Value {
    json!({"id": "s", "response": "", "repo": repo, "fail_to_pass": [], "pass_to_pass": []})
}

/// `base/repo` (a snapshot of 100 bytes), `secret/` beside `base`, and `base/link`
/// leading to `secret`.
fn layout(root: &Path) -> std::path::PathBuf {
    let base = root.join("base");
    std::fs::create_dir_all(base.join("repo")).unwrap();
    std::fs::write(base.join("repo/a.py"), "x = 1\n".repeat(17)).unwrap();
    std::fs::create_dir_all(root.join("secret")).unwrap();
    std::fs::write(root.join("secret/canary.py"), "CANARY = 1\n").unwrap();
    std::os::unix::fs::symlink(root.join("secret"), base.join("link")).unwrap();
    base
}

#[test]
fn sample_paths_never_leave_the_base_dir() {
    let root = tempfile::tempdir().unwrap();
    let base = layout(root.path());
    let server = TestServer::start(ServerConfig {
        base_dir: base.clone(),
        ..ServerConfig::default()
    });
    let secret = root.path().join("secret").display().to_string();
    for (repo, why) in [
        ("../secret", "leaves --base-dir"),
        (secret.as_str(), "is absolute"),
        ("link", "leaves --base-dir"),
        ("repo/../../secret", "leaves --base-dir"),
    ] {
        let reply = score(&server, "swe", vec![swe_sample(repo)], json!({}));
        assert_eq!(reply.status, 200, "{}", reply.body);
        let result = &reply.json()["results"][0];
        assert_eq!(result["reward"], 0.0);
        let error = result["details"]["error"].as_str().unwrap_or_default();
        assert!(error.contains(why), "{repo}: {}", reply.body);
    }
    // Inside the base, the sample is scored (its empty answer applies nothing).
    let inside = score(&server, "swe", vec![swe_sample("repo")], json!({}));
    let details = &inside.json()["results"][0]["details"];
    assert_eq!(details["applied"], false, "{}", inside.body);
}

#[test]
fn a_folder_past_the_copy_cap_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let server = TestServer::start(ServerConfig {
        base_dir: layout(root.path()),
        max_copy_bytes: 50,
        ..ServerConfig::default()
    });
    let reply = score(&server, "swe", vec![swe_sample("repo")], json!({}));
    let error = reply.json()["results"][0]["details"]["error"].clone();
    assert!(
        error.as_str().unwrap_or_default().contains("copy limit"),
        "{}",
        reply.body
    );
}

#[test]
fn only_the_named_environments_are_served() {
    let server = TestServer::start(ServerConfig {
        envs: vec!["math".into()],
        ..ServerConfig::default()
    });
    let ok = score(
        &server,
        "math",
        vec![json!({"answer": "2", "response": "\\boxed{2}"})],
        json!({}),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    for (path, body) in [
        ("/v1/score", json!({"env": "ifeval", "samples": []})),
        ("/ifeval/verify", json!({})),
        ("/ifeval/get_reward", json!({"query": []})),
    ] {
        let reply = server.post(path, &body.to_string());
        assert_eq!(reply.status, 404, "{path}: {}", reply.body);
        assert!(reply.body.contains("known: math\""), "{}", reply.body);
    }
}

#[test]
fn host_settings_come_from_the_operator_only() {
    let server = TestServer::start(ServerConfig::default());
    for (env, config, key) in [
        ("workplace", json!({"data_dir": "/etc"}), "data_dir"),
        ("swe", json!({"backend": "native"}), "backend"),
        ("swe", json!({"timeout_s": 3600}), "timeout_s"),
    ] {
        let reply = score(&server, env, vec![], config);
        assert_eq!(reply.status, 422, "{}", reply.body);
        assert!(
            reply
                .body
                .contains(&format!("config.{key}: a host setting")),
            "{}",
            reply.body
        );
    }
}

#[test]
fn refused_configs_are_not_kept() {
    let server = TestServer::start(ServerConfig::default());
    for i in 0..5 {
        let reply = score(&server, "math", vec![], json!({"no_such_key": i}));
        assert_eq!(reply.status, 422, "{}", reply.body);
    }
    assert_eq!(server.state.envs.len(), 0);
}

#[test]
fn samples_past_the_operators_ceilings_are_refused_by_name() {
    let server = TestServer::start(ServerConfig {
        ceilings: Ceilings {
            max_response_bytes: 100,
            ..Ceilings::default()
        },
        ..ServerConfig::default()
    });
    let samples = vec![
        json!({"id": 1, "answer": "2", "response": "\\boxed{2}"}),
        json!({"id": 2, "answer": "2", "response": "\\boxed{2}", "time_limit_s": 3600}),
        json!({"id": 3, "answer": "2", "response": "x".repeat(101)}),
    ];
    let reply = score(&server, "math", samples, json!({}));
    let results = reply.json()["results"].clone();
    assert_eq!(results[0]["reward"], 1.0, "{}", reply.body);
    let error = |i: usize| {
        results[i]["details"]["error"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(error(1).contains("--max-test-seconds 10"), "{}", reply.body);
    assert!(
        error(2).contains("--max-response-bytes 100"),
        "{}",
        reply.body
    );
}

#[test]
fn aggregate_metrics_waits_its_turn_in_the_queue() {
    let server = std::sync::Arc::new(TestServer::start(ServerConfig {
        max_queue: 1,
        ..ServerConfig::default()
    }));
    let holder = {
        let server = server.clone();
        let body = json!({"env": "gate", "samples": [gate_sample("a", "aggregate")]}).to_string();
        std::thread::spawn(move || server.post("/v1/score", &body))
    };
    // The gate sample holds the one place first (else an early aggregate would take
    // it, and the holder would be the one refused).
    for _ in 0..2000 {
        if server
            .get("/metrics")
            .body
            .contains("cascade_queue_depth 1")
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let body = json!({"verify_responses": [{"_ng_task_index": 0, "reward": 1.0}]}).to_string();
    let mut refused = false;
    for _ in 0..500 {
        let reply = server.post("/math/aggregate_metrics", &body);
        if reply.status == 429 {
            refused = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    open_gate("aggregate");
    assert_eq!(holder.join().unwrap().status, 200);
    assert!(
        refused,
        "/aggregate_metrics was never refused by a full queue"
    );
    // The holder's answer can reach it a moment before its share of the queue is
    // given back: poll, bounded.
    let mut reply = server.post("/math/aggregate_metrics", &body);
    for _ in 0..400 {
        if reply.status != 429 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
        reply = server.post("/math/aggregate_metrics", &body);
    }
    assert_eq!(
        reply.json()["key_metrics"]["mean/reward"],
        1.0,
        "{}",
        reply.body
    );
}

#[test]
fn a_cheap_sample_does_not_wait_behind_an_expensive_batch() {
    let server = std::sync::Arc::new(TestServer::start(ServerConfig {
        jobs: 1,
        ..ServerConfig::default()
    }));
    let holder = {
        let server = server.clone();
        let samples = vec![gate_sample("a", "fair"), gate_sample("b", "fair")];
        let body = json!({"env": "gate", "samples": samples}).to_string();
        std::thread::spawn(move || server.post("/v1/score", &body))
    };
    std::thread::sleep(Duration::from_millis(200));
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let server = server.clone();
        std::thread::spawn(move || {
            let started = Instant::now();
            let sample = json!({"answer": "2", "response": "\\boxed{2}"});
            let reply = score(&server, "math", vec![sample], json!({}));
            let _ = tx.send((reply.status, started.elapsed()));
        });
    }
    let answered = rx.recv_timeout(Duration::from_secs(10));
    open_gate("fair");
    holder.join().unwrap();
    let (status, took) = answered.expect("math waited behind the gate batch");
    assert_eq!(status, 200);
    assert!(took < Duration::from_secs(5), "{took:?}");
}
