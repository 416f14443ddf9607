//! `cascade serve` as a process: it binds loopback by default, prints where it
//! listens, and on SIGTERM answers every in-flight request before exiting 0.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

fn cascade() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cascade"))
}

/// Starts `cascade serve ARGS` and returns it with the first line it printed.
fn spawn_serve(args: &[&str]) -> (Child, String) {
    let mut child = cascade()
        .arg("serve")
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, line)
}

/// Starts `cascade serve ARGS` and returns it with the address it printed.
fn serve(args: &[&str]) -> (Child, String) {
    let (child, line) = spawn_serve(args);
    let addr = line
        .trim()
        .strip_prefix("cascade serve: listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    (child, addr)
}

/// Sends `head` (request line and headers, without the blank line) and `body` on a
/// fresh connection; returns the whole reply.
fn exchange(addr: &str, head: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{head}\r\nHost: {addr}\r\nConnection: close\r\n\r\n{body}"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

/// A raw HTTP/1.1 POST on a fresh connection; returns the whole reply.
fn post(addr: &str, path: &str, body: &str) -> String {
    let head = format!(
        "POST {path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}",
        body.len()
    );
    exchange(addr, &head, body)
}

fn queue_depth(addr: &str) -> u64 {
    exchange(addr, "GET /metrics HTTP/1.1", "")
        .lines()
        .find_map(|l| l.strip_prefix("cascade_queue_depth ")?.trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn serve_binds_loopback_unless_told_otherwise() {
    let (mut child, line) = spawn_serve(&[]);
    let _ = child.kill();
    let _ = child.wait();
    // Either it listens on 127.0.0.1:8000, or that port is taken: both name loopback.
    assert!(
        line.contains("listening on http://127.0.0.1:8000")
            || line.contains("cannot listen on 127.0.0.1:8000"),
        "{line}"
    );
}

#[test]
fn sigterm_drains_in_flight_requests_and_exits_zero() {
    let (mut child, addr) = serve(&["--addr", "127.0.0.1:0", "--jobs", "1"]);
    // A batch big enough to be in flight when the signal arrives.
    let samples: Vec<String> = (0..3000)
        .map(|i| format!(r#"{{"id":"{i}","answer":"{i}","response":"\\boxed{{{i}}}"}}"#))
        .collect();
    let body = format!(r#"{{"env":"math","samples":[{}]}}"#, samples.join(","));
    let in_flight = {
        let addr = addr.clone();
        std::thread::spawn(move || post(&addr, "/v1/score", &body))
    };
    // Signal once the batch is accepted (the queue gauge shows it), not before.
    for _ in 0..400 {
        if queue_depth(&addr) > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let reply = in_flight.join().unwrap();
    assert!(
        reply.starts_with("HTTP/1.1 200"),
        "{}",
        &reply[..reply.len().min(300)]
    );
    let body = &reply[reply.find("\r\n\r\n").unwrap() + 4..];
    let results: serde_json::Value = serde_json::from_str(body).unwrap();
    let results = results["results"].as_array().unwrap();
    assert_eq!(results.len(), 3000);
    assert!(results.iter().all(|r| r["reward"] == 1.0));
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut rest)
        .unwrap();
    assert!(rest.contains("drained"), "{rest}");
}

#[test]
fn run_time_plugins_are_served_on_the_batch_gym_and_openrlhf_routes() {
    let plugins = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/plugins");
    let (mut child, addr) = serve(&["--addr", "127.0.0.1:0", "--jobs", "2", "--plugins", plugins]);
    let body = r#"{"env":"math_brevity","samples":[
        {"id":"a","answer":"7","response":"7"},{"id":"b","answer":"7","response":"8"}]}"#;
    let reply = post(&addr, "/v1/score", body);
    let json = |reply: &str| -> serde_json::Value {
        serde_json::from_str(&reply[reply.find("\r\n\r\n").unwrap() + 4..]).unwrap()
    };
    let results = json(&reply)["results"].clone();
    assert_eq!(results[0]["reward"], 1.0, "{reply}");
    assert_eq!(results[1]["reward"], 0.0, "{reply}");
    assert!(results[0]["details"]["plugin_sha256"].is_string());
    // NeMo Gym's /verify: the row, its prompt and a Responses API reply.
    let gym = serde_json::json!({
        "answer": "7",
        "responses_create_params": {"input": [{"role": "user", "content": "3+4="}]},
        "response": {"id": "r", "created_at": 0.0, "model": "m", "object": "response",
            "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
            "output": [{"id": "m1", "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "It is 7", "annotations": []}]}]}
    });
    let reply = post(&addr, "/final_number/verify", &gym.to_string());
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    let verified = json(&reply);
    assert_eq!(verified["reward"], 1.0, "{verified}");
    assert_eq!(verified["details"]["reward_components"]["answer"], 1.0);
    // OpenRLHF's remote reward: queries, prompts and labels (the answers).
    let rm = r#"{"query": ["3+4= 7", "3+4= 9"], "prompts": ["3+4="], "labels": ["7", "7"]}"#;
    let rm = rm.replace(r#"["3+4="]"#, r#"["3+4=", "3+4="]"#);
    let reply = post(&addr, "/math_brevity/get_reward", &rm);
    assert_eq!(
        json(&reply)["rewards"],
        serde_json::json!([1.0, 0.0]),
        "{reply}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn startup_refuses_an_open_address_without_a_token_and_a_bad_token_file() {
    let refused = |args: &[&str]| {
        let out = cascade().arg("serve").args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?} started");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let open = refused(&["--addr", "0.0.0.0:0"]);
    assert!(open.contains("--insecure"), "{open}");
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "one\ntwo\n").unwrap();
    let two = refused(&[
        "--addr",
        "127.0.0.1:0",
        "--token-file",
        token.to_str().unwrap(),
    ]);
    assert!(two.contains("more than one line"), "{two}");
}
