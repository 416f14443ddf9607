//! The `native` backend: the host's CPython inside bubblewrap.
//!
//! The sandbox has no network (all namespaces unshared), sees the host read-only, a
//! fresh tmpfs at `/tmp`, the working copy read-write at `/tmp/repo` and the runner
//! read-only at `/tmp/runner`; user homes (`/root`, `/home`) are hidden behind empty
//! tmpfs mounts except for the interpreter's own install folders; it dies with its
//! parent. This is weaker isolation than
//! `wasi`: the tests run as native code against the real kernel, so a kernel or
//! bubblewrap flaw is an escape, and host files readable by the user are readable
//! by the tests. Use it for repositories that need C extensions or host tools.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use super::backend::{write_runner, BackendError, TestBackend, TestJob, TestRun};
use super::pytest_site::{runner_options, PytestSite, RunnerMode, WheelMissing};

/// Where the working copy appears inside the sandbox (on its private tmpfs), so
/// tracebacks name the same paths on every run.
pub const SANDBOX_REPO: &str = "/tmp/repo";

/// Output beyond this is dropped (the summary is printed last, so the tail matters:
/// we keep the first half and the last half).
const MAX_LOG_BYTES: usize = 1 << 20;

pub struct NativeBackend {
    bwrap: String,
    python: String,
    /// A test command to run instead of the bundled runner, as argv; `{tests}` expands
    /// to the test ids, `{python}` to the interpreter.
    command: Vec<String>,
    mode: RunnerMode,
    /// The pytest wheels, bound read-only under `/tmp/pytest`.
    site: Result<PytestSite, WheelMissing>,
    resolved_python: OnceLock<Result<Interpreter, String>>,
}

/// The interpreter as the host sees it: its real executable and the install folders
/// it needs (a venv's prefix and its base), which may lie under a hidden home.
#[derive(Debug, Clone)]
struct Interpreter {
    executable: PathBuf,
    prefixes: Vec<PathBuf>,
}

/// Host folders replaced by an empty tmpfs inside the sandbox: user homes hold
/// credentials that tests have no business reading.
const HIDDEN: [&str; 2] = ["/root", "/home"];

impl NativeBackend {
    pub fn new(bwrap: impl Into<String>, python: impl Into<String>) -> Self {
        Self {
            bwrap: bwrap.into(),
            python: python.into(),
            command: Vec::new(),
            mode: RunnerMode::Auto,
            site: PytestSite::installed("/tmp/pytest"),
            resolved_python: OnceLock::new(),
        }
    }

    /// Chooses between real pytest and the stand-in for the bundled runner.
    pub fn with_runner(mut self, mode: RunnerMode) -> Self {
        self.mode = mode;
        self
    }

    /// Runs `command` (e.g. `python -m pytest -rA {tests}`) instead of the bundled
    /// runner; its output is read as a pytest or unittest log.
    pub fn with_command(mut self, command: Vec<String>) -> Self {
        self.command = command;
        self
    }

    fn argv(&self, python: &Interpreter, tests: &[String], options: Vec<String>) -> Vec<String> {
        let exe = python.executable.display().to_string();
        if self.command.is_empty() {
            // `-s -P`: no user site and no script folder on sys.path (the sandbox's
            // environment is cleared, so no PYTHONPATH): the runner starts clean.
            let mut argv = vec![
                exe,
                "-s".into(),
                "-P".into(),
                "/tmp/runner/runner.py".into(),
            ];
            argv.extend(options);
            argv.push("/tmp/runner/ids.txt".into());
            return argv;
        }
        let mut argv = Vec::new();
        for part in &self.command {
            match part.as_str() {
                "{tests}" => argv.extend(tests.iter().cloned()),
                "{python}" => argv.push(exe.clone()),
                _ => argv.push(part.clone()),
            }
        }
        argv
    }

    /// The interpreter's real path and prefixes (version shims such as pyenv's need a
    /// home and a writable state the sandbox does not give them).
    fn python(&self) -> Result<Interpreter, BackendError> {
        self.resolved_python
            .get_or_init(|| {
                let out = Command::new(&self.python)
                    .args([
                        "-c",
                        "import sys; print(sys.executable); print(sys.prefix); print(sys.base_prefix)",
                    ])
                    .stderr(Stdio::null())
                    .output()
                    .map_err(|e| format!("cannot run `{}`: {e}", self.python))?;
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
                let Some(executable) = lines.next().filter(|_| out.status.success()) else {
                    return Err(format!("`{}` did not report its executable", self.python));
                };
                let mut prefixes: Vec<PathBuf> = lines.map(PathBuf::from).collect();
                prefixes.dedup();
                Ok(Interpreter {
                    executable: PathBuf::from(executable),
                    prefixes,
                })
            })
            .clone()
            .map_err(BackendError::Unavailable)
    }
}

/// `PATH` inside the sandbox: the interpreter's own folder first, so `python` and
/// `python -m pytest` in a test command mean the same interpreter.
fn search_path(executable: &Path) -> String {
    let base = "/usr/local/bin:/usr/bin:/bin";
    match executable.parent() {
        Some(dir) => format!("{}:{base}", dir.display()),
        None => base.to_owned(),
    }
}

