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
