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
//! **Initial state:** the Gym-layout CSVs of `data_dir` (relative to the rows file's
//! folder; see [`load`]) when set. Otherwise NeMo Gym's rows (`environment_name:
//! "workplace_assistant"`, or an `agent_ref`) start from Gym's own state, its CSVs as
//! shipped in the nemo-gym wheel that `scripts/setup` unpacks ([`gym_data_dir`]), since
//! their reference calls name Gym's records; every other row (cascade's
//! `gen-workplace` rows) from the workplace cascade generates from `seed` (default 0).
//!
//! **Refused rows:** a row whose reference calls fail against its initial state names
//! records that state lacks: the calls change nothing, so a do-nothing answer would
//! score 1. Such a row is refused (reward 0, `details.error` naming its id and the
//! failed call, `details.refused: true`), never scored.
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
use std::sync::{Arc, OnceLock};

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
    /// Gym's state for Gym's rows, loaded on the first such row; `None`: every row
    /// starts from `initial` (a `data_dir` was given, or a caller chose the state).
    gym: Option<Arc<GymState>>,
    max_calls: usize,
}

/// Gym's workplace state, read once from `dir`.
#[derive(Debug)]
struct GymState {
    dir: PathBuf,
    loaded: OnceLock<Result<Workplace, String>>,
}

/// The nemo-gym release whose workplace CSVs `scripts/setup` unpacks
/// (`scripts/setup.d/workplace.sh`; the same files ship in 0.4.0 and 0.7.0).
pub const GYM_VERSION: &str = "0.7.0";

/// Where `scripts/setup` puts Gym's workplace CSVs:
/// `$CASCADE_CACHE/runtimes/nemo-gym-0.7.0/resources_servers/workplace_assistant/csv_data`.
pub fn gym_data_dir() -> PathBuf {
    cascade_sandboxes::module_cache::cache_root()
        .join("runtimes")
        .join(format!("nemo-gym-{GYM_VERSION}"))
        .join("resources_servers/workplace_assistant/csv_data")
}

/// Whether `row` is one of NeMo Gym's, whose reference calls name Gym's records.
fn is_gym_row(row: &Sample) -> bool {
    row.get("environment_name").and_then(Value::as_str) == Some("workplace_assistant")
        || row.get("agent_ref").is_some()
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
    /// The state the reference calls leave.
    expected: Workplace,
    log: Log,
}

impl WorkplaceEnv {
    /// An environment whose every row starts from `initial`.
    pub fn new(initial: Workplace, max_calls: usize) -> Self {
        Self {
            initial,
            gym: None,
            max_calls,
        }
    }

    /// Gym's rows start from the CSVs in `dir` (read on the first such row), the
    /// others from `initial`.
    pub fn with_gym_state(mut self, dir: PathBuf) -> Self {
        let loaded = OnceLock::new();
        self.gym = Some(Arc::new(GymState { dir, loaded }));
        self
    }

    /// The state `row` starts from.
    fn initial_for(&self, row: &Sample) -> Result<&Workplace, String> {
        let Some(gym) = self.gym.as_ref().filter(|_| is_gym_row(row)) else {
            return Ok(&self.initial);
        };
        let loaded = gym.loaded.get_or_init(|| {
            load::workplace(&gym.dir).map_err(|e| {
                format!(
                    "NeMo Gym's workplace rows start from Gym's own state, which is not \
                     installed ({e}): run scripts/setup, or set data_dir"
                )
            })
        });
        loaded.as_ref().map_err(Clone::clone)
    }

    /// The environment a config describes (loading `data_dir` when set).
    pub fn from_config(config: &EnvConfig) -> Result<Self, ConfigError> {
        let settings: WorkplaceConfig = config.parse("workplace")?;
        let initial = match &settings.data_dir {
            None => {
                let env = Self::new(seed::workplace(settings.seed), settings.max_calls);
                return Ok(env.with_gym_state(gym_data_dir()));
            }
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

    /// The state the row's reference calls leave from `initial`, or the refusal of a
    /// row whose reference calls fail there (they name records it lacks).
    fn expected(
        initial: &Workplace,
        row: &Sample,
        reference: &[Call],
    ) -> Result<Workplace, Reward> {
        let mut state = initial.clone();
        let mut log = Log::default();
        run(&mut state, reference.iter().cloned().map(Ok), &mut log);
        match log.errors.first() {
            None => Ok(state),
            Some(first) => Err(Reward::error(format!(
                "row {}: its reference calls fail against the workplace state \
                 (call {}: {}), so any answer, even none, would match; refused",
                row.id_text(),
                first["call"],
                first["error"].as_str().unwrap_or_default(),
            ))
            .with("refused", true)
            .with("reference_errors", log.errors)),
        }
    }

    fn verdict(state: &Workplace, expected: &Workplace, log: Log) -> Reward {
        let diff = first_difference(state, expected);
        Reward::pass_fail(diff.is_none())
            .with("calls_executed", log.executed)
            .with("errors", log.errors)
            .with("reference_errors", Vec::<Value>::new())
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
        sample.validate_row()?;
        let row = WorkplaceRow::try_from(sample)?;
        let initial = match self.initial_for(sample) {
            Ok(initial) => initial,
            Err(message) => return Ok(Reward::error(message)),
        };
        let expected = match Self::expected(initial, sample, &row.reference) {
            Ok(expected) => expected,
            Err(refused) => return Ok(refused),
        };
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
        let mut state = initial.clone();
        let mut log = Log::default();
        run(&mut state, predicted.calls, &mut log);
        Ok(Self::verdict(&state, &expected, log).with("source", predicted.source))
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
        let refused = |problem: String| FieldError::Invalid {
            field: "ground_truth".to_owned(),
            problem,
        };
        let initial = self.initial_for(row).map_err(refused)?;
        let expected = Self::expected(initial, row, &reference)
            .map_err(|r| refused(r.error_message().unwrap_or_default().to_owned()))?;
        let live = Live {
            state: initial.clone(),
            expected,
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
            return Turn::Done(Self::verdict(&live.state, &live.expected, log));
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
        Self::verdict(&live.state, &live.expected, log).with("stopped", true)
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
