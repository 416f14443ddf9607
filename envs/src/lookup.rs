//! The `lookup` environment: the trainer's multi-turn toy task, "look up X, then
//! answer with it". A row holds a `key` and a `table` of key → value strings; the
//! prompt asks for the key's value. The one tool, `get` (`{"key": …}`), answers
//! `{"value": …}` or `{"error": …}` as a tool result. The reward is 1 iff the model
//! looked the key up with `get` and then answered, in a turn without calls, exactly
//! its value (trimmed, thinking not read). It exists so the multi-turn rollout can be
//! shown to learn on a tiny model; `workplace` is the real task.
//!
//! **details:** `answer`, `expected`, `calls` (executed), `looked_up`; `error` for a
//! malformed row, a turn over the call limit, or a conversation stopped before it
//! answered.

use cascade_verifiers::tool_call::{parse_text, visible_text, ParsedCall};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::config::{ConfigError, EnvConfig};
use crate::environment::{ChatMessage, Environment};
use crate::multi_turn::{replay, MultiTurnEnvironment, Session, Turn};
use crate::registry::EnvPlugin;

/// Settings of the `lookup` environment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LookupConfig {
    /// The most `get` calls executed per conversation; more is reward 0.
    pub max_calls: usize,
}

impl Default for LookupConfig {
    fn default() -> Self {
        Self { max_calls: 8 }
    }
}

/// The `lookup` environment.
#[derive(Debug, Clone, Default)]
pub struct LookupEnv {
    config: LookupConfig,
}

/// A row's task: the key asked for and the table the tool reads.
struct LookupRow {
    key: String,
    table: Map<String, Value>,
}

impl TryFrom<&Sample> for LookupRow {
    type Error = FieldError;

    fn try_from(row: &Sample) -> Result<Self, FieldError> {
        let key = row.str_field("key")?.to_owned();
        let table = match row.value().get("table") {
            Some(Value::Object(map)) => map.clone(),
            Some(other) => return Err(FieldError::wrong_type("table", "an object", other)),
            None => return Err(FieldError::Missing("table".into())),
        };
        Ok(Self { key, table })
    }
}

/// One conversation's state.
struct Live {
    row: LookupRow,
    calls: usize,
    looked_up: bool,
}

impl LookupEnv {
    pub fn new(config: LookupConfig) -> Self {
        Self { config }
    }

    /// What `get` answers to one call.
    fn answer_call(live: &mut Live, call: &ParsedCall) -> Value {
        if call.name.as_deref() != Some("get") {
            return json!({"error": format!("unknown tool {:?}; the only tool is `get`", call.name)});
        }
        let key = match &call.arguments {
            Ok(args) => args.get("key").and_then(Value::as_str),
            Err(e) => return json!({ "error": e }),
        };
        let Some(key) = key else {
            return json!({"error": "`get` takes {\"key\": string}"});
        };
        live.looked_up |= key == live.row.key;
        match live.row.table.get(key) {
            Some(value) => json!({ "value": value }),
            None => json!({"error": format!("no key {key:?}")}),
        }
    }

    fn verdict(live: &Live, turn: &str) -> Reward {
        let answer = visible_text(turn).trim();
        let expected = live.row.table.get(&live.row.key).and_then(Value::as_str);
        let mut reward = Reward::pass_fail(live.looked_up && expected == Some(answer))
            .with("answer", answer)
            .with("expected", expected)
            .with("calls", live.calls)
            .with("looked_up", live.looked_up);
        // Cut off while thinking: no final answer, which every env reports as an error.
        if let Err(why) = cascade_verifiers::final_answer::final_answer(turn).answer() {
            reward.set("error", why.to_string());
        }
        reward
    }

    /// The model turns of a recorded sample: the assistant messages of `messages`,
    /// else `response` as the only turn.
    fn recorded_turns(sample: &Sample) -> Result<Vec<String>, FieldError> {
        match sample.value().get("messages") {
            Some(Value::Array(messages)) => Ok(messages
                .iter()
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
                .filter_map(|m| m.get("content").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()),
            Some(other) => Err(FieldError::wrong_type("messages", "a list", other)),
            None => Ok(vec![sample.response()?.to_owned()]),
        }
    }
}

impl Environment for LookupEnv {
    fn name(&self) -> &str {
        "lookup"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        let row = LookupRow::try_from(row)?;
        Ok(vec![ChatMessage::user(format!("Look up {}.", row.key))])
    }

    fn score(&self, sample: &Sample) -> Reward {
        let turns = match Self::recorded_turns(sample) {
            Ok(turns) => turns,
            Err(e) => return Reward::error(e.to_string()),
        };
        replay(self, sample, turns.iter().map(String::as_str))
            .unwrap_or_else(|e| Reward::error(e.to_string()))
    }

    fn multi_turn(&self) -> Option<&dyn MultiTurnEnvironment> {
        Some(self)
    }
}

impl MultiTurnEnvironment for LookupEnv {
    fn start(&self, row: &Sample) -> Result<Session, FieldError> {
        let messages = self.prompt(row)?;
        let live = Live {
            row: LookupRow::try_from(row)?,
            calls: 0,
            looked_up: false,
        };
        Ok(Session::new(messages, live))
    }

