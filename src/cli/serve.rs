//! `cascade serve`: the reward server (`cascade_server`), with its flags. Exits 0 after
//! SIGTERM or ctrl-c once every in-flight request is answered.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use cascade_envs::EnvConfig;
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
    /// A file holding the bearer token every route but /health then requires.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// The environment of the unprefixed /verify, /seed_session, /aggregate_metrics and
    /// /get_reward routes (NeMo Gym and OpenRLHF talk to one environment per server).
    #[arg(long)]
    pub env: Option<String>,
    /// Setting of the `--env` environment, KEY=VALUE (repeatable).
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
    /// Folder that relative paths inside samples (swe's `repo`) resolve against.
    #[arg(long, default_value = ".")]
    pub base_dir: PathBuf,
    /// Request bodies larger than this many bytes get 413.
    #[arg(long, default_value_t = 64 << 20)]
    pub max_body_bytes: usize,
}

pub fn run(args: ServeArgs, plugins: &Plugins) -> Result<(), Failure> {
    let config = server_config(&args)?;
    let registry = plugins.registry(&[], None)?;
    let state = AppState::new(config, registry).map_err(Failure::usage)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
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
    })
}

fn server_config(args: &ServeArgs) -> Result<ServerConfig, Failure> {
    let token = match &args.token_file {
        None => None,
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the token file {}", path.display()))
                .map_err(Failure::Usage)?;
            let token = text.trim().to_owned();
            if token.is_empty() {
                return Err(Failure::usage(anyhow::anyhow!(
                    "the token file {} is empty",
                    path.display()
                )));
            }
            Some(token)
        }
    };
    let default_config = EnvConfig::from_pairs(args.config.iter().map(String::as_str))
        .map_err(Failure::usage)?
        .table;
    Ok(ServerConfig {
        jobs: args.jobs,
        max_queue: args.max_queue,
        token,
        max_body_bytes: args.max_body_bytes,
        default_env: args.env.clone(),
        default_config,
        base_dir: args.base_dir.clone(),
        ..ServerConfig::default()
    })
}
