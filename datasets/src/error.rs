//! Why a dataset file could not be converted.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{file}:{line}: {message}")]
    Row {
        file: String,
        line: usize,
        message: String,
    },
    #[error("cannot read {file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Jsonl(#[from] crate::jsonl::JsonlError),
    #[error("unknown dataset format `{0}`")]
    UnknownFormat(String),
}
