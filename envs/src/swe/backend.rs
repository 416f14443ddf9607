//! Where the tests run: a small trait, so the environment does not care whether a
//! run is confined by bubblewrap (`native`) or by wasmtime (`wasi`).

use std::path::Path;
use std::time::Duration;

use thiserror::Error;

/// The bundled runner: runs pytest node ids with the standard library only.
pub const RUNNER_PY: &str = include_str!("runner.py");

/// Runs the ids with real pytest instead; runner.py imports it from its own folder.
pub const PYTEST_DRIVER_PY: &str = include_str!("pytest_driver.py");

/// Writes the runner, its pytest driver and the ids file into `dir`.
pub fn write_runner(dir: &Path, tests: &[String]) -> Result<(), BackendError> {
    std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(dir.join("runner.py"), RUNNER_PY))
        .and_then(|_| std::fs::write(dir.join("pytest_driver.py"), PYTEST_DRIVER_PY))
        .and_then(|_| std::fs::write(dir.join("ids.txt"), tests.join("\n")))
        .map_err(|e| {
            BackendError::Spawn(format!("cannot write the runner to {}: {e}", dir.display()))
        })
}

/// The line after which the runner prints one `STATUS node_id` line per test.
pub const SUMMARY_MARKER: &str = "=== cascade-runner summary ===";

/// The line that closes the summary; the runner exits right after it.
pub const END_MARKER: &str = "=== cascade-runner end ===";

/// How the runner's guard starts a line reporting tampering with the runner.
const TAMPER_MARKER: &str = "=== cascade-runner tampered";

/// A marker as the runner writes it for a run with `nonce`: `=== … summary NONCE ===`.
/// Only the runner's guard knows the nonce, so text a test writes cannot pose as one.
pub fn marker(base: &str, nonce: &str) -> String {
    match base.strip_suffix(" ===") {
        Some(head) if !nonce.is_empty() => format!("{head} {nonce} ==="),
        _ => base.to_owned(),
    }
}

/// A fresh nonce for one run: 128 bits from the standard library's OS-seeded hasher
/// keys (no new dependency), hex.
pub fn fresh_nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let part = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", part(), part())
}

/// Splits a runner log into the failure report and the summary: the summary is the
/// text between the last end marker and the last summary marker before it, both
/// carrying the run's `nonce`. Text a test printed cannot carry the nonce, so it is
/// never read as the summary. A log without a complete summary (crash, time limit,
/// a test that exited the interpreter) has none.
pub fn split_log<'a>(log: &'a str, nonce: &str) -> (&'a str, &'a str) {
    let (summary_marker, end_marker) = (marker(SUMMARY_MARKER, nonce), marker(END_MARKER, nonce));
    let Some(end) = log.rfind(&end_marker) else {
        return (log, "");
    };
    match log[..end].rfind(&summary_marker) {
        Some(start) => (&log[..start], &log[start + summary_marker.len()..end]),
        None => (log, ""),
    }
}

/// What the runner's guard saw the code under test do to the runner (each line it
/// wrote with the run's nonce), in order; empty when nothing.
pub fn tampering(log: &str, nonce: &str) -> Vec<String> {
    if nonce.is_empty() {
        return Vec::new();
    }
    let head = format!("{TAMPER_MARKER} {nonce}: ");
    log.lines()
        .filter_map(|line| line.strip_prefix(head.as_str()))
        .map(|rest| rest.strip_suffix(" ===").unwrap_or(rest).to_owned())
        .collect()
}

/// One test run: the patched working copy, the tests to run, and a time limit.
pub struct TestJob<'a> {
    /// The working copy (read-write for the tests).
    pub repo: &'a Path,
    /// A scratch folder outside the working copy, for the runner and its inputs.
    pub scratch: &'a Path,
    /// Pytest node ids, sorted and without duplicates.
    pub tests: &'a [String],
    /// Given to the bundled runner on stdin; its summary and tamper reports carry it.
    pub nonce: &'a str,
    pub timeout: Duration,
}

/// What came back: the combined output and whether the time limit cut it short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRun {
    pub log: String,
    pub timed_out: bool,
}

#[derive(Debug, Error)]
pub enum BackendError {
    #[error("test backend unavailable: {0}")]
    Unavailable(String),
    #[error("test run failed to start: {0}")]
    Spawn(String),
}

/// A way to run tests against a working copy.
pub trait TestBackend: Send + Sync {
    fn name(&self) -> &'static str;
    fn run(&self, job: &TestJob<'_>) -> Result<TestRun, BackendError>;
}
