//! A `long_context` row's task fields, read and checked: cascade's rows (as
//! `cascade gen-long-context` writes them) and NeMo Gym's `graphwalks` and `mrcr` rows
//! (no `task` field: `problem_type` or `random_string_to_prepend` names it).

use std::collections::BTreeSet;

use cascade_verifiers::long_context::{Grader, Task};
use cascade_verifiers::{FieldError, Sample};
use serde_json::Value;
use thiserror::Error;

/// Why a row cannot be graded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RowError {
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error("field `task` must be one of {names}, found {0:?}", names = task_names())]
    UnknownTask(String),
    #[error("missing field `task` (one of {names}); Gym rows name theirs by `problem_type` or `random_string_to_prepend`", names = task_names())]
    NoTask,
    #[error("field `problem_type` must be \"parents\" or \"bfs\", found {0:?}")]
    UnknownProblemType(String),
    #[error("field `expected_answer` must name at least one value")]
    EmptyAnswer,
}

fn task_names() -> String {
    Task::ALL.map(Task::as_str).join(", ")
}

/// What a response is graded against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Needle values or variable names (non-empty).
    Items(BTreeSet<String>),
    /// A graph walk's node set (may be empty).
    Nodes(BTreeSet<String>),
    /// MRCR's expected text and its random prefix.
    Mrcr { expected: String, prefix: String },
}

/// Everything needed to grade one response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LongContextRow {
    pub task: Task,
    pub answer: Answer,
    /// The prompt's recorded length in tokens (`token_length`, else Gym's `n_tokens`).
    pub token_length: Option<u64>,
}

impl TryFrom<&Sample> for LongContextRow {
    type Error = RowError;

    fn try_from(sample: &Sample) -> Result<Self, RowError> {
        let task = task(sample)?;
        let answer = match task.grader() {
            Grader::Retrieval => {
                let items = strings(sample)?;
                if items.is_empty() {
                    return Err(RowError::EmptyAnswer);
                }
                Answer::Items(items)
            }
            Grader::Graph => Answer::Nodes(strings(sample)?),
            Grader::Mrcr => Answer::Mrcr {
                expected: sample.str_field("expected_answer")?.to_owned(),
                prefix: sample.str_field("random_string_to_prepend")?.to_owned(),
            },
        };
        Ok(Self {
            task,
            answer,
            token_length: token_length(sample)?,
        })
    }
}

/// The row's task: `task`, else inferred from Gym's fields.
fn task(sample: &Sample) -> Result<Task, RowError> {
    if sample.get("task").is_some() {
        let name = sample.str_field("task")?;
        return Task::parse(name).ok_or_else(|| RowError::UnknownTask(short(name)));
    }
    if sample.get("random_string_to_prepend").is_some() {
        return Ok(Task::Mrcr);
    }
    match sample.get("problem_type") {
        None => Err(RowError::NoTask),
        Some(_) => match sample.str_field("problem_type")? {
            "parents" => Ok(Task::GraphParents),
            "bfs" => Ok(Task::GraphBfs),
            other => Err(RowError::UnknownProblemType(short(other))),
        },
    }
}

/// `expected_answer` as a set: an array of strings, a string holding a JSON array of
/// strings (Gym's graphwalks rows), or one plain string (one value).
fn strings(sample: &Sample) -> Result<BTreeSet<String>, RowError> {
    const EXPECTED: &str = "an array of strings, or a string";
    let field = sample.require("expected_answer")?;
    let parsed;
    let items = match field {
        Value::Array(items) => items,
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => {
                parsed = items;
                &parsed
            }
            _ => return Ok(BTreeSet::from([text.clone()])),
        },
        other => return Err(FieldError::wrong_type("expected_answer", EXPECTED, other).into()),
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(s) => Ok(s.clone()),
            other => Err(FieldError::wrong_type("expected_answer[]", "a string", other).into()),
        })
        .collect()
}

/// `token_length`, else Gym's `n_tokens`: a non-negative integer, when present.
fn token_length(sample: &Sample) -> Result<Option<u64>, RowError> {
    for field in ["token_length", "n_tokens"] {
        match sample.get(field) {
            None | Some(Value::Null) => continue,
            Some(v) => {
                let n = v
                    .as_u64()
                    .ok_or_else(|| FieldError::wrong_type(field, "a non-negative integer", v))?;
                return Ok(Some(n));
            }
        }
    }
    Ok(None)
}

/// At most 40 characters of a string from the row, for error messages.
fn short(text: &str) -> String {
    text.chars().take(40).collect()
}
