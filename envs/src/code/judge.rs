//! Running a prepared program against a task's tests and deciding the verdict.

use cascade_sandboxes::{Execution, Limits, Python, SandboxError, Status, WorkerPool};
use cascade_verifiers::output::{compare, FloatTolerance};

use super::program::{python_literal, Program, RESULT_MARKER};
use super::task::StdioCase;
use super::verdict::Verdict;

/// What judging produced: the verdict and the facts `details` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    pub passed: usize,
    pub total: usize,
    /// Index of the first case that failed.
    pub first_failure: Option<usize>,
    /// The failing run's stderr (or compiler diagnostics), not yet truncated.
    pub stderr: String,
}

impl Judgement {
    pub fn failed_before_running(verdict: Verdict, total: usize, stderr: String) -> Self {
        Self {
            verdict,
            passed: 0,
            total,
            first_failure: Some(0),
            stderr,
        }
    }
}

/// The last marker the Python wrappers left on stderr.
fn reported(stderr: &str) -> Option<&str> {
    let at = stderr.rfind(RESULT_MARKER)?;
    stderr[at + RESULT_MARKER.len()..].split_whitespace().next()
}

/// The verdict of a run that did not end cleanly, from its status.
fn failure_verdict(run: &Execution) -> Option<Verdict> {
    match &run.status {
        Status::Exited(0) => None,
        Status::TimeLimit => Some(Verdict::TimeLimit),
        Status::MemoryLimit => Some(Verdict::MemoryLimit),
        Status::OutputLimit | Status::Crashed(_) => Some(Verdict::RuntimeError),
        Status::Exited(_) => Some(match reported(&run.stderr_text()) {
            Some("compile_error") => Verdict::CompileError,
            _ => Verdict::RuntimeError,
        }),
    }
}

/// Runs every case in order, stopping at the first failure unless `run_all`.
pub fn judge_stdio(
    program: &Program,
    cases: &[StdioCase],
    limits: &Limits,
    tolerance: Option<FloatTolerance>,
    run_all: bool,
) -> Result<Judgement, SandboxError> {
    let mut judgement = Judgement {
        verdict: Verdict::Accepted,
        passed: 0,
        total: cases.len(),
        first_failure: None,
        stderr: String::new(),
    };
    for (index, case) in cases.iter().enumerate() {
        let run = program.run_stdio(&case.input, limits)?;
        let verdict = failure_verdict(&run).unwrap_or_else(|| {
            if compare(&case.output, &run.stdout_text(), tolerance).matches() {
                Verdict::Accepted
            } else {
                Verdict::WrongAnswer
            }
        });
        if verdict == Verdict::Accepted {
            judgement.passed += 1;
            continue;
        }
        if judgement.first_failure.is_none() {
            judgement.first_failure = Some(index);
            judgement.verdict = verdict;
            judgement.stderr = match &run.status {
                Status::OutputLimit => "output limit exceeded".into(),
                Status::Crashed(trap) => format!("{}\n{trap}", run.stderr_text()),
                _ => run.stderr_text(),
            };
        }
        // A compile error fails every case the same way.
        if !run_all || verdict == Verdict::CompileError {
            break;
        }
    }
    Ok(judgement)
}

/// The harness that proves the tests ran to the end (see the comment at its top).
const ASSERT_HARNESS: &str = include_str!("assert_harness.py");
/// The line the harness prints, with the nonce, once check() has returned.
const PASSED_MARKER: &str = "__CASCADE_PASSED__ ";

/// A fresh 128-bit nonce, hex. Unpredictable to the guest; it never reaches the
/// output, so verdicts stay deterministic.
fn nonce() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut parts = [0u64; 2];
    for part in &mut parts {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        *part = h.finish();
    }
    format!("{:016x}{:016x}", parts[0], parts[1])
}

/// Runs a Python program under its HumanEval-style test code.
pub fn judge_assert(
    python: &Python,
    source: &str,
    tests: &str,
    entry_point: &str,
    limits: &Limits,
) -> Result<Judgement, SandboxError> {
    let nonce = nonce();
    let harness = ASSERT_HARNESS
        .replace("__PROGRAM__", &python_literal(source))
        .replace("__TESTS__", &python_literal(tests))
        .replace("__ENTRY_POINT__", &python_literal(entry_point));
    let inv = python.source_invocation(&harness, format!("{nonce}\n").as_bytes());
    let run = WorkerPool::global()?.run(python.program(), &inv, limits)?;
    let proof = format!("{PASSED_MARKER}{nonce}");
    let proven = run.status.success() && run.stdout_text().lines().any(|l| l == proof);
    if proven {
        return Ok(Judgement {
            verdict: Verdict::Accepted,
            passed: 1,
            total: 1,
            first_failure: None,
            stderr: String::new(),
        });
    }
    let stderr = run.stderr_text();
    let verdict = match &run.status {
        Status::TimeLimit => Verdict::TimeLimit,
        Status::MemoryLimit => Verdict::MemoryLimit,
        _ => match reported(&stderr) {
            Some("compile_error") => Verdict::CompileError,
            Some("assertion_failed") => Verdict::WrongAnswer,
            _ => Verdict::RuntimeError,
        },
    };
    let stderr = match &run.status {
        Status::Exited(0) => format!("{stderr}\nexited before the tests finished"),
        Status::Crashed(trap) => format!("{stderr}\n{trap}"),
        Status::OutputLimit => format!("{stderr}\noutput limit exceeded"),
        _ => stderr,
    };
    Ok(Judgement::failed_before_running(verdict, 1, stderr))
}
