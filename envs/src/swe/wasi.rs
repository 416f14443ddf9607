//! The `wasi` backend (default): CPython for WASI inside wasmtime, from
//! `cascade-sandboxes`. The guest sees only the working copy (read-write, at
//! `/work`), the runner (read-only, at `/runner`), the pinned pytest wheels and
//! their bytecode (read-only, at `/pytest/NAME` and `/pyc`), a fresh `/tmp` and a
//! `/dev` holding an empty `null` file; it has no network, no host environment and
//! no clock beyond what the sandbox gives. Time is fuel (deterministic), memory is
//! capped.
//!
//! Only pure-Python code runs here: a repository that needs C extensions or host
//! tools needs the `native` backend.

use std::path::PathBuf;
use std::sync::Mutex;

use cascade_sandboxes::{Limits, Mount, Python, PythonRuntime, Status};

use super::backend::{write_runner, BackendError, TestBackend, TestJob, TestRun};
use super::bytecode::{bytecode_dir, GUEST_PYC};
use super::pytest_site::{runner_options, PytestSite, RunnerMode, WheelMissing};

/// Where the pytest wheels are mounted in the guest.
const GUEST_WHEELS: &str = "/pytest";

pub struct WasiBackend {
    runtime: PythonRuntime,
    memory_mb: u64,
    mode: RunnerMode,
    site: Result<PytestSite, WheelMissing>,
    bytecode: Mutex<Bytecode>,
}

/// The pytest bytecode folder, built once per backend.
#[derive(Debug, Clone)]
enum Bytecode {
    Unknown,
    /// Being built. Not a lock to wait on: waiting for a sandbox run lets this thread
    /// pick up another sample's scoring (rayon work stealing), which would then wait
    /// on itself; runs that find it building just read pytest from source.
    Building,
    Ready(Option<PathBuf>),
}

impl WasiBackend {
    /// A backend running the tests with `RunnerMode::Auto`.
    pub fn new(runtime: PythonRuntime, memory_mb: u64) -> Self {
        Self {
            runtime,
            memory_mb,
            mode: RunnerMode::Auto,
            site: PytestSite::installed(GUEST_WHEELS),
            bytecode: Mutex::new(Bytecode::Unknown),
        }
    }

    /// Chooses between real pytest and the stand-in.
    pub fn with_runner(mut self, mode: RunnerMode) -> Self {
        self.mode = mode;
        self
    }

    fn bytecode(&self, python: &Python, site: &PytestSite) -> Option<PathBuf> {
        {
            let mut state = self.bytecode.lock().unwrap_or_else(|e| e.into_inner());
            match &*state {
                Bytecode::Ready(dir) => return dir.clone(),
                Bytecode::Building => return None,
                Bytecode::Unknown => *state = Bytecode::Building,
            }
        }
        let dir = bytecode_dir(python, site);
        *self.bytecode.lock().unwrap_or_else(|e| e.into_inner()) = Bytecode::Ready(dir.clone());
        dir
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
        let options = runner_options(self.mode, &self.site)
            .map_err(|e| BackendError::Unavailable(e.to_string()))?;
        let runner_dir = job.scratch.join("runner");
        write_runner(&runner_dir, job.tests)?;
        // The logging plugin opens os.devnull at start-up; WASI has no devices.
        let dev = job.scratch.join("dev");
        std::fs::create_dir_all(&dev)
            .and_then(|_| std::fs::write(dev.join("null"), b""))
            .map_err(|e| BackendError::Spawn(format!("cannot create {}: {e}", dev.display())))?;

        // `-s -P`: no user site, no script folder on sys.path; PYTHONPATH is dropped
        // below, so nothing of the repository (sitecustomize.py, *.pth) runs before the
        // runner. Not `-I`: it would also drop PYTHONHASHSEED, and with it determinism.
        let mut args = vec![
            "-s".to_owned(),
            "-P".to_owned(),
            "/runner/runner.py".to_owned(),
            "--root".into(),
            "/work".into(),
        ];
        let mut read_only = vec![(runner_dir, "/runner".to_owned())];
        if let (false, Ok(site)) = (options.is_empty(), &self.site) {
            args.extend(options);
            read_only.extend(site.dirs.iter().cloned());
            if let Some(pyc) = self.bytecode(python, site) {
                args.extend(["--pyc".to_owned(), GUEST_PYC.to_owned()]);
                read_only.push((pyc, GUEST_PYC.to_owned()));
            }
        }
        args.push("/runner/ids.txt".into());
        let mut invocation = python.project_invocation(&args, job.repo, &read_only);
        invocation.env.retain(|(name, _)| name != "PYTHONPATH");
        invocation.stdin = job.nonce.as_bytes().to_vec();
        invocation.mounts.push(Mount::read_write(dev, "/dev"));
        invocation.temp_dir = true;
        let limits = Limits::new(job.timeout.as_secs_f64(), self.memory_mb);
        let execution = python
            .run(&invocation, &limits)
            .map_err(|e| BackendError::Spawn(e.to_string()))?;
        // stderr first: the guest cannot interleave its streams, and the runner's
        // summary must stay the last thing in the log, out of reach of whatever a
        // test wrote to file descriptor 2.
        let mut log = execution.stderr_text();
        log.push_str(&execution.stdout_text());
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
