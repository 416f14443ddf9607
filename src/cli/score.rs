//! `cascade score`: score every row of a dataset (JSONL, parquet or a folder of shards).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use cascade_datasets::jsonl;
use cascade_envs::{EnvConfig, Environment, Registry};
use clap::Args;

use cascade_envs::ResultLine;

use super::batch::score_all;
use super::input::read_samples;
use super::route::{score_routed, Routing};
use super::summary::Summary;
use super::{Failure, Plugins};

#[derive(Args)]
pub struct ScoreArgs {
    /// Environment name (see `cascade envs`); or route each row with `--route-by`.
    #[arg(long, required_unless_present = "route_by")]
    pub env: Option<String>,
    /// Score a mixed file: each row by the env its FIELD (a dotted path, e.g.
    /// `agent_ref.name`) names, through `--route` and then NeMo Gym's agent names.
    #[arg(long, value_name = "FIELD", conflicts_with = "env")]
    pub route_by: Option<String>,
    /// With `--route-by`: the env for one value, VALUE=ENV (repeatable), e.g.
    /// `--route mcqa_simple_agent=mcqa`.
    #[arg(long = "route", value_name = "VALUE=ENV", requires = "route_by")]
    pub routes: Vec<String>,
    /// Input samples: JSONL (one JSON object per line), a parquet file, or a Hugging
    /// Face dataset folder of parquet shards.
    #[arg(long)]
    pub input: PathBuf,
    /// The split to read when `--input` is a dataset folder [default: train].
    #[arg(long)]
    pub split: Option<String>,
    /// Where to write results; stdout when absent.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Scoring threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Environment setting, KEY=VALUE (repeatable), e.g. `--config fractional=true`.
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
}

pub fn run(args: ScoreArgs, plugins: &Plugins) -> Result<(), Failure> {
    let registry = plugins.registry(&[], None)?;
    let (label, results, elapsed) = match (&args.env, &args.route_by) {
        (Some(name), _) => {
            let env = build_env(&registry, name, &args.config, &args.input)?;
            let samples =
                read_samples(&args.input, args.split.as_deref()).map_err(Failure::usage)?;
            let started = Instant::now();
            let results = score_all(env.as_ref(), &samples, args.jobs)?;
            (name.clone(), results, started.elapsed())
        }
        (None, field) => {
            let field = field.as_deref().unwrap_or(cascade_envs::gym::AGENT_FIELD);
            let routing = Routing::new(field, &args.routes)?;
            let samples =
                read_samples(&args.input, args.split.as_deref()).map_err(Failure::usage)?;
            let started = Instant::now();
            let results = score_routed(&registry, &routing, &args, &samples)?;
            (format!("routed by {field}"), results, started.elapsed())
        }
    };
    let summary = Summary::new(&label, &results, elapsed).with_plugins(&registry);
    match &args.output {
        Some(path) => write_atomically(path, &results)?,
        None => {
            let mut out = std::io::stdout().lock();
            write_lines(&mut out, &results).context("cannot write to stdout")?;
        }
    }
    eprint!("{summary}");
    Ok(())
}

/// Builds the named environment. Relative paths inside samples (e.g. `swe`'s `repo`)
/// resolve against the input file's folder (a dataset folder's own).
pub fn build_env(
    registry: &Registry,
    name: &str,
    pairs: &[String],
    input: &Path,
) -> Result<Box<dyn Environment>, Failure> {
    let dir = if input.is_dir() {
        input
    } else {
        input
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    };
    let config = EnvConfig::from_pairs(pairs.iter().map(String::as_str))
        .map_err(Failure::usage)?
        .with_base_dir(dir);
    registry.create(name, &config).map_err(Failure::usage)
}
fn write_lines(out: &mut dyn Write, results: &[ResultLine]) -> std::io::Result<()> {
    for r in results {
        writeln!(out, "{}", r.to_json())?;
    }
    out.flush()
}

/// Writes the results atomically (`cascade_datasets::jsonl::write_atomic_with`). A
/// folder that cannot take the output is an unusable argument (exit 2).
fn write_atomically(path: &Path, results: &[ResultLine]) -> Result<(), Failure> {
    match jsonl::write_atomic_with(path, |out| write_lines(out, results)) {
        Ok(()) => Ok(()),
        Err(e @ jsonl::JsonlError::Folder { .. }) => Err(Failure::usage(e)),
        Err(e) => Err(Failure::Other(e.into())),
    }
}