    fn step(&self, session: &mut Session, model_turn: &str) -> Turn {
        session.turns += 1;
        session.messages.push(ChatMessage::assistant(model_turn));
        let max_calls = self.config.max_calls;
        let Some(live) = session.state_mut::<Live>() else {
            return Turn::Done(Reward::error("the session was not started by lookup"));
        };
        let calls = match parse_text(model_turn, &[]) {
            Ok(calls) => calls,
            Err(e) => return Turn::Done(Reward::error(e.to_string())),
        };
        if calls.is_empty() {
            return Turn::Done(Self::verdict(live, model_turn));
        }
        if live.calls + calls.len() > max_calls {
            return Turn::Done(Reward::error(format!(
                "more than {max_calls} tool calls (the max_calls limit)"
            )));
        }
        live.calls += calls.len();
        let results: Vec<ChatMessage> = calls
            .iter()
            .map(|call| ChatMessage::tool(Self::answer_call(live, call).to_string()))
            .collect();
        session.messages.extend(results.iter().cloned());
        Turn::ToolResults(results)
    }

    fn finish(&self, _session: &mut Session) -> Reward {
        Reward::error("the conversation was stopped before the model answered")
    }
}

fn make(config: &EnvConfig) -> Result<Box<dyn Environment>, ConfigError> {
    Ok(Box::new(LookupEnv::new(config.parse("lookup")?)))
}

inventory::submit! {
    EnvPlugin {
        name: "lookup",
        origin: env!("CARGO_PKG_NAME"),
        description: "the trainer's multi-turn toy task: look a key up with the `get` tool, then answer its value (config: max_calls)",
        make,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::{guard_finish, guard_start, guard_step};

    fn row() -> Sample {
        Sample::new(json!({"id": "l0", "key": "c", "table": {"a": "4", "c": "7"}}))
    }

    fn call(key: &str) -> String {
        format!(
            "<tool_call>{{\"name\": \"get\", \"arguments\": {{\"key\": \"{key}\"}}}}</tool_call>"
        )
    }

    #[test]
    fn a_lookup_then_the_value_is_rewarded() {
        let env = LookupEnv::default();
        let mut session = guard_start(&env, &row()).expect("starts");
        assert_eq!(session.messages, vec![ChatMessage::user("Look up c.")]);
        let first = guard_step(&env, &mut session, &call("c"));
        let results = vec![ChatMessage::tool(r#"{"value":"7"}"#)];
        assert_eq!(first.turn, Turn::ToolResults(results));
        let Turn::Done(reward) = guard_step(&env, &mut session, "<think>4?</think> 7\n").turn
        else {
            panic!("a turn without calls ends the conversation");
        };
        assert_eq!(reward.score, 1.0, "{reward:?}");
        assert_eq!(reward.details["looked_up"], true);
        assert_eq!(session.messages.len(), 4);
    }

    #[test]
    fn an_answer_cut_off_while_thinking_is_an_error() {
        let env = LookupEnv::default();
        let mut session = guard_start(&env, &row()).expect("starts");
        guard_step(&env, &mut session, &call("c"));
        let Turn::Done(reward) = guard_step(&env, &mut session, "<think>It is 7").turn else {
            panic!("a turn without calls ends the conversation");
        };
        assert_eq!(reward.score, 0.0);
        assert!(
            reward.error_message().unwrap().contains("truncated"),
            "{reward:?}"
        );
    }

    #[test]
    fn guessing_wrong_keys_and_stopping_score_zero() {
        let env = LookupEnv::default();
        // The right value without looking it up is a guess.
        assert_eq!(
            env.score(&Sample::new(
                json!({"id": "l0", "key": "c", "table": {"c": "7"}, "response": "7"})
            ))
            .score,
            0.0
        );
        let mut session = guard_start(&env, &row()).unwrap();
        let Turn::ToolResults(r) = guard_step(&env, &mut session, &call("z")).turn else {
            panic!("a call answers");
        };
        assert!(r[0].content.contains("no key"), "{r:?}");
        let bad = guard_step(
            &env,
            &mut session,
            "<tool_call>{\"name\": \"put\"}</tool_call>",
        );
        let Turn::ToolResults(r) = bad.turn else {
            panic!()
        };
        assert!(r[0].content.contains("unknown tool"), "{r:?}");
        let stopped = guard_finish(&env, &mut session).reward;
        assert_eq!(stopped.score, 0.0);
        assert!(stopped.error_message().unwrap().contains("stopped"));
        let many = call("a").repeat(9);
        let Turn::Done(over) =
            guard_step(&env, &mut guard_start(&env, &row()).unwrap(), &many).turn
        else {
            panic!("over the limit ends the conversation");
        };
        assert!(over.error_message().unwrap().contains("max_calls"));
    }

    #[test]
    fn a_recorded_transcript_replays_to_the_loops_reward() {
        let env = LookupEnv::default();
        let mut value = row().value().clone();
        value["messages"] = json!([
            {"role": "user", "content": "Look up c."},
            {"role": "assistant", "content": call("c")},
            {"role": "tool", "content": "{\"value\":\"7\"}"},
            {"role": "assistant", "content": "7"},
        ]);
        assert_eq!(env.score(&Sample::new(value)).score, 1.0);
        let bad = env.score(&Sample::new(
            json!({"id": "x", "key": "c", "table": [], "response": "7"}),
        ));
        assert!(bad.error_message().unwrap().contains("table"), "{bad:?}");
        assert!(guard_start(&env, &Sample::new(json!({"id": "x"}))).is_err());
    }
}
