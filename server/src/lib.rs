//! # cascade-server
//!
//! `cascade serve`: every cascade environment over HTTP/JSON, with the same rewards
//! byte for byte as `cascade score`, for the RL stacks people already train with:
//!
//! | route | protocol |
//! | --- | --- |
//! | `POST /v1/score` | cascade's batch: sample lines in, result lines out, in order |
//! | `POST /{env}/verify`, `/{env}/seed_session`, `/{env}/aggregate_metrics` | a NeMo Gym resources server ([`gym`]) |
//! | `POST /{env}/get_reward`, `POST /get_reward` | OpenRLHF's `--remote_rm_url` ([`openrlhf`]) |
//! | `GET /health`, `GET /metrics` | liveness; Prometheus text ([`metrics`]) |
//!
//! With a default environment ([`ServerConfig::default_env`]) the Gym and OpenRLHF
//! routes are also served without the `/{env}` prefix, as those clients expect of a
//! server that hosts one environment.
//!
//! Scoring runs on a bounded pool of threads off the async runtime ([`queue`]); a full
//! queue answers 429 at once. Environments are built once per (name, config) and cached
//! ([`envs`]), since the code and swe environments compile modules when built.
//!
//! ## What this crate may not do
//! - It never scores by itself: every reward comes from `cascade_envs::scoring`, the
//!   one guarded path that `cascade score` prints, so the bytes agree.
//! - It runs no untrusted code itself: model programs run in the environments'
//!   sandboxes, as for the CLI.
//! - It never queues without bound, and never drops or reorders an accepted sample.
//! - Nothing in the workspace depends on it except the `cascade` binary.

pub mod auth;
pub mod body;
pub mod ceilings;
pub mod envs;
pub mod error;
pub mod gym;
pub mod listen;
pub mod metrics;
pub mod openrlhf;
pub mod queue;
mod routes;
pub mod score;
pub mod startup;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use cascade_envs::Registry;
use tokio::net::TcpListener;

pub use error::ApiError;
pub use routes::router;

/// Where `cascade serve` listens unless told otherwise: loopback only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8000";

/// Settings of one server, from `cascade serve`'s flags.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Scoring threads (0 = one per core).
    pub jobs: usize,
    /// Admission bound, in samples: accepted but unfinished samples never exceed it.
    pub max_queue: usize,
    /// The bearer token every route but `/health` needs; none = open.
    pub token: Option<String>,
    /// Request bodies larger than this get 413.
    pub max_body_bytes: usize,
    /// The environment of the unprefixed Gym and OpenRLHF routes.
    pub default_env: Option<String>,
    /// Settings for the default environment's routes (`--config KEY=VALUE`).
    pub default_config: serde_json::Map<String, serde_json::Value>,
    /// What relative paths inside samples (e.g. swe's `repo`) resolve against.
    pub base_dir: PathBuf,
    /// How many built environments are kept.
    pub env_cache: usize,
    /// The environments served (`--env`, repeatable); empty = every linked one.
    pub envs: Vec<String>,
    /// The most bytes a folder copied for one sample (swe's `repo`) may hold.
    pub max_copy_bytes: u64,
    /// Connections served at once; one more is answered 503 and closed.
    pub max_connections: usize,
    /// How long a client may take to send a request head, and how long a kept-alive
    /// connection may sit idle (hyper arms one timer for both).
    pub header_timeout: Duration,
    /// How long a client may take to send a request body.
    pub body_timeout: Duration,
    /// How long shutdown waits for accepted requests before exiting regardless.
    pub drain_timeout: Duration,
    /// What one sample may ask for.
    pub ceilings: ceilings::Ceilings,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            jobs: 0,
            max_queue: 4096,
            token: None,
            max_body_bytes: 64 << 20,
            default_env: None,
            default_config: serde_json::Map::new(),
            base_dir: PathBuf::from("."),
            env_cache: 32,
            envs: Vec::new(),
            max_copy_bytes: 256 << 20,
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            drain_timeout: Duration::from_secs(30),
            ceilings: ceilings::Ceilings::default(),
        }
    }
}

/// The shared state of every route.
pub struct AppState {
    pub config: ServerConfig,
    pub envs: Arc<envs::EnvCache>,
    pub queue: queue::ScoringQueue,
    pub metrics: metrics::Metrics,
}

/// The server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Pool(#[from] cascade_envs::scoring::PoolError),
    #[error("the default environment: {0}")]
    DefaultEnv(String),
    #[error("--env: {0}")]
    Env(String),
    #[error("serving failed: {0}")]
    Io(#[from] std::io::Error),
}

impl AppState {
    /// The state for `config`, scoring with the environments of `registry`.
    pub fn new(config: ServerConfig, registry: Registry) -> Result<Arc<Self>, ServeError> {
        let envs = envs::EnvCache::new(registry, config.base_dir.clone(), config.env_cache)
            .exposing(&config.envs)
            .map_err(ServeError::Env)?
            .with_max_copy_bytes(config.max_copy_bytes);
        if let Some(name) = &config.default_env {
            envs.check_known(name)
                .map_err(|e| ServeError::DefaultEnv(e.message))?;
        }
        let queue = queue::ScoringQueue::new(config.jobs, config.max_queue)?;
        Ok(Arc::new(Self {
            config,
            envs: Arc::new(envs),
            queue,
            metrics: metrics::Metrics::default(),
        }))
    }

    /// The settings the operator gave `env` (`--config`, for the default environment).
    pub fn operator_config(&self, env: &str) -> &serde_json::Map<String, serde_json::Value> {
        static NONE: std::sync::OnceLock<serde_json::Map<String, serde_json::Value>> =
            std::sync::OnceLock::new();
        if self.config.default_env.as_deref() == Some(env) {
            &self.config.default_config
        } else {
            NONE.get_or_init(serde_json::Map::new)
        }
    }
}

impl AppState {
    /// The metrics label for `env`: its name when known, else `unknown`, so clients
    /// cannot grow the label set without bound.
    pub fn env_label(&self, env: &str) -> metrics::EnvLabel {
        if self.envs.check_known(env).is_ok() {
            metrics::EnvLabel(env.to_owned())
        } else {
            metrics::EnvLabel("unknown".to_owned())
        }
    }
}

/// Serves `state` on `listener` until `shutdown` completes, then stops accepting,
/// answers the accepted requests and returns within `drain_timeout` ([`listen`]).
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    listen::serve(listener, state, shutdown).await
}

/// Completes on SIGTERM or ctrl-c (SIGINT): what `cascade serve` drains on.
pub async fn termination() {
    let ctrl_c = async {
        // An error here means no handler could be installed; then only SIGTERM stops us.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
