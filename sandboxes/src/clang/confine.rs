//! Running the (native) compiler confined: bubblewrap namespaces (no network, no IPC,
//! no host PIDs), a file system holding only the toolchain read-only and a fresh work
//! dir, a cleared environment, `ulimit` CPU-time/address-space/file-size limits, and a
//! wall-clock kill.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{CLanguage, CompileError};
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

    let mut bwrap = vec![
        "--unshare-all".to_owned(),
        "--die-with-parent".into(),
        "--new-session".into(),
        "--clearenv".into(),
        "--setenv".into(),
        "PATH".into(),
        "/usr/lib/llvm-16/bin".into(),
        "--proc".into(),
        "/proc".into(),
        "--dev".into(),
        "/dev".into(),
        "--tmpfs".into(),
        "/tmp".into(),
    ];
    for dir in TOOLCHAIN_DIRS {
        if Path::new(dir).exists() {
            bwrap.extend(["--ro-bind".into(), (*dir).into(), (*dir).into()]);
        }
    }
    bwrap.extend([
        "--symlink".into(),
        "usr/lib".into(),
        "/lib".into(),
        "--symlink".into(),
        "usr/lib64".into(),
        "/lib64".into(),
        "--bind".into(),
        work.path().display().to_string(),
        "/work".into(),
        "--chdir".into(),
        "/work".into(),
        "--".into(),
    ]);
    bwrap.extend(args.iter().cloned());
    // `ulimit` in a shell that then execs bwrap: the limits hold for the compiler and
    // everything it spawns (the linker).
    let script = format!(
        "ulimit -t {} -v {} -f {} -c 0 && exec bwrap \"$@\"",
        limits.cpu_seconds,
        limits.address_space_bytes / 1024,
        limits.file_bytes / 1024,
    );
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(&bwrap)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SandboxError::CompilerMissing(format!("sh/bwrap: {e}")))?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.take(MAX_DIAGNOSTICS as u64 * 4).read_to_end(&mut buf);
        }
        buf
    });
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
    let diagnostics = reader.join().unwrap_or_default();
    let Some(status) = status else {
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
    let text = String::from_utf8_lossy(&diagnostics);
    if text.contains("bwrap:") && !text.contains("error:") {
        return Err(SandboxError::Setup(format!("bwrap failed: {text}")));
    }
    Ok(Err(CompileError::Rejected(text.chars().take(MAX_DIAGNOSTICS).collect())))
}
