//! `cascade check`: re-score and compare with stored scores, for reproducing rewards
//! in CI. Any difference in reward or details is a mismatch (exit 1) with a readable
//! diff; an unreadable expected file is exit 2.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde_json::{Map, Value};

use cascade_envs::{Registry, ResultLine};

use super::batch::score_all;
use super::input::{read_results, read_samples, NumberedSample};
use super::score::build_env;
use super::summary::Summary;
use super::{Failure, Plugins};

#[derive(Args)]
pub struct CheckArgs {
    /// Environment name (see `cascade envs`).
    #[arg(long)]
    pub env: String,
    /// Input samples: JSONL, a parquet file or a dataset folder (as `score`).
    #[arg(long)]
    pub input: PathBuf,
    /// The split to read when `--input` is a dataset folder [default: train].
    #[arg(long)]
    pub split: Option<String>,
    /// Stored results (the output of `cascade score`).
    #[arg(long)]
    pub expected: PathBuf,
    /// Scoring threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Environment setting, KEY=VALUE (repeatable).
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub config: Vec<String>,
}

pub fn run(args: CheckArgs, plugins: &Plugins) -> Result<(), Failure> {
    let registry = plugins.registry(&[], None)?;
    let env = build_env(&registry, &args.env, &args.config, &args.input)?;
    let samples = read_samples(&args.input, args.split.as_deref()).map_err(Failure::usage)?;
    let expected = read_results(&args.expected).map_err(Failure::usage)?;
    let started = Instant::now();
    let actual = score_all(env.as_ref(), &samples, args.jobs)?;
    eprint!(
        "{}",
        Summary::new(&args.env, &actual, started.elapsed()).with_plugins(&registry)
    );

    let report = diff(&samples, &actual, &expected);
    if report.mismatches == 0 {
        eprintln!(
            "check passed: {} lines match {}",
            actual.len(),
            args.expected.display()
        );
        return Ok(());
    }
    print!("{}", report.text);
    if let Some(changed) = changed_plugin(&registry, &args.env, &expected) {
        eprintln!("{changed}");
    }
    Err(Failure::CheckFailed(format!(
        "check failed: {} of {} lines differ from {}",
        report.mismatches,
        actual.len().max(expected.len()),
        args.expected.display()
    )))
}

/// When the expected lines were scored by another version of the plugin being checked
/// (their `details.plugin_sha256`), says so: the likely cause of the diff.
fn changed_plugin(registry: &Registry, env: &str, expected: &[NumberedSample]) -> Option<String> {
    let listing = registry.listing(env)?;
    let now = listing.sha256.as_deref()?;
    let before = expected.iter().find_map(|e| {
        let sha = e
            .sample
            .value()
            .pointer("/details/plugin_sha256")?
            .as_str()?;
        (sha != now).then(|| sha.to_owned())
    })?;
    Some(format!(
        "plugin `{env}` changed: the expected results were scored by sha256 {before}, \
         this run by sha256 {now} ({})",
        listing.origin
    ))
}

struct DiffReport {
    mismatches: usize,
    text: String,
}

fn diff(
    samples: &[NumberedSample],
    actual: &[ResultLine],
    expected: &[NumberedSample],
) -> DiffReport {
    let mut text = String::new();
    let mut mismatches = 0;
    for i in 0..actual.len().max(expected.len()) {
        match (actual.get(i), expected.get(i)) {
            (Some(got), Some(want)) => {
                let lines = compare(got, want.sample.value());
                if !lines.is_empty() {
                    mismatches += 1;
                    let _ = writeln!(
                        text,
                        "input line {} (id {}):",
                        input_line(samples, i),
                        got.id
                    );
                    for l in lines {
                        let _ = writeln!(text, "  {l}");
                    }
                }
            }
            (Some(got), None) => {
                mismatches += 1;
                let _ = writeln!(
                    text,
                    "input line {} (id {}): no expected line (expected file is shorter)",
                    input_line(samples, i),
                    got.id
                );
            }
            (None, Some(want)) => {
                mismatches += 1;
                let _ = writeln!(
                    text,
                    "expected line {}: no input sample (input file is shorter)",
                    want.line
                );
            }
            (None, None) => {}
        }
    }
    DiffReport { mismatches, text }
}

fn input_line(samples: &[NumberedSample], index: usize) -> usize {
    samples.get(index).map_or(0, |s| s.line)
}

/// Human-readable differences between a fresh result and a stored one.
fn compare(got: &ResultLine, want: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let want_id = want.get("id").cloned().unwrap_or(Value::Null);
    if want_id != got.id {
        out.push(format!("id: expected {want_id}, got {}", got.id));
    }
    let got_reward = got.scored().map_or(Value::Null, Value::from);
    match want.get("reward") {
        Some(Value::Null) if got_reward.is_null() => {}
        Some(w) if w.as_f64().is_some() && w.as_f64() == got.scored() => {}
        Some(w @ (Value::Null | Value::Number(_))) => {
            out.push(format!("reward: expected {w}, got {got_reward}"))
        }
        _ => out.push("reward: missing, or neither a number nor null, in the expected line".into()),
    }
    let empty = Map::new();
    let want_details = want
        .get("details")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    diff_objects("details", want_details, &got.details, &mut out);
    out
}

fn diff_objects(
    path: &str,
    want: &Map<String, Value>,
    got: &Map<String, Value>,
    out: &mut Vec<String>,
) {
    let mut keys: Vec<&String> = want.keys().chain(got.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let here = format!("{path}.{key}");
        match (want.get(key), got.get(key)) {
            (Some(Value::Object(w)), Some(Value::Object(g))) => diff_objects(&here, w, g, out),
            (Some(w), Some(g)) if w == g => {}
            (Some(w), Some(g)) => {
                out.push(format!("{here}: expected {}, got {}", brief(w), brief(g)))
            }
            (Some(w), None) => out.push(format!("{here}: expected {}, now absent", brief(w))),
            (None, Some(g)) => out.push(format!("{here}: not expected, got {}", brief(g))),
            (None, None) => {}
        }
    }
}

fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}
