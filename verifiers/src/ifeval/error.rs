//! Why an instruction list could not be checked: an unknown id or a bad argument,
//! each naming the id and the argument.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IfevalError {
    #[error("unknown instruction id `{0}`")]
    UnknownId(String),
    /// A known id whose check needs a statistical model the verifiers do not ship.
    #[error("instruction `{id}` (IFBench) is not supported: {reason}")]
    Unsupported { id: String, reason: &'static str },
    #[error("instruction `{id}`: unexpected kwarg `{kwarg}`")]
    UnexpectedKwarg { id: String, kwarg: String },
    #[error("instruction `{id}`: missing kwarg `{kwarg}`")]
    MissingKwarg { id: String, kwarg: String },
    #[error("instruction `{id}`: kwarg `{kwarg}` {problem}")]
    BadKwarg {
        id: String,
        kwarg: String,
        problem: String,
    },
    #[error("instruction `{id}`: kwarg `{kwarg}` is not a usable regex: {message}")]
    BadRegex {
        id: String,
        kwarg: String,
        message: String,
    },
    #[error("{ids} instruction ids but {kwargs} kwargs entries")]
    LengthMismatch { ids: usize, kwargs: usize },
    #[error("kwargs entry {index} must be an object or null")]
    KwargsNotObject { index: usize },
}
