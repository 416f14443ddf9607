//! The `workplace` environment: multi-step, stateful tool use over an in-memory
//! workplace (NeMo Gym's workplace assistant: 27 tools over email, calendar, analytics,
//! project management, CRM and a company directory; `cascade_verifiers::workplace`).
//!
//! **Reward:** 1 iff executing the model's calls leaves every database in the same
//! state as executing the row's reference calls (`ground_truth`), compared with Gym's
//! case rules (case-insensitive except `status`, `list_name`, `board`). A state
//! comparison, not a call comparison: equivalent call sequences count, and calls
//! that fail change nothing (a tool error then a fix scores like the fix).
//!
//! **Initial state:** the workplace cascade generates from `seed` (default 0), or the
//! Gym-layout CSVs of `data_dir` (relative to the rows file's folder); see [`load`].
//!
//! **details:** `source` (where the calls were read), `calls_executed`, `errors` (per
//! failed call: index, name, message), `reference_errors`, `state_equal` and `diff`
//! (the first differing table and row, or null); `error` for malformed rows.
//!
//! **Multi-turn:** [`MultiTurnEnvironment`]: each model turn's Hermes `<tool_call>`
//! blocks run on the session's live state and their outputs come back as `tool`
//! messages (`{"output": …}`, as Gym's tool route answers); a turn without calls ends
//! the session with the reward. `score` of a recorded transcript replays it.

pub mod calls;
pub mod load;
pub mod row;

use std::path::PathBuf;

use cascade_verifiers::final_answer::final_answer;
use cascade_verifiers::workplace::{first_difference, seed, Call, Workplace};
use cascade_verifiers::{AnswerError, FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::config::{ConfigError, EnvConfig};
use crate::environment::{ChatMessage, Environment};
use crate::gym::gym_prompt;
use crate::multi_turn::{MultiTurnEnvironment, Session, Turn};
use crate::registry::EnvPlugin;
use calls::Read;
use row::WorkplaceRow;

/// Details quote at most this many characters of a tool's message.
const MAX_MESSAGE_CHARS: usize = 300;

/// Settings of the `workplace` environment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WorkplaceConfig {
    /// A folder of Gym-layout CSVs to start from instead of the generated workplace.
    pub data_dir: Option<PathBuf>,
    /// The seed of the generated workplace (ignored with `data_dir`).
    pub seed: u64,
    /// The most calls executed per sample (or per session); more is reward 0.
    pub max_calls: usize,
}

impl Default for WorkplaceConfig {
    fn default() -> Self {
        Self {
            data_dir: None,
            seed: 0,
            max_calls: 64,
        }
    }
}

/// The `workplace` environment.
#[derive(Debug, Clone)]
pub struct WorkplaceEnv {
    initial: Workplace,
    max_calls: usize,
}

/// What running a list of calls did, for details.
#[derive(Debug, Default)]
struct Log {
    executed: usize,
    errors: Vec<Value>,
}

/// The live state of one multi-turn session.
struct Live {
    state: Workplace,
    reference: Vec<Call>,
    log: Log,
}

impl WorkplaceEnv {
    pub fn new(initial: Workplace, max_calls: usize) -> Self {
        Self { initial, max_calls }
    }

    /// The environment a config describes (loading `data_dir` when set).
    pub fn from_config(config: &EnvConfig) -> Result<Self, ConfigError> {
        let settings: WorkplaceConfig = config.parse("workplace")?;
        let initial = match &settings.data_dir {
            None => seed::workplace(settings.seed),
            Some(dir) => {
                let dir = match &config.base_dir {
                    Some(base) if dir.is_relative() => base.join(dir),
                    _ => dir.clone(),
                };
                load::workplace(&dir).map_err(|e| ConfigError::Invalid {
                    env: "workplace".to_owned(),
                    message: e.to_string(),
                })?
            }
        };
        Ok(Self::new(initial, settings.max_calls))
    }

    /// The state the row's reference calls leave, and their failures.
    fn expected(&self, reference: &[Call]) -> (Workplace, Log) {
        let mut state = self.initial.clone();
        let mut log = Log::default();
        run(&mut state, reference.iter().cloned().map(Ok), &mut log);
        (state, log)
    }

    fn verdict(&self, state: &Workplace, reference: &[Call], log: Log) -> Reward {
        let (expected, reference_log) = self.expected(reference);
        let diff = first_difference(state, &expected);
        Reward::pass_fail(diff.is_none())
            .with("calls_executed", log.executed)
            .with("errors", log.errors)
            .with("reference_errors", reference_log.errors)
            .with("state_equal", diff.is_none())
            .with("diff", diff.map_or(Value::Null, |d| d.to_json()))
    }

    fn too_many(&self, found: usize) -> Reward {
        Reward::error(format!(
            "more than {} tool calls (the max_calls limit)",
            self.max_calls
        ))
        .with("calls_found", found)
    }

