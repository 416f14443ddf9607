//! The long-context task generator: reproducible rows for the `long_context`
//! environment, each prompt sized to a target number of tokens of a given tokenizer.
//!
//! Tasks ([`Task`]): needle retrieval (single needle; distractor needles with other
//! keys; several values of one key; several keys asked), variable tracking, graph walks
//! (parents, BFS layer) and multi-round coreference; see each module. `terse` writes
//! the needle tasks for very small models (`q=37. ` needles, 1–2 digit values, `q=?`).
//!
//! **Length.** A row's `token_length` is the number of tokens of its prompt as the model
//! sees it: what the [`TokenCounter`] says of `responses_create_params.input` (the CLI
//! renders the messages with the tokenizer's chat template, generation prompt
//! included). Each task grows with one size (filler sentences, edges, requests); the
//! largest size whose prompt fits in `tokens` is found by doubling then bisection, so
//! `token_length <= tokens` and is within about one filler unit of it.
//!
//! Rows are NeMo Gym's layout: `id`, `task`, `responses_create_params.input`,
//! `expected_answer` (a list of strings; for `mrcr` the string to reproduce),
//! `problem_type` (graphs: `parents`/`bfs`), `random_string_to_prepend` and
//! `n_needles` (`mrcr`), `token_length` and `target_tokens`. Row `i` has task
//! `tasks[i % tasks.len()]` and its own seed drawn from `seed` (SplitMix64), so the
//! same options and tokenizer give the same bytes.

mod graph;
mod mrcr;
mod niah;
mod text;

use serde_json::{json, Value};
use thiserror::Error;

use cascade_verifiers::long_context::Task;
use cascade_verifiers::seeded::SplitMix64;

pub use graph::bfs_layer;

/// Counts the tokens of a prompt given as chat messages (`{role, content}` objects).
pub trait TokenCounter {
    fn count(&self, messages: &[Value]) -> Result<usize, String>;
}

impl<F: Fn(&[Value]) -> Result<usize, String>> TokenCounter for F {
    fn count(&self, messages: &[Value]) -> Result<usize, String> {
        self(messages)
    }
}

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub count: usize,
    pub seed: u64,
    /// The target prompt length, in tokens.
    pub tokens: usize,
    /// The kinds to cycle through; [`Task::ALL`] when empty.
    pub tasks: Vec<Task>,
    /// Terse needle tasks (see the module's doc).
    pub terse: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GenError {
    #[error("{tokens} tokens is too few for {task}: its shortest prompt is {minimum} tokens")]
    TooFewTokens {
        task: Task,
        tokens: usize,
        minimum: usize,
    },
    #[error("cannot count tokens: {0}")]
    Count(String),
}

/// One built prompt: its messages and the task's ground-truth fields.
pub(crate) struct Built {
    messages: Vec<Value>,
    fields: Vec<(&'static str, Value)>,
}

impl Built {
    fn user(content: String) -> Self {
        let messages = vec![json!({"role": "user", "content": content})];
        Self {
            messages,
            fields: Vec::new(),
        }
    }

    fn with(mut self, field: &'static str, value: Value) -> Self {
        self.fields.push((field, value));
        self
    }
}

/// The prompt of `task` at `size`, from the row's own seed; `most_needles` bounds
/// MRCR's repeated requests.
fn build(task: Task, size: usize, most_needles: usize, row_seed: u64, terse: bool) -> Built {
    let rng = &mut SplitMix64::new(row_seed);
    match task {
        Task::VariableTracking => niah::variables(size, rng),
        Task::GraphParents => graph::walk(false, size, rng),
        Task::GraphBfs => graph::walk(true, size, rng),
        Task::Mrcr => mrcr::conversation(size, most_needles, rng),
        needle => niah::needles(needle, size, rng, terse),
    }
}

/// The most a size may grow to (far beyond any context window).
const MAX_SIZE: usize = 1 << 22;

/// The row's prompt and its length: the largest size that fits; for MRCR, with 8,
/// else 4, else 2 needles at most, the first count whose shortest prompt fits.
fn fit_row(
    task: Task,
    row_seed: u64,
    options: &Options,
    counter: &dyn TokenCounter,
) -> Result<(Built, usize), GenError> {
    if task != Task::Mrcr {
        return fit(task, usize::MAX, row_seed, options, counter);
    }
    let mut result = fit(task, 8, row_seed, options, counter);
    for most in [4, 2] {
        if matches!(result, Err(GenError::TooFewTokens { .. })) {
            result = fit(task, most, row_seed, options, counter);
        }
    }
    result
}

/// The largest size whose prompt fits in `tokens`, its prompt and its length.
fn fit(
    task: Task,
    most_needles: usize,
    row_seed: u64,
    options: &Options,
    counter: &dyn TokenCounter,
) -> Result<(Built, usize), GenError> {
    let measure = |size: usize| -> Result<(Built, usize), GenError> {
        let built = build(task, size, most_needles, row_seed, options.terse);
        let length = counter.count(&built.messages).map_err(GenError::Count)?;
        Ok((built, length))
    };
    let mut best = measure(1)?;
    if best.1 > options.tokens {
        return Err(GenError::TooFewTokens {
            task,
            tokens: options.tokens,
            minimum: best.1,
        });
    }
    // Invariant: `lo` fits, `hi` does not (or is the cap).
    let (mut lo, mut hi) = (1, 2);
    while hi < MAX_SIZE {
        let candidate = measure(hi)?;
        if candidate.1 > options.tokens {
            break;
        }
        (lo, best, hi) = (hi, candidate, hi * 2);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let candidate = measure(mid)?;
        if candidate.1 <= options.tokens {
            (lo, best) = (mid, candidate);
        } else {
            hi = mid;
        }
    }
    Ok(best)
}

/// The rows of `options`, each sized by `counter`.
pub fn generate(options: &Options, counter: &dyn TokenCounter) -> Result<Vec<Value>, GenError> {
    let tasks = if options.tasks.is_empty() {
        Task::ALL.to_vec()
    } else {
        options.tasks.clone()
    };
    let mut rng = SplitMix64::new(options.seed);
    let mut rows = Vec::with_capacity(options.count);
    for i in 0..options.count {
        let task = tasks[i % tasks.len()];
        let (built, length) = fit_row(task, rng.next_u64(), options, counter)?;
        let mut row = json!({
            "id": format!("long_context-{}-{i}", options.seed),
            "task": task.as_str(),
            "responses_create_params": {"input": built.messages},
        });
        for (field, value) in built.fields {
            row[field] = value;
        }
        row["token_length"] = json!(length);
        row["target_tokens"] = json!(options.tokens);
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests;
