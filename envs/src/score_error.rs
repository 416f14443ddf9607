//! Why one sample could not be scored. Environments return it from their inner
//! scoring functions; the sample then gets reward 0 with this text in
//! `details.error` (`Reward::from(ScoreError)`), so the reason reaches the user.

use cascade_sandboxes::SandboxError;
use cascade_verifiers::ifeval::IfevalError;
use cascade_verifiers::{AnswerError, FieldError, Reward};
use thiserror::Error;

use crate::swe::{BackendError, SnapshotError};

#[derive(Debug, Error)]
pub enum ScoreError {
    /// A field of the sample is missing or of the wrong type.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// No final answer to grade: a bad `response`, or one cut off while thinking.
    #[error(transparent)]
    Answer(#[from] AnswerError),
    /// The sandbox could not run the program at all (not a verdict on the program).
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error(transparent)]
    Instructions(#[from] IfevalError),
    /// A host-side file operation around the sandbox failed.
    #[error("{what}: {source}")]
    Io {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// A path inside the sample that the server's confinement refuses.
    #[error(transparent)]
    Path(#[from] crate::config::PathError),
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The row's `test_patch` does not apply to its repository snapshot.
    #[error("test_patch does not apply: {0}")]
    TestPatch(String),
    #[error("assert tests need `language: python`")]
    AssertNeedsPython,
}

impl From<ScoreError> for Reward {
    fn from(error: ScoreError) -> Self {
        Reward::error(error.to_string())
    }
}
