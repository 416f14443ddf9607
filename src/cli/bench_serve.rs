//! `cascade bench-serve`: the load test of `cascade serve` on loopback (not a timed
//! test: it reports figures, the README records them).
//!
//! In one run, on the same samples (the bundled math and code samples, cycled to
//! `--math` and `--code` samples with unique ids; code without its two time-limit
//! samples, which only measure the limit):
//! 1. `cascade score` on each file: the baseline, and the expected result lines;
//! 2. `cascade serve` with `--clients` concurrent clients, one request per
//!    `--batch` samples: throughput and p50/p99 request latency, every result checked;
//! 3. the same with `--small-queue`: how many 429s, and every accepted sample correct
//!    (refused requests are retried after a short pause);
//! 4. SIGTERM once half the math samples are answered: every request the server
//!    answered reached its client intact, none was lost.
//!
//! With `--mixed`, only the baseline and a mixed load run: math from `--clients`
//! clients (latency measured, every result checked) while `--code-clients` clients post
//! code batches of `--code-batch` samples beside it without pause, the load that made
//! math wait behind code before each environment had its own pool.

mod client;
mod load;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;

use super::Failure;
use load::{Load, Outcome};

#[derive(Args)]
pub struct BenchServeArgs {
    /// Math samples.
    #[arg(long, default_value_t = 2000)]
    pub math: usize,
    /// Code samples.
    #[arg(long, default_value_t = 200)]
    pub code: usize,
    /// Concurrent clients.
    #[arg(long, default_value_t = 64)]
    pub clients: usize,
    /// Samples per request.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// Scoring threads of both `cascade score` and `cascade serve` (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// `--max-queue` of the admission-control phase.
    #[arg(long, default_value_t = 8)]
    pub small_queue: usize,
    /// Run only the mixed load: math latency while code batches run beside it.
    #[arg(long)]
    pub mixed: bool,
    /// Clients posting code batches in the mixed load.
    #[arg(long, default_value_t = 2)]
    pub code_clients: usize,
    /// Samples per code request in the mixed load.
    #[arg(long, default_value_t = 32)]
    pub code_batch: usize,
}

/// One environment's samples: the input file and `cascade score`'s lines for it.
pub struct Workload {
    pub env: &'static str,
    pub samples: Vec<serde_json::Value>,
    pub expected: Vec<String>,
}

pub fn run(args: BenchServeArgs) -> Result<(), Failure> {
    let exe = std::env::current_exe().context("cannot find the cascade binary")?;
    let dir = tempfile::tempdir().context("cannot make a temporary folder")?;
    let datasets = datasets_dir()?;
    let mut workloads = Vec::new();
    for (env, n) in [("math", args.math), ("code", args.code)] {
        let samples = cycled(&datasets.join(env), n)?;
        let (expected, secs) = score_baseline(&exe, dir.path(), env, &samples, args.jobs)?;
        println!(
            "cascade score --env {env} --jobs {}: {n} samples in {secs:.2} s = {:.0} samples/s",
            args.jobs,
            n as f64 / secs
        );
        workloads.push(Workload {
            env,
            samples,
            expected,
        });
    }
    if args.mixed {
        return Ok(mixed(&exe, &datasets, &workloads, &args)?);
    }
    let server = start_server(&exe, &datasets, args.jobs, UNBOUNDED_QUEUE)?;
    for w in &workloads {
        let report = Load::new(&server.addr, w, args.clients, args.batch).run()?;
        println!(
            "cascade serve --jobs {}, {} clients x {} sample(s)/request, {}: {:.0} samples/s, p50 {:.1} ms, p99 {:.1} ms, {} correct",
            args.jobs, args.clients, args.batch, w.env,
            report.samples as f64 / report.wall_s, report.p50_ms(), report.p99_ms(), report.correct
        );
        report.check_all_correct(w.samples.len())?;
    }
    server.stop()?;
    small_queue(&exe, &datasets, &workloads[0], &args)?;
    sigterm_mid_load(&exe, &datasets, &workloads[0], &args)?;
    Ok(())
}

/// A queue no workload here fills: the throughput runs must never see a 429.
const UNBOUNDED_QUEUE: usize = 65536;

/// Starts `cascade serve --jobs JOBS --max-queue MAX_QUEUE` on `datasets`.
fn start_server(
    exe: &Path,
    datasets: &Path,
    jobs: usize,
    max_queue: usize,
) -> anyhow::Result<client::Server> {
    let (jobs, max_queue) = (jobs.to_string(), max_queue.to_string());
    client::Server::start(exe, &["--jobs", &jobs, "--max-queue", &max_queue], datasets)
}

fn small_queue(
    exe: &Path,
    datasets: &Path,
    w: &Workload,
    args: &BenchServeArgs,
) -> anyhow::Result<()> {
    let queue = args.small_queue;
    let server = start_server(exe, datasets, args.jobs, queue)?;
    let report = Load::new(&server.addr, w, args.clients, args.batch)
        .retrying()
        .run()?;
    println!(
        "--max-queue {queue}, {} clients, math: {} answered 429 (Retry-After), {} samples accepted, {} correct, {:.0} samples/s",
        args.clients, report.rejected, report.samples, report.correct, report.samples as f64 / report.wall_s
    );
    report.check_all_correct(w.samples.len())?;
    if report.rejected == 0 {
        bail!("no request was refused with --max-queue {queue}");
    }
    server.stop()?;
    Ok(())
}

