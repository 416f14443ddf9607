//! Argument parsing and dispatch. Each subcommand lives in its own module; they share
//! the input reader and the batch scorer. The training commands exist only with the
//! `train` feature (the default), so the reward side builds without torch.

mod batch;
#[cfg(feature = "train")]
mod bench_grpo;
#[cfg(feature = "train")]
mod bench_model;
mod bench_plugins;
mod bench_serve;
mod build_plugin;
mod check;
mod envs;
mod exit;
mod gen_ifeval;
#[cfg(feature = "train")]
mod gen_long_context;
mod gen_workplace;
mod input;
mod route;
mod score;
mod serve;
mod summary;
#[cfg(feature = "train")]
mod train;

use std::path::PathBuf;
use std::process::ExitCode;

use cascade_envs::plugins::PluginLimits;
use cascade_envs::Registry;

use clap::{Parser, Subcommand};

pub use exit::Failure;

#[derive(Parser)]
#[command(
    name = "cascade",
    version,
    about = "Verifiable-reward environments and the Cascade RL loop"
)]
struct Cli {
    /// A folder (or file) of verifier plugins: `name.py`, `name.wasm`, `name.toml`
    /// (repeatable; also `CASCADE_PLUGINS`, a path list).
    #[arg(long = "plugins", value_name = "DIR", global = true)]
    plugins: Vec<PathBuf>,
    /// Ceilings on every plugin's limits, e.g. `time_s=5,memory_mb=1024,load_time_s=60,
    /// workers=4` (also `CASCADE_PLUGIN_LIMITS`; keys left out keep the defaults 2 s,
    /// 512 MiB, 30 s, 8). A manifest may only lower them; a higher value is lowered to
    /// the ceiling and reported on stderr.
    #[arg(long = "plugin-limits", value_name = "KEY=VALUE,…", global = true)]
    plugin_limits: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score every line of a JSONL file; one result line per input line, same order.
    Score(score::ScoreArgs),
    /// Re-score and compare with stored scores; exit 1 with a diff on any mismatch.
    Check(check::CheckArgs),
    /// List every environment and verifier plugin, with where it came from.
    Envs,
    /// Compile a C or C++ verifier plugin to a WASM plugin (`name.wasm`).
    BuildPlugin(build_plugin::BuildPluginArgs),
    /// Write a reproducible IF-RL prompt set (IFEval JSONL layout).
    GenIfeval(gen_ifeval::GenIfevalArgs),
    /// Write reproducible workplace tool-use tasks (NeMo Gym's row layout).
    GenWorkplace(gen_workplace::GenWorkplaceArgs),
    /// Write reproducible long-context tasks sized in tokens of a tokenizer.
    #[cfg(feature = "train")]
    GenLongContext(gen_long_context::GenLongContextArgs),
    /// Serve every environment over HTTP: batch, NeMo Gym and OpenRLHF protocols.
    Serve(serve::ServeArgs),
    /// One reward function as a Python plugin, in-process Python (TRL/verl) and Rust.
    BenchPlugins(bench_plugins::BenchPluginsArgs),
    /// Load-test `cascade serve` on loopback against `cascade score` on the same samples.
    BenchServe(bench_serve::BenchServeArgs),
    /// Run a Cascade recipe stage by stage: checkpoints, evals, plots.
    #[cfg(feature = "train")]
    Train(train::TrainArgs),
    /// The TRL-comparable GRPO toy benchmark: steps/s and the reward curve.
    #[cfg(feature = "train")]
    BenchGrpo(bench_grpo::BenchGrpoArgs),
    /// Sampling/training tokens/s and MFU of a random model of a given shape.
    #[cfg(feature = "train")]
    BenchModel(bench_model::BenchModelArgs),
}

/// Parses the command line, runs the command and maps failures to exit codes:
/// 0 success, 1 a check failed, 2 unusable arguments or input.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let plugins = match Plugins::new(cli.plugins, cli.plugin_limits.as_deref()) {
        Ok(plugins) => plugins,
        Err(failure) => return failure.report(),
    };
    let result = match cli.command {
        Command::Score(args) => score::run(args, &plugins),
        Command::Check(args) => check::run(args, &plugins),
        Command::Envs => envs::run(&plugins),
        Command::BuildPlugin(args) => build_plugin::run(args),
        Command::GenIfeval(args) => gen_ifeval::run(args),
        Command::GenWorkplace(args) => gen_workplace::run(args),
        #[cfg(feature = "train")]
        Command::GenLongContext(args) => gen_long_context::run(args),
        Command::Serve(args) => serve::run(args, &plugins),
        Command::BenchServe(args) => bench_serve::run(args),
        Command::BenchPlugins(args) => bench_plugins::run(args),
        #[cfg(feature = "train")]
        Command::Train(args) => train::run(args, &plugins),
        #[cfg(feature = "train")]
        Command::BenchGrpo(args) => bench_grpo::run(args),
        #[cfg(feature = "train")]
        Command::BenchModel(args) => bench_model::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

/// The plugin paths of this run (`--plugins`, then `CASCADE_PLUGINS`) and the
/// operator's ceilings on their limits (`--plugin-limits`, else `CASCADE_PLUGIN_LIMITS`).
pub struct Plugins {
    paths: Vec<PathBuf>,
    ceiling: PluginLimits,
}

impl Plugins {
    fn new(mut paths: Vec<PathBuf>, limits: Option<&str>) -> Result<Self, Failure> {
        if let Some(list) = std::env::var_os("CASCADE_PLUGINS") {
            paths.extend(std::env::split_paths(&list).filter(|p| !p.as_os_str().is_empty()));
        }
        let ceiling = PluginLimits::operator_ceiling(limits)
            .map_err(|e| Failure::usage(anyhow::anyhow!(e)))?;
        Ok(Self { paths, ceiling })
    }

    /// Every built-in environment plus these plugins and `more` (a recipe's), their
    /// limits under the operator's ceilings and `recipe_ceiling` (the lower wins); a
    /// plugin that fails to load is unusable input (exit 2).
    pub fn registry(
        &self,
        more: &[PathBuf],
        recipe_ceiling: Option<&PluginLimits>,
    ) -> Result<Registry, Failure> {
        let mut all = self.paths.clone();
        all.extend_from_slice(more);
        let ceiling = match recipe_ceiling {
            Some(recipe) => {
                recipe
                    .check()
                    .map_err(|e| Failure::usage(anyhow::anyhow!("[run] plugin_limits: {e}")))?;
                self.ceiling.lower(recipe)
            }
            None => self.ceiling.clone(),
        };
        let registry = Registry::discover_with_plugins(&all, &ceiling).map_err(Failure::usage)?;
        for listing in registry.listings() {
            if !listing.lowered_limits.is_empty() {
                eprintln!(
                    "plugin `{}`: limits lowered to the operator's ceilings: {}",
                    listing.name,
                    listing.lowered_limits.join(", ")
                );
            }
        }
        Ok(registry)
    }
}
