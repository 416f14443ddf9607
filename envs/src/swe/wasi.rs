//! The `wasi` backend (default): CPython for WASI inside wasmtime, from
//! `cascade-sandboxes`. The guest sees only the working copy (read-write, at
//! `/work`), the runner (read-only, at `/runner`) and a fresh `/tmp`; it has no
//! network, no host environment and no clock beyond what the sandbox gives. Time is
//! fuel (deterministic), memory is capped.
//!
//! Only pure-Python code runs here: a repository that needs C extensions or host
//! tools needs the `native` backend.

use cascade_sandboxes::{Limits, Python, PythonRuntime, Status};

use super::backend::{BackendError, TestBackend, TestJob, TestRun, RUNNER_PY};

pub struct WasiBackend {
    runtime: PythonRuntime,
    memory_mb: u64,
}

impl WasiBackend {
    pub fn new(runtime: PythonRuntime, memory_mb: u64) -> Self {
        Self { runtime, memory_mb }
    }
}

impl TestBackend for WasiBackend {
    fn name(&self) -> &'static str {
        "wasi"
    }

    fn run(&self, job: &TestJob<'_>) -> Result<TestRun, BackendError> {
        let python = Python::load(self.runtime).map_err(|e| {
            BackendError::Unavailable(format!("{e} (run scripts/setup to install the runtime)"))
        })?;
        let runner_dir = job.scratch.join("runner");
        std::fs::create_dir_all(&runner_dir)
            .and_then(|_| std::fs::write(runner_dir.join("runner.py"), RUNNER_PY))
            .and_then(|_| std::fs::write(runner_dir.join("ids.txt"), job.tests.join("\n")))
            .map_err(|e| BackendError::Spawn(e.to_string()))?;
        let mut invocation = python.project_invocation(
            &["/runner/runner.py", "--root", "/work", "/runner/ids.txt"],
            job.repo,
            &[(runner_dir, "/runner".to_owned())],
        );
        invocation.temp_dir = true;
        let limits = Limits::new(job.timeout.as_secs_f64(), self.memory_mb);
        let execution = python
            .run(&invocation, &limits)
            .map_err(|e| BackendError::Spawn(e.to_string()))?;
        let mut log = execution.stdout_text();
        let stderr = execution.stderr_text();
        if !stderr.is_empty() {
            log.push_str(&stderr);
        }
        match &execution.status {
            Status::MemoryLimit => log.push_str("\n[memory limit reached]\n"),
            Status::OutputLimit => log.push_str("\n[output limit reached]\n"),
            Status::Crashed(why) => log.push_str(&format!("\n[guest crashed: {why}]\n")),
            _ => {}
        }
        Ok(TestRun {
            log,
            timed_out: execution.status == Status::TimeLimit,
        })
    }
}
