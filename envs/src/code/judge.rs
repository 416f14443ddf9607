//! Running a prepared program against a task's stdio cases and deciding the verdict
//! (assert tests: [`super::assert_judge`]).

use cascade_sandboxes::{Execution, Limits, SandboxError, Status};
use cascade_verifiers::output::{compare, FloatTolerance};

use super::program::{compile_status, Program};
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

/// The verdict of a run that did not end cleanly, from what the host observed: its
/// status and, for a Python program, the wrapper's first line on stderr, written
/// before any program code ran (see [`compile_status`]). Never from text the program
/// wrote.
fn failure_verdict(run: &Execution, compiled: Option<bool>) -> Option<Verdict> {
    match &run.status {
        Status::Exited(0) => None,
        Status::TimeLimit => Some(Verdict::TimeLimit),
        Status::MemoryLimit => Some(Verdict::MemoryLimit),
        Status::OutputLimit | Status::Crashed(_) => Some(Verdict::RuntimeError),
        Status::Exited(_) if compiled == Some(false) => Some(Verdict::CompileError),
        Status::Exited(_) => Some(Verdict::RuntimeError),
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
        let all_stderr = run.stderr_text();
        let (compiled, stderr) = match program {
            Program::Python { .. } => compile_status(&all_stderr),
            Program::Native(_) => (Some(true), all_stderr.as_str()),
        };
        let verdict = failure_verdict(&run, compiled).unwrap_or_else(|| {
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
                Status::Crashed(trap) => format!("{stderr}\n{trap}"),
                _ => stderr.to_owned(),
            };
        }
        // A compile error fails every case the same way.
        if !run_all || verdict == Verdict::CompileError {
            break;
        }
    }
    Ok(judgement)
}
