//! Why a dataset file, or one of its rows, could not be converted.

use cascade_verifiers::FieldError;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum LoadError {
    #[error("{file}:{line}: {source}")]
    Row {
        file: String,
        line: usize,
        #[source]
        source: RowError,
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
    /// IFEval's responses file has no line for a row's prompt.
    #[error("{file}: no response for the prompt of row {id}")]
    NoResponse { file: String, id: String },
}

/// Why one public row cannot become a cascade row. The messages name the public
/// layout's own field names, since that is the file the user has open.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RowError {
    #[error("row is not a JSON object")]
    NotObject,
    /// A field is missing or of the wrong JSON type, in the environments' wording.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A required field of the layout is absent (or not the type it needs).
    #[error("missing `{field}` {what}")]
    Absent { field: String, what: &'static str },
    /// A field is present but not what the layout needs.
    #[error("`{field}` {problem}")]
    Invalid { field: String, problem: String },
    /// A field holds a string that should be JSON and is not.
    #[error("field `{field}` is not JSON: {reason}")]
    NotJson { field: String, reason: String },
    /// Two lists that go pairwise have different lengths.
    #[error("{left} {left_name} but {right} {right_name}")]
    Unpaired {
        left: usize,
        left_name: String,
        right: usize,
        right_name: String,
    },
    #[error("no test cases")]
    NoTests,
}

impl RowError {
    pub(crate) fn invalid(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::Invalid {
            field: field.into(),
            problem: problem.into(),
        }
    }

    pub(crate) fn absent(field: impl Into<String>, what: &'static str) -> Self {
        Self::Absent {
            field: field.into(),
            what,
        }
    }
}
