//! Where the tests run: a small trait, so the environment does not care whether a
//! run is confined by bubblewrap (`native`) or by wasmtime (`wasi`).

use std::path::Path;
use std::time::Duration;

use thiserror::Error;

/// The bundled runner: runs pytest node ids with the standard library only.
pub const RUNNER_PY: &str = include_str!("runner.py");

/// The line after which the runner prints one `STATUS node_id` line per test.
pub const SUMMARY_MARKER: &str = "=== cascade-runner summary ===";

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
