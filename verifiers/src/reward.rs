//! The reward a check produces: a score in `[0, 1]` and machine-readable details.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `details` key set to `true` on a reward that records a scoring failure.
pub const FAILED_KEY: &str = "failed";
/// `details` key naming the [`ScoringFailure`] kind.
pub const FAILURE_KEY: &str = "failure";

/// Why a sample could not be scored: the scorer failed, not the model. A model's own
/// error (a wrong or unparsable answer, its program's `runtime_error` or `time_limit`)
/// is never one of these: it is an ordinary reward 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoringFailure {
    /// The scorer panicked, or returned a non-finite score or the wrong number of
    /// rewards (a bug).
    Scorer,
    /// The scorer hit its own limit (a plugin's time or memory, a grader's work cap),
    /// not one set on the model's program.
    ScorerLimit,
    /// A judge (a GenRM endpoint) could not be reached or gave no usable verdict.
    JudgeUnavailable,
    /// A plugin crashed, raised, or answered something that is not a reward.
    PluginCrash,
}

impl ScoringFailure {
    pub const ALL: [ScoringFailure; 4] = [
        ScoringFailure::Scorer,
        ScoringFailure::ScorerLimit,
        ScoringFailure::JudgeUnavailable,
        ScoringFailure::PluginCrash,
    ];

    /// The name written in `details.failure`.
    pub fn name(self) -> &'static str {
        match self {
            ScoringFailure::Scorer => "scorer_error",
            ScoringFailure::ScorerLimit => "scorer_limit",
            ScoringFailure::JudgeUnavailable => "judge_unavailable",
            ScoringFailure::PluginCrash => "plugin_crash",
        }
    }

    /// The kind named `name` (as [`ScoringFailure::name`] writes it).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

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

    /// Reward 0 for a sample that **could not be scored** (see [`ScoringFailure`]): the
    /// scorer, not the model, failed. `details.failed` is `true`, `details.failure`
    /// names the kind and `details.error` says why. Consumers keep it apart from a 0:
    /// `cascade score` writes `"reward": null`, the trainer leaves it out of the
    /// advantages and the loss; routes that need a float (NeMo Gym, OpenRLHF) send 0
    /// with `details.failed`.
    pub fn failed(kind: ScoringFailure, message: impl Into<String>) -> Self {
        Self::error(message).with_failure(kind)
    }

    /// Marks this reward as a scoring failure of `kind`: its score becomes 0.
    pub fn with_failure(mut self, kind: ScoringFailure) -> Self {
        self.score = 0.0;
        self.set(FAILED_KEY, true);
        self.set(FAILURE_KEY, kind.name());
        self
    }

    /// The kind of scoring failure this reward records, when it records one.
    pub fn failure(&self) -> Option<ScoringFailure> {
        if self.details.get(FAILED_KEY) != Some(&Value::Bool(true)) {
            return None;
        }
        let name = self.details.get(FAILURE_KEY).and_then(Value::as_str);
        Some(
            name.and_then(ScoringFailure::parse)
                .unwrap_or(ScoringFailure::Scorer),
        )
    }

    /// Whether the sample could not be scored (its 0 is no verdict on the model).
    pub fn is_failed(&self) -> bool {
        self.failure().is_some()
    }

    /// The error message, if this reward records a failure to score.
    pub fn error_message(&self) -> Option<&str> {
        self.details.get("error").and_then(Value::as_str)
    }

    /// A short label for summaries: `failed:KIND` for a scoring failure, else
    /// `details.verdict` when present, `error` when the sample could not be scored,
    /// else `pass` / `fail` by score.
    pub fn outcome(&self) -> String {
        if let Some(kind) = self.failure() {
            return format!("failed:{}", kind.name());
        }
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
