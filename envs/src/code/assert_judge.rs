//! HumanEval-style assert tests: the program and the tests run in two interpreters
//! joined by their standard streams ([`WorkerPool::run_linked`]), exchanging plain
//! data only.
//!
//! - The program side (`assert_program.py`) gets the program and never the tests.
//! - The test side (`assert_tests.py`) gets the tests and never runs program code: it
//!   calls the program's functions through proxies that send the arguments across and
//!   decode the answer into fresh values of exact built-in types.
//!
//! So a program cannot lie through an object's `__eq__`, patch a module the tests use,
//! read the tests, or forge the outcome. The verdict comes from the test side's exit
//! status (trusted code) and from what the host saw of each side (fuel, memory
//! limiter, traps, output caps), never from text the program wrote. Both sides get the
//! sample's limits each. The choice of design is explained in `sandboxes/README.md`
//! ("Threat model: Python assert tests").

use cascade_sandboxes::{Execution, Job, Limits, Python, SandboxError, Status, WorkerPool};

use super::harness::{self, Harness};
use super::judge::Judgement;
use super::verdict::Verdict;

/// The test side's exit codes (see `assert_tests.py`).
mod exit {
    pub const ACCEPTED: i32 = 0;
    pub const COMPILE_ERROR: i32 = 10;
    pub const ASSERTION_FAILED: i32 = 11;
    pub const NOT_PLAIN: i32 = 12;
}

/// Runs a Python program under its HumanEval-style test code.
pub fn judge_assert(
    python: &Python,
    source: &str,
    tests: &str,
    entry_point: &str,
    limits: &Limits,
) -> Result<Judgement, SandboxError> {
    let driver = Job {
        program: python.program(),
        invocation: harness::invocation(python, Harness::AssertTests, &[tests, entry_point])?,
        limits: limits.clone(),
    };
    let peer = Job {
        program: python.program(),
        invocation: harness::invocation(python, Harness::AssertProgram, &[source])?,
        limits: limits.clone(),
    };
    let (test_run, program_run) = WorkerPool::global()?.run_linked(&driver, &peer)?;
    let verdict = verdict_of(&test_run.status, &program_run.status);
    if verdict == Verdict::Accepted {
        return Ok(Judgement {
            verdict,
            passed: 1,
            total: 1,
            first_failure: None,
            stderr: String::new(),
        });
    }
    let stderr = format!(
        "{}{}{}{}",
        program_run.stderr_text(),
        run_stderr(&program_run),
        test_run.stderr_text(),
        run_stderr(&test_run)
    );
    Ok(Judgement::failed_before_running(verdict, 1, stderr))
}

/// The verdict from what the host observed. The test side's exit code is trusted: it
/// ran only the harness and the tests. The program side is trusted for nothing but
/// its limits, which the host itself enforced.
fn verdict_of(tests: &Status, program: &Status) -> Verdict {
    match tests {
        Status::Exited(exit::ACCEPTED) => return Verdict::Accepted,
        Status::Exited(exit::COMPILE_ERROR) => return Verdict::CompileError,
        Status::Exited(exit::ASSERTION_FAILED | exit::NOT_PLAIN) => return Verdict::WrongAnswer,
        _ => {}
    }
    // The tests stopped otherwise: the first limit either side hit decides.
    for status in [program, tests] {
        match status {
            Status::TimeLimit => return Verdict::TimeLimit,
            Status::MemoryLimit => return Verdict::MemoryLimit,
            _ => {}
        }
    }
    Verdict::RuntimeError
}

/// What the host adds about a run that ended abnormally.
fn run_stderr(run: &Execution) -> String {
    match &run.status {
        Status::Crashed(trap) => format!("{trap}\n"),
        Status::OutputLimit => "output limit exceeded\n".into(),
        _ => String::new(),
    }
}
