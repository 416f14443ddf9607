//! `cascade serve`: the reward server (`cascade_server`), with its flags. Exits 0 after
//! SIGTERM or ctrl-c once every in-flight request is answered.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use cascade_envs::EnvConfig;
use cascade_server::ceilings::Ceilings;
use cascade_server::startup::{check_exposure, read_token};
use cascade_server::{AppState, ServerConfig};
use clap::Args;

use super::{Failure, Plugins};

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on; loopback unless told otherwise (port 0 = any free port).
    #[arg(long, default_value = cascade_server::DEFAULT_ADDR)]
    pub addr: SocketAddr,
    /// Scoring threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Admission bound in samples: past it requests get 429 with Retry-After.
    #[arg(long, default_value_t = 4096)]
    pub max_queue: usize,
    /// A file holding the bearer token every route but /health then requires (exactly
    /// one token). Required for a non-loopback --addr unless --insecure.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Serve a non-loopback --addr without a token.
    #[arg(long)]
    pub insecure: bool,
    /// An environment to serve (repeatable); when given, no other is served. The first
    /// is the environment of the unprefixed /verify, /seed_session, /aggregate_metrics
    /// and /get_reward routes (NeMo Gym and OpenRLHF talk to one environment per server).
    #[arg(long = "env")]
    pub envs: Vec<String>,
    /// Setting of the first --env environment, KEY=VALUE (repeatable). Host settings
    /// (data_dir, api_key_env, endpoint, backend, runtimes, time and memory limits) come
    /// only from here, never from a request.
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// Folder that paths inside samples (swe's `repo`) must resolve under.
    #[arg(long, default_value = ".")]
    pub base_dir: PathBuf,
    /// The most bytes of a folder copied for one sample (swe's `repo`).
    #[arg(long, default_value_t = 256 << 20)]
    pub max_copy_bytes: u64,
    /// Request bodies larger than this many bytes get 413.
    #[arg(long, default_value_t = 64 << 20)]
    pub max_body_bytes: usize,
    /// Connections served at once; more get 503.
    #[arg(long, default_value_t = 512)]
    pub max_connections: usize,
    /// Seconds a client may take to send a request head; also how long a kept-alive
    /// connection may idle.
    #[arg(long, default_value_t = 10.0)]
    pub header_timeout: f64,
    /// Seconds a client may take to send a request body (then 408).
    #[arg(long, default_value_t = 30.0)]
    pub body_timeout: f64,
    /// Seconds SIGTERM waits for accepted requests before exiting regardless.
    #[arg(long, default_value_t = 30.0)]
    pub drain_timeout: f64,
    /// The most seconds per test a sample may ask for (`time_limit_s`); more is refused.
    #[arg(long, default_value_t = 10.0)]
    pub max_test_seconds: f64,
    /// The most MiB a sample may ask for (`memory_limit_mb`); more is refused.
    #[arg(long, default_value_t = 1024.0)]
    pub max_memory_mb: f64,
    /// The longest response, in bytes; a longer one is refused.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_response_bytes: usize,
}

pub fn run(args: ServeArgs, plugins: &Plugins) -> Result<(), Failure> {
    let config = server_config(&args)?;
    let registry = plugins.registry(&[], None)?;
    let state = AppState::new(config, registry).map_err(Failure::usage)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))
            .map_err(Failure::Usage)?;
        let local = listener.local_addr().context("no local address")?;
        eprintln!("cascade serve: listening on http://{local}");
        cascade_server::serve(listener, state.clone(), cascade_server::termination())
            .await
            .context("the server failed")?;
        eprintln!(
            "cascade serve: drained, exiting; answered {} requests",
            state.metrics.answered()
        );
        Ok(())
    });
    // Scoring still running past --drain-timeout must not hold the exit.
    runtime.shutdown_background();
    served
}

fn server_config(args: &ServeArgs) -> Result<ServerConfig, Failure> {
    let token = match &args.token_file {
        None => None,
        Some(path) => Some(read_token(path).map_err(Failure::usage)?),
    };
    check_exposure(args.addr, token.is_some(), args.insecure).map_err(Failure::usage)?;
    let default_config = EnvConfig::from_pairs(args.config.iter().map(String::as_str))
        .map_err(Failure::usage)?
        .table;
    Ok(ServerConfig {
        jobs: args.jobs,
        max_queue: args.max_queue,
        token,
        max_body_bytes: args.max_body_bytes,
        default_env: args.envs.first().cloned(),
        default_config,
        base_dir: args.base_dir.clone(),
        envs: args.envs.clone(),
        max_copy_bytes: args.max_copy_bytes,
        max_connections: args.max_connections,
        header_timeout: seconds("--header-timeout", args.header_timeout)?,
        body_timeout: seconds("--body-timeout", args.body_timeout)?,
        drain_timeout: seconds("--drain-timeout", args.drain_timeout)?,
        ceilings: Ceilings {
            max_test_seconds: args.max_test_seconds,
            max_memory_mb: args.max_memory_mb,
            max_response_bytes: args.max_response_bytes,
        },
        ..ServerConfig::default()
    })
}

fn seconds(flag: &str, value: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Failure::usage(anyhow::anyhow!(
                "{flag} {value}: not a positive number of seconds"
            ))
        })
}
