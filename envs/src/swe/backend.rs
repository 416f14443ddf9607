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

/// Splits a runner log into the failure report and the summary: the summary is the
/// text between the last end marker and the last summary marker before it. Text a
/// test printed that imitates the markers comes earlier, so it is never read as the
/// summary. A log without a complete summary (crash, time limit) has none.
pub fn split_log(log: &str) -> (&str, &str) {
    let Some(end) = log.rfind(END_MARKER) else {
        return (log, "");
    };
    match log[..end].rfind(SUMMARY_MARKER) {
        Some(start) => (&log[..start], &log[start + SUMMARY_MARKER.len()..end]),
        None => (log, ""),
    }
}

/// One test run: the patched working copy, the tests to run, and a time limit.
pub struct TestJob<'a> {
    /// The working copy (read-write for the tests).
    pub repo: &'a Path,
    /// A scratch folder outside the working copy, for the runner and its inputs.
    pub scratch: &'a Path,
    /// Pytest node ids, sorted and without duplicates.
    pub tests: &'a [String],
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
