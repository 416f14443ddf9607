//! The `long_context` environment: exact, procedural long-context tasks (no judge),
//! as written by `cascade gen-long-context`; NeMo Gym's `graphwalks` and `mrcr` rows
//! are read too. The prompt is `responses_create_params.input`.
//!
//! Graders (`cascade_verifiers::long_context`, exact rules there):
//! - needle retrieval (`niah_single`, `niah_multikey`, `niah_multivalue`,
//!   `niah_multiquery`) and `variable_tracking`: the Jaccard index of the numbers (or
//!   capitalised names) the response names and `expected_answer`; RULER's
//!   `string_match_all` for answers of other shapes;
//! - `graph_parents`, `graph_bfs`: F1 of the last line's `Final Answer: [...]` set;
//! - `mrcr`: 0 unless the response starts with `random_string_to_prepend`, else
//!   difflib's `SequenceMatcher.ratio` of the rest and the expected answer.
//!
//! **Echo.** Retrieval and MRCR answers longer than `512 + 4 ×` the expected answer's
//! length (in characters) score 0 with `verdict: too_long`: pasting the context back
//! names every needle, and must not pay (`cascade_verifiers::long_context::echo`).
//! Graph walks read only the last line's `Final Answer: [...]` and are exempt.
//!
//! **Context.** With `max_context_tokens` set, a row whose recorded `token_length` (or
//! Gym's `n_tokens`) is over it is refused, naming the row and both lengths: reward 0
//! with `details.error` from `score`, an error from `prompt` (so a trainer stops on
//! it). It is never truncated. Rows without a recorded length are not checked.
//!
//! `details`: `task`, `token_length` (or null), `verdict` (`correct`, `partial`,
//! `wrong`, `no_answer`, `too_long`), then per grader: `expected`, `found`, `extra`,
//! `match` (retrieval); `expected`, `predicted_nodes` (null without an answer line),
//! `f1` (graphs); `prefix_matched`, `ratio` (mrcr); `reason` when the response was too
//! long to grade; `error` for a malformed or refused row.

mod row;

use cascade_verifiers::long_context::{
    echo_refusal, grade_graph, grade_mrcr, grade_retrieval, retrieval_chars, FinalAnswer,
    MAX_RESPONSE_BYTES,
};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::Value;

use crate::environment::{ChatMessage, Environment};
use crate::gym::gym_prompt;
use crate::registry::EnvPlugin;

pub use row::{Answer, LongContextRow, RowError};

/// Settings of the `long_context` environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LongContextConfig {
    /// The model's context in tokens: longer rows are refused, never truncated.
    pub max_context_tokens: Option<u64>,
}

/// The `long_context` environment.
#[derive(Debug, Clone, Default)]
pub struct LongContextEnv {
    config: LongContextConfig,
}

impl LongContextEnv {
    pub fn new(config: LongContextConfig) -> Self {
        Self { config }
    }

    /// The refusal of a row longer than the context, if it is.
    fn over_context(&self, sample: &Sample, token_length: Option<u64>) -> Option<String> {
        let max = self.config.max_context_tokens?;
        let length = token_length.filter(|&n| n > max)?;
        let id = sample.id().unwrap_or("(no id)");
        Some(format!(
            "row {id:?} is {length} tokens, over max_context_tokens = {max}; long-context rows are never truncated"
        ))
    }
}

/// The verdict of a score in `[0, 1]`.
fn verdict(score: f64) -> &'static str {
    match score {
        s if s >= 1.0 => "correct",
        s if s > 0.0 => "partial",
        _ => "wrong",
    }
}

