//! What one execution produced: how it ended, what it printed, the work it did.

/// How an execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The program exited (or returned) with this exit code.
    Exited(i32),
    /// The fuel budget (the time limit) ran out, sleeping included.
    TimeLimit,
    /// The program failed after being refused memory beyond its limit.
    MemoryLimit,
    /// The program wrote more than its stdout or stderr allowance.
    OutputLimit,
    /// The program trapped (stack overflow, `unreachable`, out-of-bounds access...).
    Crashed(String),
}

impl Status {
    /// True for a clean exit with code 0.
    pub fn success(&self) -> bool {
        *self == Status::Exited(0)
    }
}

/// The result of one execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    pub status: Status,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// True when stdout or stderr was cut at its limit.
    pub truncated: bool,
    /// Fuel consumed (deterministic for a given program and input).
    pub fuel_used: u64,
    /// The largest linear memory the run had, in bytes (deterministic too).
    pub memory_peak_bytes: u64,
}

impl Execution {
    /// stdout as text (invalid UTF-8 replaced).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// stderr as text (invalid UTF-8 replaced).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}
