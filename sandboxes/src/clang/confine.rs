//! Running the (native) compiler confined: bubblewrap namespaces (no network, no IPC,
//! no host PIDs), a file system holding only the toolchain read-only and a fresh work
//! dir, no `/proc` at all, an environment holding only what the compiler needs (the
//! scorer's own environment never reaches bubblewrap, whose process is the sandbox's
//! PID 1), `ulimit` CPU-time/address-space/file-size limits, and a wall-clock kill.
//!
//! Reproducibility: `SOURCE_DATE_EPOCH` pins `__DATE__`, `__TIME__` and
//! `__TIMESTAMP__` (clang 16 honours it), so a program cannot see when it was
//! compiled; failures are reported by kind ([`super::diagnostics`]).

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::{diagnostics, CLanguage, CompileError};
use crate::error::SandboxError;

/// Limits on one compiler run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerLimits {
    pub cpu_seconds: u32,
    pub address_space_bytes: u64,
    /// Largest file the compiler may write (the module).
    pub file_bytes: u64,
    pub wall: Duration,
}

impl Default for CompilerLimits {
    fn default() -> Self {
        Self {
            cpu_seconds: 20,
            address_space_bytes: 2 << 30,
            file_bytes: 64 << 20,
            wall: Duration::from_secs(60),
        }
    }
}

/// Compiler diagnostics kept for the verdict.
const MAX_DIAGNOSTICS: usize = 8 << 10;

/// The compiler's whole environment.
const COMPILER_ENV: &[(&str, &str)] = &[
    // Debian's clang-16 looks for its linker as `wasm-ld-16` on PATH.
    ("PATH", "/usr/lib/llvm-16/bin:/toolbin"),
    // `__DATE__` "Jan  1 2024", `__TIME__` "00:00:00": the guest's clock origin.
    ("SOURCE_DATE_EPOCH", "1704067200"),
    ("LC_ALL", "C"),
];

/// The environment of the `sh` that sets the limits and execs bubblewrap: bubblewrap
/// is PID 1 inside the sandbox, so its environment is readable there if anything
/// ever exposes /proc; it gets nothing of the scorer's.
const LAUNCHER_PATH: &str = "/usr/bin:/bin";

/// Host folders the compiler sees, read-only: the toolchain and nothing else.
const TOOLCHAIN_DIRS: &[&str] = &[
    "/usr/lib/llvm-16",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/wasm32-wasi",
    "/usr/include/wasm32-wasi",
    "/usr/lib64",
];

pub(super) fn check_bwrap() -> Result<(), SandboxError> {
    let ok = Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-all", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if ok {
        Ok(())
    } else {
        Err(SandboxError::CompilerMissing(
            "bwrap (bubblewrap, able to create namespaces)".into(),
        ))
    }
}

/// Compiles `source` with `args` (which name `main.c`/`main.cpp` and `main.wasm`
/// relative to the work dir). `Ok(Err)` is the program's fault.
pub(super) fn compile(
    args: &[String],
    language: CLanguage,
    source: &str,
    limits: &CompilerLimits,
) -> Result<Result<Vec<u8>, CompileError>, SandboxError> {
    let work = tempfile::Builder::new()
        .prefix("cascade-cc-")
        .tempdir()
        .map_err(SandboxError::setup)?;
    let io = |e: std::io::Error| SandboxError::Io {
        path: work.path().to_owned(),
        source: e,
    };
    let file = match language {
        CLanguage::C => "main.c",
        CLanguage::Cpp => "main.cpp",
    };
    std::fs::write(work.path().join(file), source).map_err(io)?;
    let include = work.path().join("include/bits");
    std::fs::create_dir_all(&include).map_err(io)?;
    std::fs::write(include.join("stdc++.h"), include_str!("stdcxx.h")).map_err(io)?;
    std::fs::write(
        work.path().join("include/cascade_compat.h"),
        include_str!("compat.h"),
    )
    .map_err(io)?;

    let Some((status, stderr)) = run_confined(&bwrap_args(work.path(), args), limits)? else {
        return Ok(Err(CompileError::LimitExceeded));
    };
    if status.success() {
        let wasm = std::fs::read(work.path().join("main.wasm")).map_err(io)?;
        return Ok(Ok(wasm));
    }
    // Killed by a signal (CPU time, memory): over its limits.
    if status.code().is_none() {
        return Ok(Err(CompileError::LimitExceeded));
    }
    let head = String::from_utf8_lossy(&stderr.head);
    if head.contains("bwrap:") && !head.contains("error:") {
        return Err(SandboxError::Setup(format!("bwrap failed: {head}")));
    }
    let text = format!("{head}\n{}", String::from_utf8_lossy(&stderr.tail));
    Ok(Err(diagnostics::classify(&text, MAX_DIAGNOSTICS)))
}