/// Grades a response that is within the size limits.
fn grade(answer: &Answer, response: &str) -> Reward {
    if let Some(reason) = echo(answer, response) {
        return too_long(reason);
    }
    match answer {
        Answer::Items(expected) => {
            let graded = grade_retrieval(response, expected);
            Reward::new(graded.score)
                .with("verdict", verdict(graded.score))
                .with("expected", Value::from_iter(expected.iter().cloned()))
                .with("found", graded.found)
                .with("extra", graded.extra)
                .with("match", graded.shape.as_str())
        }
        Answer::Nodes(expected) => {
            let (score, answer) = grade_graph(response, expected);
            let (verdict, predicted) = match answer {
                FinalAnswer::Missing => ("no_answer", Value::Null),
                FinalAnswer::Nodes(nodes) => (verdict(score), Value::from(nodes)),
            };
            Reward::new(score)
                .with("verdict", verdict)
                .with("expected", Value::from_iter(expected.iter().cloned()))
                .with("predicted_nodes", predicted)
                .with("f1", score)
        }
        Answer::Mrcr { expected, prefix } => match grade_mrcr(response, expected, prefix) {
            Ok(graded) => Reward::new(graded.score)
                .with(
                    "verdict",
                    if graded.prefix_matched {
                        verdict(graded.score)
                    } else {
                        "no_answer"
                    },
                )
                .with("prefix_matched", graded.prefix_matched)
                .with("ratio", graded.score),
            Err(e) => too_long(e.to_string()),
        },
    }
}

/// The echo rule (`cascade_verifiers::long_context::echo_refusal`): a retrieval or
/// MRCR answer longer than its expected answer allows is refused; graph walks read
/// only their last line and are exempt.
fn echo(answer: &Answer, response: &str) -> Option<String> {
    let expected = match answer {
        Answer::Items(items) => retrieval_chars(items),
        Answer::Mrcr { expected, .. } => expected.chars().count(),
        Answer::Nodes(_) => return None,
    };
    echo_refusal(response.trim(), expected)
}

fn too_long(reason: String) -> Reward {
    Reward::new(0.0)
        .with("verdict", "too_long")
        .with("reason", reason)
}

impl Environment for LongContextEnv {
    fn name(&self) -> &str {
        "long_context"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        let parsed = LongContextRow::try_from(row).map_err(|e| match e {
            RowError::Field(e) => e,
            other => FieldError::Invalid {
                field: "task".into(),
                problem: other.to_string(),
            },
        })?;
        if let Some(message) = self.over_context(row, parsed.token_length) {
            return Err(FieldError::Invalid {
                field: "token_length".into(),
                problem: message,
            });
        }
        gym_prompt(row)?.ok_or_else(|| FieldError::Missing(crate::gym::PARAMS.into()))
    }

    fn score(&self, sample: &Sample) -> Reward {
        let row = match sample
            .validate_common()
            .map_err(RowError::from)
            .and_then(|()| LongContextRow::try_from(sample))
        {
            Ok(row) => row,
            Err(e) => return Reward::error(e.to_string()),
        };
        let task = row.task.as_str();
        let length = row.token_length.map_or(Value::Null, Value::from);
        if let Some(message) = self.over_context(sample, row.token_length) {
            return Reward::error(message)
                .with("task", task)
                .with("token_length", length)
                .with("max_context_tokens", self.config.max_context_tokens);
        }
        // The final answer only: an answer written inside the thinking is no answer, and
        // MRCR's prefix is checked at the start of the final answer.
        let response = match sample.final_answer() {
            Ok(text) => text,
            Err(e) => {
                return Reward::error(e.to_string())
                    .with("task", task)
                    .with("token_length", length)
            }
        };
        let reward = match (&row.answer, response.len()) {
            (Answer::Items(_) | Answer::Nodes(_), n) if n > MAX_RESPONSE_BYTES => {
                too_long(format!("the response is {n} bytes, over the {MAX_RESPONSE_BYTES}-byte limit of this grader"))
            }
            (answer, _) => grade(answer, response),
        };
        reward.with("task", task).with("token_length", length)
    }
}

inventory::submit! {
    EnvPlugin {
        name: "long_context",
        origin: env!("CARGO_PKG_NAME"),
        description: "long-context tasks from `cascade gen-long-context` (and Gym graphwalks/mrcr rows): needles and variable tracking (Jaccard of the values named), graph walks (F1 of `Final Answer: [...]`), MRCR (prefix, then difflib ratio) (config: max_context_tokens)",
        make: |config| Ok(Box::new(LongContextEnv::new(config.parse("long_context")?))),
    }
}

#[cfg(test)]
mod tests;
