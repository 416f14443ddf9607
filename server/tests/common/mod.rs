//! A real server on an ephemeral loopback port, and a plain HTTP client for it.
#![allow(dead_code)] // each test binary uses part of this

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::thread::JoinHandle;

use cascade_envs::{
    ChatMessage, ConfigError, EnvConfig, EnvPlugin, Environment, Registry, Reward, Sample,
};
use cascade_server::{AppState, ServeError, ServerConfig};
use cascade_verifiers::FieldError;

pub struct TestServer {
    pub url: String,
    pub state: std::sync::Arc<AppState>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<(), ServeError>>>,
}

/// A reply: status, `Retry-After` (if any) and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

impl TestServer {
    /// A server with every linked environment plus the test's `gate` environment.
    pub fn start(config: ServerConfig) -> Self {
        let mut registry = Registry::discover().unwrap();
        registry.register_env(&GATE_PLUGIN).unwrap();
        Self::start_with(config, registry)
    }

    pub fn start_with(config: ServerConfig, registry: Registry) -> Self {
        let state = AppState::new(config, registry).unwrap();
        let shared = state.clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (bound, addr) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                bound.send(listener.local_addr().unwrap()).unwrap();
                cascade_server::serve(listener, state, async {
                    let _ = stopped.await;
                })
                .await
            })
        });
        let addr = addr.recv().unwrap();
        Self {
            url: format!("http://{addr}"),
            state: shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    pub fn post(&self, path: &str, body: &str) -> Reply {
        self.request("POST", path, Some(body), None)
    }

    pub fn get(&self, path: &str) -> Reply {
        self.request("GET", path, None, None)
    }

    pub fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        token: Option<&str>,
    ) -> Reply {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let url = format!("{}{path}", self.url);
        let auth = token.map(|t| format!("Bearer {t}"));
        let result = match (method, body) {
            ("POST", Some(body)) => {
                let mut r = agent.post(&url).header("Content-Type", "application/json");
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.send(body)
            }
            _ => {
                let mut r = agent.get(&url);
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.call()
            }
        };
        let mut response = result.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let retry_after = response
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = response
            .body_mut()
            .with_config()
            .limit(1 << 30)
            .read_to_string()
            .unwrap();
        Reply {
            status: response.status().as_u16(),
            retry_after,
            body,
        }
    }

    /// Signals shutdown and waits for the drain; the server's own result.
    pub fn stop(mut self) -> Result<(), ServeError> {
        self.stop_signal();
        self.thread.take().unwrap().join().unwrap()
    }

    /// Signals shutdown without waiting.
    pub fn stop_signal(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    pub fn join(mut self) -> Result<(), ServeError> {
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop_signal();
    }
}

/// `datasets/` of the workspace.
pub fn datasets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets")
}

/// Each bundled sample file with its stored `cascade score` lines: (env, dir, samples
/// as JSON values, expected lines as text).
pub fn bundled() -> Vec<(String, PathBuf, Vec<serde_json::Value>, Vec<String>)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(datasets()).unwrap().flatten().collect();
    dirs.sort_by_key(|e| e.file_name());
    for entry in dirs {
        let dir = entry.path();
        let (input, expected) = (dir.join("sample.jsonl"), dir.join("sample.expected.jsonl"));
        if !input.exists() || !expected.exists() {
            continue;
        }
        let samples = cascade_datasets::jsonl::read_values(&input)
            .unwrap()
            .into_iter()
            .map(|row| row.value)
            .collect();
        let lines = std::fs::read_to_string(&expected)
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect();
        out.push((
            entry.file_name().to_string_lossy().into_owned(),
            dir,
            samples,
            lines,
        ));
    }
    assert!(
        out.len() >= 4,
        "bundled samples not found under {:?}",
        datasets()
    );
    out
}

// ---- the `gate` environment: scoring blocks until the test opens the sample's gate.

static OPEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
static CHANGED: Condvar = Condvar::new();

/// Lets every `gate` sample with `"gate": name` finish (reward 1).
pub fn open_gate(name: &str) {
    let mut open = OPEN.lock().unwrap();
    open.get_or_insert_with(HashSet::new)
        .insert(name.to_owned());
    CHANGED.notify_all();
}

struct Gate;

impl Environment for Gate {
    fn name(&self) -> &str {
        "gate"
    }
    fn prompt(&self, _: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        Ok(vec![])
    }
    fn score(&self, sample: &Sample) -> Reward {
        let name = match sample.str_field("gate") {
            Ok(name) => name.to_owned(),
            Err(e) => return Reward::error(e.to_string()),
        };
        let mut open = OPEN.lock().unwrap();
        while !open.as_ref().is_some_and(|o| o.contains(&name)) {
            open = CHANGED.wait(open).unwrap();
        }
        Reward::new(1.0).with("gate", name)
    }
}

fn make_gate(_: &EnvConfig) -> Result<Box<dyn Environment>, ConfigError> {
    Ok(Box::new(Gate))
}

static GATE_PLUGIN: EnvPlugin = EnvPlugin {
    name: "gate",
    origin: "server tests",
    description: "blocks until the test opens the sample's gate",
    make: make_gate,
};

/// A `gate` sample line.
pub fn gate_sample(id: &str, gate: &str) -> serde_json::Value {
    serde_json::json!({"id": id, "gate": gate, "response": ""})
}
