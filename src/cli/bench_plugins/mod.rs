//! `cascade bench-plugins`: one reward function three ways on the same samples (not a
//! timed test: it reports figures, the README records them):
//! 1. a cascade Python plugin (sandboxed, resident interpreters, one door exchange per
//!    call);
//! 2. the same file's `verify` called in-process by the host's `python3`, the way TRL
//!    and verl call reward functions (no sandbox; processes for more than one core);
//! 3. the built-in Rust verifier `exact_match`.
//!
//! The function is `exact_match`'s: 1 when the trimmed response equals the trimmed
//! `answer`. Per-call latency (p50, p99) and throughput at each `--jobs`; every path's
//! reward total must agree.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use cascade_envs::plugins::PluginLimits;
use cascade_envs::{score_guarded, Environment, Registry, Sample, ScoringPool};
use clap::Args;
use serde_json::{json, Value};

use super::Failure;

/// The reward function, as a cascade plugin and as a plain Python function.
const PLUGIN: &str = r#"def verify(sample):
    return 1.0 if sample["response"].strip() == str(sample["answer"]).strip() else 0.0
"#;
const IN_PROCESS: &str = include_str!("in_process.py");

#[derive(Args)]
pub struct BenchPluginsArgs {
    /// Samples scored by each path.
    #[arg(long, default_value_t = 10_000)]
    pub samples: usize,
    /// Core counts to measure (scoring threads; peer processes).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub jobs: Vec<usize>,
    /// The peer's interpreter.
    #[arg(long, default_value = "python3")]
    pub python: String,
}

/// One path at one core count.
struct Figures {
    wall: Duration,
    p50_us: f64,
    p99_us: f64,
    reward_sum: f64,
}

pub fn run(args: BenchPluginsArgs) -> Result<(), Failure> {
    let dir = tempfile::tempdir().context("cannot make a temporary folder")?;
    std::fs::write(dir.path().join("exact.py"), PLUGIN).context("cannot write the plugin")?;
    let samples = samples(args.samples);
    let input = dir.path().join("samples.jsonl");
    let lines: Vec<String> = samples.iter().map(|s| s.value().to_string()).collect();
    std::fs::write(&input, lines.join("\n") + "\n").context("cannot write the samples")?;
    let registry =
        Registry::discover_with_plugins(&[dir.path().to_owned()], &PluginLimits::default())
            .map_err(Failure::usage)?;
    let config = cascade_envs::EnvConfig::default();
    let plugin = registry.create("exact", &config).map_err(Failure::usage)?;
    let builtin = registry
        .create("exact_match", &config)
        .map_err(Failure::usage)?;
    println!(
        "{} samples; the same function as a cascade Python plugin, in-process Python \
         (TRL/verl), and the built-in Rust verifier",
        samples.len()
    );
    println!(
        "a fresh sandboxed interpreter per call instead (what a resident avoids): {:.1} ms each",
        fresh_start_ms()?
    );
    println!(
        "{:<28} {:>5} {:>12} {:>10} {:>10}",
        "path", "cores", "samples/s", "p50 µs", "p99 µs"
    );
    for &jobs in &args.jobs {
        let rows = [
            (
                "cascade python plugin",
                measure(plugin.as_ref(), &samples, jobs)?,
            ),
            (
                "in-process python (peer)",
                peer(&args.python, &input, &dir.path().join("exact.py"), jobs)?,
            ),
            (
                "built-in rust verifier",
                measure(builtin.as_ref(), &samples, jobs)?,
            ),
        ];
        let expected = rows[2].1.reward_sum;
        for (name, f) in &rows {
            if f.reward_sum != expected {
                let message = format!(
                    "{name} summed reward {} where the built-in summed {expected}",
                    f.reward_sum
                );
                return Err(Failure::Other(anyhow::anyhow!(message)));
            }
            let rate = samples.len() as f64 / f.wall.as_secs_f64();
            println!(
                "{name:<28} {jobs:>5} {rate:>12.0} {:>10.1} {:>10.1}",
                f.p50_us, f.p99_us
            );
        }
        let (plugin, in_process) = (&rows[0].1, &rows[1].1);
        println!(
            "  at {jobs} cores the sandboxed plugin costs {:.0} µs more per call (p50) than \
             the unsandboxed in-process call, {:.1}% of its throughput",
            plugin.p50_us - in_process.p50_us,
            100.0 * in_process.wall.as_secs_f64() / plugin.wall.as_secs_f64()
        );
    }
    Ok(())
}

/// Deterministic samples, half of them correct.
fn samples(n: usize) -> Vec<Sample> {
    (0..n)
        .map(|i| {
            let answer = (i * 7919 % 1000).to_string();
            let response = if i % 2 == 0 {
                format!(" {answer} ")
            } else {
                format!("{}", i % 997)
            };
            Sample::new(json!({ "id": format!("s{i}"), "answer": answer, "response": response }))
        })
        .collect()
}

/// Scores every sample on `jobs` threads, timing each call.
fn measure(env: &dyn Environment, samples: &[Sample], jobs: usize) -> Result<Figures, Failure> {
    let pool = ScoringPool::new(jobs).map_err(|e| Failure::Other(e.into()))?;
    let started = Instant::now();
    let timed = pool.map(samples, |sample| {
        let call = Instant::now();
        let reward = score_guarded(env, sample);
        (call.elapsed(), reward.score)
    });
    let wall = started.elapsed();
    let mut latencies: Vec<Duration> = timed.iter().map(|(d, _)| *d).collect();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    Ok(Figures {
        wall,
        p50_us: at(0.5).as_secs_f64() * 1e6,
        p99_us: at(0.99).as_secs_f64() * 1e6,
        reward_sum: timed.iter().map(|(_, r)| r).sum(),
    })
}

/// The median wall time of starting the sandbox's CPython and running `verify` once.
fn fresh_start_ms() -> Result<f64, Failure> {
    use cascade_sandboxes::{Limits, Python, PythonRuntime};
    let python = Python::load(PythonRuntime::Cpython315Snapshot).map_err(Failure::usage)?;
    let source = format!("{PLUGIN}verify({{'response': ' 1', 'answer': 1}})\n");
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let started = Instant::now();
            let run = python.run_source(&source, b"", &Limits::default());
            (run, started.elapsed().as_secs_f64() * 1e3)
        })
        .map(|(run, ms)| run.map(|_| ms))
        .collect::<Result<_, _>>()
        .map_err(|e| Failure::Other(e.into()))?;
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// The peer: the host's Python calling the function in its own process.
fn peer(python: &str, input: &Path, plugin: &Path, jobs: usize) -> Result<Figures, Failure> {
    let script = input.with_file_name("in_process.py");
    std::fs::write(&script, IN_PROCESS).context("cannot write the peer script")?;
    let out = std::process::Command::new(python)
        .arg(&script)
        .arg(input)
        .arg(plugin)
        .arg(jobs.to_string())
        .output()
        .with_context(|| format!("cannot run the peer `{python}`"))?;
    if !out.status.success() {
        let message = format!("the peer failed: {}", String::from_utf8_lossy(&out.stderr));
        return Err(Failure::Other(anyhow::anyhow!(message)));
    }
    let figures: Value = serde_json::from_slice(&out.stdout).context("the peer's figures")?;
    let number = |k: &str| figures[k].as_f64().unwrap_or(f64::NAN);
    Ok(Figures {
        wall: Duration::from_secs_f64(number("wall_s")),
        p50_us: number("p50_us"),
        p99_us: number("p99_us"),
        reward_sum: number("reward_sum"),
    })
}