/// Math under `--clients` clients while code batches run beside it (module docs).
fn mixed(
    exe: &Path,
    datasets: &Path,
    workloads: &[Workload],
    args: &BenchServeArgs,
) -> anyhow::Result<()> {
    let (math, code) = (&workloads[0], &workloads[1]);
    let server = start_server(exe, datasets, args.jobs, UNBOUNDED_QUEUE)?;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let code_load = Load::new(&server.addr, code, 1, args.code_batch.max(1));
    let (report, code_samples, code_wall) = std::thread::scope(|scope| {
        let beside: Vec<_> = (0..args.code_clients)
            .map(|_| scope.spawn(|| code_load.repeat_until(&stop)))
            .collect();
        // Let the code batches fill their pool before math is measured.
        std::thread::sleep(std::time::Duration::from_millis(500));
        let started = Instant::now();
        let report = Load::new(&server.addr, math, args.clients, args.batch).run();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let code_samples: usize = beside.into_iter().map(|h| h.join().unwrap_or(0)).sum();
        (report, code_samples, started.elapsed().as_secs_f64())
    });
    let report = report?;
    println!(
        "mixed, cascade serve --jobs {}: math from {} clients x {} sample(s)/request: {:.0} samples/s, p50 {:.1} ms, p99 {:.1} ms, {} correct; beside it {} clients x {} code samples/request: {:.0} code samples/s",
        args.jobs, args.clients, args.batch,
        report.samples as f64 / report.wall_s, report.p50_ms(), report.p99_ms(), report.correct,
        args.code_clients, args.code_batch, code_samples as f64 / code_wall
    );
    report.check_all_correct(math.samples.len())?;
    server.stop()?;
    Ok(())
}

fn sigterm_mid_load(
    exe: &Path,
    datasets: &Path,
    w: &Workload,
    args: &BenchServeArgs,
) -> anyhow::Result<()> {
    let server = start_server(exe, datasets, args.jobs, UNBOUNDED_QUEUE)?;
    let half = w.samples.len() / 2;
    let report = Load::new(&server.addr, w, args.clients, args.batch)
        .on_answered(half, server.terminator())
        .run()?;
    let answered_by_server = server.wait_exit()?;
    let got: usize = report
        .outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Answered))
        .count();
    println!(
        "SIGTERM after {half} samples answered: the server exited 0 having answered {answered_by_server} requests; clients got {got}, {} samples, {} correct; {} not accepted (connection refused or closed unread), {} lost",
        report.samples, report.correct, report.not_accepted, report.lost
    );
    if report.lost > 0 || got != answered_by_server || report.correct != report.samples {
        bail!(
            "an accepted request was lost or wrong under SIGTERM ({:?})",
            report.lost_reason
        );
    }
    Ok(())
}

/// The workspace's `datasets/` (the bench runs from a checkout).
fn datasets_dir() -> anyhow::Result<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets");
    if !dir.join("math/sample.jsonl").exists() {
        bail!(
            "bench-serve needs the checkout's datasets/ ({})",
            dir.display()
        );
    }
    Ok(dir)
}

/// The bundled samples of `dir`, cycled to `n` with unique ids (`ID#k`); code's
/// time-limit samples are left out.
fn cycled(dir: &Path, n: usize) -> anyhow::Result<Vec<serde_json::Value>> {
    let rows = cascade_datasets::jsonl::read_values(&dir.join("sample.jsonl"))?;
    let expected = std::fs::read_to_string(dir.join("sample.expected.jsonl"))?;
    let base: Vec<serde_json::Value> = rows
        .into_iter()
        .zip(expected.lines())
        .filter(|(_, line)| !line.contains("\"verdict\":\"time_limit\""))
        .map(|(row, _)| row.value)
        .filter(|v| v.get("id").and_then(|id| id.as_str()).is_some())
        .collect();
    if base.is_empty() {
        bail!("no usable samples in {}", dir.display());
    }
    Ok((0..n)
        .map(|i| {
            let mut v = base[i % base.len()].clone();
            let id = format!("{}#{}", v["id"].as_str().unwrap_or(""), i);
            v["id"] = serde_json::Value::String(id);
            v
        })
        .collect())
}

/// Runs `cascade score` on `samples`; its lines and wall time.
fn score_baseline(
    exe: &Path,
    dir: &Path,
    env: &str,
    samples: &[serde_json::Value],
    jobs: usize,
) -> anyhow::Result<(Vec<String>, f64)> {
    let input = dir.join(format!("{env}.jsonl"));
    let text: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
    std::fs::write(&input, text.join("\n") + "\n")?;
    let started = Instant::now();
    let out = std::process::Command::new(exe)
        .args([
            "score",
            "--env",
            env,
            "--jobs",
            &jobs.to_string(),
            "--input",
        ])
        .arg(&input)
        .current_dir(datasets_dir()?.join(env))
        .output()?;
    let secs = started.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!(
            "cascade score failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let lines = String::from_utf8(out.stdout)?
        .lines()
        .map(str::to_owned)
        .collect();
    Ok((lines, secs))
}