    fn try_score(&self, sample: &Sample) -> Result<Reward, FieldError> {
        if !sample.value().is_object() {
            return Err(FieldError::wrong_type(
                "<line>",
                "a JSON object",
                sample.value(),
            ));
        }
        sample.str_field("id")?;
        let row = WorkplaceRow::try_from(sample)?;
        let predicted = calls::predicted(sample, self.max_calls)?;
        // A text response cut off while thinking has no final answer: an error.
        if predicted.source == "response" {
            if let Err(AnswerError::Truncated(why)) = sample.final_answer() {
                return Ok(Reward::error(why.to_string()));
            }
        }
        if predicted.calls.len() > self.max_calls {
            return Ok(self
                .too_many(predicted.calls.len())
                .with("source", predicted.source));
        }
        let mut state = self.initial.clone();
        let mut log = Log::default();
        run(&mut state, predicted.calls, &mut log);
        Ok(self
            .verdict(&state, &row.reference, log)
            .with("source", predicted.source))
    }
}

/// Runs `calls` in order on `state`, logging failures; returns each call's output.
fn run(state: &mut Workplace, calls: impl IntoIterator<Item = Read>, log: &mut Log) -> Vec<Value> {
    let mut outputs = Vec::new();
    for read in calls {
        let index = log.executed;
        log.executed += 1;
        let (name, result) = match read {
            Ok(call) => {
                let result = state.execute(&call);
                (
                    Value::String(call.name),
                    result.error.map_or(Ok(result.output), Err),
                )
            }
            Err(message) => (Value::Null, Err(format!("Error: {message}"))),
        };
        match result {
            Ok(output) => outputs.push(output),
            Err(message) => {
                let short: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
                log.errors
                    .push(json!({"call": index, "name": name, "error": short}));
                outputs.push(Value::String(message));
            }
        }
    }
    outputs
}

impl Environment for WorkplaceEnv {
    fn name(&self) -> &str {
        "workplace"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        match gym_prompt(row)? {
            Some(messages) => Ok(messages),
            None => Ok(vec![ChatMessage::user(row.str_field("prompt")?)]),
        }
    }

    fn score(&self, sample: &Sample) -> Reward {
        self.try_score(sample)
            .unwrap_or_else(|e| Reward::error(e.to_string()))
    }

    fn multi_turn(&self) -> Option<&dyn MultiTurnEnvironment> {
        Some(self)
    }
}

impl MultiTurnEnvironment for WorkplaceEnv {
    fn start(&self, row: &Sample) -> Result<Session, FieldError> {
        let reference = WorkplaceRow::try_from(row)?.reference;
        let live = Live {
            state: self.initial.clone(),
            reference,
            log: Log::default(),
        };
        Ok(Session::new(self.prompt(row)?, live))
    }

    fn step(&self, session: &mut Session, model_turn: &str) -> Turn {
        session.turns += 1;
        session.messages.push(ChatMessage::assistant(model_turn));
        let Some(live) = session.state_mut::<Live>() else {
            return Turn::Done(Reward::error("the session was not started by workplace"));
        };
        if let Err(why) = final_answer(model_turn).answer() {
            return Turn::Done(Reward::error(why.to_string()));
        }
        let calls = calls::hermes(model_turn, self.max_calls);
        if calls.is_empty() {
            let log = std::mem::take(&mut live.log);
            return Turn::Done(self.verdict(&live.state, &live.reference, log));
        }
        if live.log.executed + calls.len() > self.max_calls {
            return Turn::Done(self.too_many(live.log.executed + calls.len()));
        }
        let outputs = run(&mut live.state, calls, &mut live.log);
        let results: Vec<ChatMessage> = outputs
            .into_iter()
            .map(|output| ChatMessage::tool(json!({ "output": output }).to_string()))
            .collect();
        session.messages.extend(results.iter().cloned());
        Turn::ToolResults(results)
    }

    /// The state reached so far against the reference: stopping after the last call
    /// that was needed loses nothing, since the reward is the state.
    fn finish(&self, session: &mut Session) -> Reward {
        let Some(live) = session.state_mut::<Live>() else {
            return Reward::error("the session was not started by workplace");
        };
        let log = std::mem::take(&mut live.log);
        self.verdict(&live.state, &live.reference, log)
            .with("stopped", true)
    }
}

fn make(config: &EnvConfig) -> Result<Box<dyn Environment>, ConfigError> {
    Ok(Box::new(WorkplaceEnv::from_config(config)?))
}

inventory::submit! {
    EnvPlugin {
        name: "workplace",
        origin: env!("CARGO_PKG_NAME"),
        description: "multi-turn tool use over an in-memory workplace (27 tools, NeMo Gym's); reward 1 when the calls leave the same state as ground_truth (config: data_dir, seed, max_calls)",
        make,
    }
}

#[cfg(test)]
mod tests;
