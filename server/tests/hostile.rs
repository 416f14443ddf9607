//! `cascade serve` against untrusted clients, over real sockets on 127.0.0.1 and
//! bounded in time: slow and idle clients, the connection cap, oversized bodies, two
//! `Authorization` headers, a shutdown no client can hold up, and work for clients that
//! have gone.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use cascade_server::ServerConfig;
use common::{gate_sample, open_gate, TestServer};
use serde_json::json;

fn config() -> ServerConfig {
    ServerConfig {
        jobs: 1,
        base_dir: common::datasets(),
        header_timeout: Duration::from_millis(400),
        body_timeout: Duration::from_millis(400),
        drain_timeout: Duration::from_secs(2),
        ..ServerConfig::default()
    }
}

/// A loopback connection to `server` that has sent `bytes`; reads give up after 10 s.
fn connect(server: &TestServer, bytes: &[u8]) -> TcpStream {
    let addr = server.url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(bytes).unwrap();
    stream
}

/// Everything the server sends until it closes (or 10 s pass, which fails the test).
fn read_to_close(stream: &mut TcpStream) -> String {
    let mut reply = Vec::new();
    match stream.read_to_end(&mut reply) {
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        Err(e) => panic!("the server kept the connection open: {e}"),
    }
    String::from_utf8_lossy(&reply).into_owned()
}

fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn a_half_sent_head_and_an_idle_keep_alive_are_closed() {
    let server = TestServer::start(config());
    let started = Instant::now();
    let mut partial = connect(&server, b"POST /v1/sc");
    assert_eq!(read_to_close(&mut partial), "");
    let mut idle = connect(&server, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    let reply = read_to_close(&mut idle);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_slow_body_gets_408() {
    let server = TestServer::start(config());
    let head = "POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"env\":";
    let reply = read_to_close(&mut connect(&server, head.as_bytes()));
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("--body-timeout"), "{reply}");
}

#[test]
fn connections_past_the_cap_get_503_and_the_metric() {
    let server = TestServer::start(ServerConfig {
        max_connections: 2,
        header_timeout: Duration::from_secs(5),
        ..config()
    });
    let held: Vec<TcpStream> = (0..2).map(|_| connect(&server, b"")).collect();
    // Accepting is asynchronous: wait until both hold their slot.
    let deadline = Instant::now() + Duration::from_secs(5);
    let reply = loop {
        let reply = read_to_close(&mut connect(&server, b""));
        if reply.starts_with("HTTP/1.1 503") || Instant::now() > deadline {
            break reply;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
    assert!(reply.contains("--max-connections"), "{reply}");
    drop(held);
    let metrics = (0..200)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(10));
            let r = server.get("/metrics");
            (r.status == 200).then_some(r.body)
        })
        .unwrap();
    assert!(metric(&metrics, "cascade_refused_connections_total").unwrap() >= 1.0);
}

#[test]
fn an_announced_oversized_body_gets_413_before_any_is_read() {
    let server = TestServer::start(ServerConfig {
        max_body_bytes: 1000,
        ..config()
    });
    let head = "POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\nExpect: 100-continue\r\n\r\n";
    let reply = read_to_close(&mut connect(&server, head.as_bytes()));
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(!reply.contains("100 Continue"), "{reply}");
}

#[test]
fn two_authorization_headers_get_400() {
    let server = TestServer::start(ServerConfig {
        token: Some("t".into()),
        ..config()
    });
    let head = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer t\r\nAuthorization: Bearer u\r\n\r\n";
    let reply = read_to_close(&mut connect(&server, head.as_bytes()));
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
}

#[test]
fn shutdown_is_not_held_by_a_client_with_11_bytes_of_a_request() {
    let mut server = TestServer::start(ServerConfig {
        header_timeout: Duration::from_secs(60),
        ..config()
    });
    let _client = connect(&server, b"POST /v1/sc");
    std::thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    server.stop_signal();
    server.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn shutdown_answers_accepted_requests_and_drops_unfinished_uploads() {
    let mut server = TestServer::start(ServerConfig {
        body_timeout: Duration::from_secs(60),
        drain_timeout: Duration::from_secs(20),
        ..config()
    });
    let body = json!({"env": "gate", "samples": [gate_sample("a", "drain-upload")]}).to_string();
    let head = format!(
        "POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut accepted = connect(&server, head.as_bytes());
    let mut upload = connect(
        &server,
        b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"env\"",
    );
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    server.stop_signal();
    let dropped = read_to_close(&mut upload);
    assert!(dropped.starts_with("HTTP/1.1 503"), "{dropped}");
    open_gate("drain-upload");
    let mut reply = String::new();
    let mut buf = [0u8; 4096];
    while !reply.contains("\"gate\":\"drain-upload\"") {
        let n = accepted.read(&mut buf).unwrap();
        assert!(n > 0, "closed before the answer: {reply}");
        reply.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    server.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn unstarted_work_of_a_client_that_left_is_cancelled_and_counted() {
    let server = TestServer::start(config());
    let samples: Vec<_> = (0..3)
        .map(|i| gate_sample(&i.to_string(), "cancel"))
        .collect();
    let body = json!({"env": "gate", "samples": samples}).to_string();
    let head = format!(
        "POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let client = connect(&server, head.as_bytes());
    std::thread::sleep(Duration::from_millis(300));
    drop(client);
    std::thread::sleep(Duration::from_millis(300));
    open_gate("cancel");
    for _ in 0..500 {
        let metrics = server.get("/metrics").body;
        if metric(&metrics, "cascade_cancelled_samples_total").unwrap_or(0.0) >= 1.0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no cancelled sample counted");
}
