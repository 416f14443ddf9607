//! The reward a check produces: a score in `[0, 1]` and machine-readable details.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The outcome of scoring one sample.
///
/// `details` is a JSON object with sorted keys (serde_json's default map), so a reward
/// serialises to the same bytes on every run. Put only deterministic facts in it:
/// no timings, no paths of temporary folders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reward {
    pub score: f64,
    pub details: Map<String, Value>,
}

impl Reward {
    /// A reward with the given score and no details yet.
    pub fn new(score: f64) -> Self {
        Self {
            score,
            details: Map::new(),
        }
    }

    /// 1.0 when `passed`, else 0.0.
    pub fn pass_fail(passed: bool) -> Self {
        Self::new(if passed { 1.0 } else { 0.0 })
    }

    /// Reward 0 with `details.error` set: the sample could not be scored.
    pub fn error(message: impl Into<String>) -> Self {
        Self::new(0.0).with("error", message.into())
    }

    /// Adds one detail (builder style).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Sets one detail in place.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.details.insert(key.to_owned(), value.into());
    }

    /// The error message, if this reward records a failure to score.
    pub fn error_message(&self) -> Option<&str> {
        self.details.get("error").and_then(Value::as_str)
    }

    /// A short label for summaries: `details.verdict` when present, `error` when the
    /// sample could not be scored, else `pass` / `fail` by score.
    pub fn outcome(&self) -> String {
        if let Some(v) = self.details.get("verdict").and_then(Value::as_str) {
            return v.to_owned();
        }
        if self.details.contains_key("error") {
            return "error".to_owned();
        }
        if self.score >= 1.0 {
            "pass".to_owned()
        } else if self.score <= 0.0 {
            "fail".to_owned()
        } else {
            "partial".to_owned()
        }
    }
}