/// bubblewrap's arguments: namespaces, the environment, the file system, then the
/// compiler command line.
fn bwrap_args(work: &Path, args: &[String]) -> Vec<String> {
    let mut bwrap: Vec<String> = ["--unshare-all", "--die-with-parent", "--new-session"]
        .map(String::from)
        .into();
    bwrap.push("--clearenv".into());
    for (name, value) in COMPILER_ENV {
        bwrap.extend(["--setenv", name, value].map(String::from));
    }
    // No `--proc`: clang and wasm-ld run without /proc, so nothing of the host's or
    // the sandbox's processes can be read, whatever clang does with /proc files.
    bwrap.extend(["--dev", "/dev", "--tmpfs", "/tmp"].map(String::from));
    for dir in TOOLCHAIN_DIRS {
        if Path::new(dir).exists() {
            bwrap.extend(["--ro-bind", dir, dir].map(String::from));
        }
    }
    bwrap.extend(
        [
            "--symlink",
            "usr/lib",
            "/lib",
            "--symlink",
            "usr/lib64",
            "/lib64",
            "--symlink",
            "/usr/lib/llvm-16/bin/wasm-ld",
            "/toolbin/wasm-ld-16",
            "--bind",
        ]
        .map(String::from),
    );
    bwrap.push(work.display().to_string());
    bwrap.extend(["/work", "--chdir", "/work", "--"].map(String::from));
    bwrap.extend(args.iter().cloned());
    bwrap
}

/// The start and the end of the compiler's stderr. All of it is read (a compiler
/// blocked on a full pipe would only stop at the wall clock), but only the start is
/// kept as diagnostics; the end holds the driver's last words on a crash.
#[derive(Default)]
struct Captured {
    head: Vec<u8>,
    tail: Vec<u8>,
}

const STDERR_HEAD_BYTES: usize = MAX_DIAGNOSTICS * 4;
const STDERR_TAIL_BYTES: usize = 4 << 10;

fn capture(mut stream: impl Read) -> Captured {
    let mut out = Captured::default();
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
        let room = STDERR_HEAD_BYTES.saturating_sub(out.head.len()).min(n);
        out.head.extend_from_slice(&buf[..room]);
        out.tail.extend_from_slice(&buf[room..n]);
        let excess = out.tail.len().saturating_sub(STDERR_TAIL_BYTES);
        out.tail.drain(..excess);
    }
    out
}

/// Runs bubblewrap under the limits; `None` when the wall clock ran out.
fn run_confined(
    bwrap: &[String],
    limits: &CompilerLimits,
) -> Result<Option<(ExitStatus, Captured)>, SandboxError> {
    // `ulimit` in a shell that then execs bwrap: the limits hold for the compiler and
    // everything it spawns (the linker).
    let script = format!(
        "ulimit -t {} && ulimit -v {} && ulimit -f {} && ulimit -c 0 && exec bwrap \"$@\"",
        limits.cpu_seconds,
        limits.address_space_bytes / 1024,
        limits.file_bytes / 1024,
    );
    let mut child = Command::new("sh")
        .env_clear()
        .env("PATH", LAUNCHER_PATH)
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(bwrap)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SandboxError::CompilerMissing(format!("sh/bwrap: {e}")))?;
    let stderr = child.stderr.take();
    let reader = std::thread::spawn(move || stderr.map(capture).unwrap_or_default());
    let deadline = Instant::now() + limits.wall;
    let status = loop {
        match child.try_wait().map_err(SandboxError::setup)? {
            Some(status) => break Some(status),
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let captured = reader.join().unwrap_or_default();
    Ok(status.map(|s| (s, captured)))
}
