//! Why the sandbox could not run a program at all (as opposed to a program failing,
//! which is an [`Execution`](crate::Execution) status).

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum SandboxError {
    #[error("runtime `{name}` not found at {path}; run scripts/setup")]
    RuntimeMissing { name: String, path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("wasm module {what}: {message}")]
    Module { what: String, message: String },
    /// The module's imports do not match what the sandbox offers.
    #[error("wasm module link: {0}")]
    Link(String),
    #[error("cannot set up the execution: {0}")]
    Setup(String),
    #[error("compiler `{0}` not found; run scripts/setup")]
    CompilerMissing(String),
    #[error("the sandbox worker pool is gone")]
    PoolGone,
}

impl SandboxError {
    pub(crate) fn setup(e: impl std::fmt::Display) -> Self {
        SandboxError::Setup(format!("{e:#}"))
    }
}