impl TestBackend for NativeBackend {
    fn name(&self) -> &'static str {
        "native"
    }

    fn run(&self, job: &TestJob<'_>) -> Result<TestRun, BackendError> {
        let python = self.python()?;
        let options = if self.command.is_empty() {
            runner_options(self.mode, &self.site)
                .map_err(|e| BackendError::Unavailable(e.to_string()))?
        } else {
            Vec::new()
        };
        let runner_dir = job.scratch.join("runner");
        write_runner(&runner_dir, job.tests)?;
        let mut cmd = self.sandbox(job, &python, &runner_dir, !options.is_empty());
        cmd.args(["/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"])
            .args(self.argv(&python, job.tests, options))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            BackendError::Unavailable(format!(
                "cannot start `{}` ({e}); install bubblewrap (scripts/setup.d/swe.sh)",
                self.bwrap
            ))
        })?;
        let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take())
        else {
            return Err(BackendError::Spawn("no output pipes".into()));
        };
        // The nonce, then end of file: the runner reads it all before importing any
        // repository code. A write error only means the runner is already gone.
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(job.nonce.as_bytes());
        }
        // Only bubblewrap itself writes here (the sandbox's stderr joins stdout).
        let errors = thread::spawn(move || {
            let mut text = Vec::new();
            let _ = (&mut stderr).take(64 * 1024).read_to_end(&mut text);
            text
        });
        let reader = thread::spawn(move || read_capped(&mut stdout));
        let timed_out = wait_or_kill(&mut child, Instant::now() + job.timeout)?;
        let mut bytes = reader.join().unwrap_or_default();
        bytes.extend(errors.join().unwrap_or_default());
        Ok(TestRun {
            log: String::from_utf8_lossy(&bytes).into_owned(),
            timed_out,
        })
    }
}

impl NativeBackend {
    /// bubblewrap with the host read-only, homes and `/tmp` hidden, the working copy
    /// bound at [`SANDBOX_REPO`] and a clean, pinned environment.
    fn sandbox(
        &self,
        job: &TestJob<'_>,
        python: &Interpreter,
        runner_dir: &Path,
        with_pytest: bool,
    ) -> Command {
        let mut cmd = Command::new(&self.bwrap);
        cmd.args(["--unshare-all", "--die-with-parent", "--new-session"])
            .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
            .args(["--tmpfs", "/tmp"]);
        for hidden in HIDDEN {
            if Path::new(hidden).is_dir() {
                cmd.args(["--tmpfs", hidden]);
            }
        }
        for prefix in &python.prefixes {
            // An interpreter under a masked folder (a venv in a home, or a cache under
            // /tmp) is bound back read-only so the sandbox can still run it.
            if HIDDEN.iter().any(|h| prefix.starts_with(h)) || prefix.starts_with("/tmp") {
                cmd.arg("--ro-bind").arg(prefix).arg(prefix);
            }
        }
        if let (true, Ok(site)) = (with_pytest, &self.site) {
            for (host, guest) in &site.dirs {
                cmd.arg("--ro-bind").arg(host).arg(guest);
            }
        }
        cmd.arg("--bind")
            .arg(job.repo)
            .arg(SANDBOX_REPO)
            .arg("--ro-bind")
            .arg(runner_dir)
            .arg("/tmp/runner")
            .args(["--chdir", SANDBOX_REPO, "--clearenv"])
            .arg("--setenv")
            .arg("PATH")
            .arg(search_path(&python.executable))
            .args(["--setenv", "HOME", "/tmp"])
            .args(["--setenv", "PYTHONHASHSEED", "0"])
            .args(["--setenv", "PYTHONDONTWRITEBYTECODE", "1"])
            .args(["--setenv", "PYTHONIOENCODING", "utf-8"])
            .args(["--setenv", "LC_ALL", "C.UTF-8"])
            .args(["--setenv", "TZ", "UTC"]);
        cmd
    }
}

/// The output, capped at [`MAX_LOG_BYTES`]: the first half and the last half, since
/// the summary is printed last.
fn read_capped(stdout: &mut impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match stdout.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if kept.len() < MAX_LOG_BYTES / 2 {
                    kept.extend_from_slice(&buf[..n]);
                } else {
                    tail.extend_from_slice(&buf[..n]);
                    if tail.len() > MAX_LOG_BYTES {
                        tail.drain(..tail.len() - MAX_LOG_BYTES / 2);
                    }
                }
            }
        }
    }
    if !tail.is_empty() {
        let start = tail.len().saturating_sub(MAX_LOG_BYTES / 2);
        kept.extend_from_slice(b"\n[... output cut ...]\n");
        kept.extend_from_slice(&tail[start..]);
    }
    kept
}

/// Waits for the child; past `deadline` kills it. True when it was killed.
fn wait_or_kill(child: &mut std::process::Child, deadline: Instant) -> Result<bool, BackendError> {
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return Ok(false),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(true);
            }
            Ok(None) => thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(BackendError::Spawn(e.to_string())),
        }
    }
}
