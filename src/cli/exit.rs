//! How a command fails: the exit code the contract fixes, plus a message with context.

use std::process::ExitCode;

/// A failed command. `Usage` (exit 2) covers bad arguments and unreadable or malformed
/// input files; `CheckFailed` (exit 1) a `check` that found mismatches; `Other` (exit 1)
/// anything else, such as an output file that could not be written.
#[derive(Debug)]
pub enum Failure {
    Usage(anyhow::Error),
    CheckFailed(String),
    Other(anyhow::Error),
}

impl Failure {
    pub fn usage(e: impl Into<anyhow::Error>) -> Self {
        Self::Usage(e.into())
    }

    pub fn report(self) -> ExitCode {
        match self {
            Failure::Usage(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(2)
            }
            Failure::CheckFailed(summary) => {
                eprintln!("{summary}");
                ExitCode::from(1)
            }
            Failure::Other(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(1)
            }
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}
