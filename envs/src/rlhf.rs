//! The `rlhf` environment: chat prompts whose reward is a reward model's score of
//! (prompt, response), not a check. This crate runs no models, so the environment
//! only renders prompts and declares its reward model ([`ModelReward`], through
//! [`Environment::model_reward`]); the trainer loads that model once per stage and
//! scores a step's responses in batches on its own device.
//!
//! Rows: any chat layout `cascade_datasets::preference::prompt_messages` reads
//! (`prompt` as a string or messages, `messages`, `context`, or NeMo Gym's
//! `responses_create_params.input`), so preference rows serve as RLHF prompts too.
//! Scored without a trainer (`cascade score`), a sample gets reward 0 and a
//! `details.error` saying where its reward comes from.

use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;

use crate::environment::{ChatMessage, Environment};
use crate::registry::EnvPlugin;
use crate::ConfigError;

/// How a reward model's score becomes the reward.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreTransform {
    /// `σ((score − shift) / scale)`, in (0, 1): comparable across stages and
    /// domains, and bounded, so one outlying score cannot dominate a mixed batch.
    #[default]
    Sigmoid,
    /// The score itself: GRPO's group normalisation makes the advantage scale-free.
    Raw,
}

/// Settings of the `rlhf` environment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelReward {
    /// A `*ForSequenceClassification` checkpoint folder (relative to the recipe), or
    /// the name of an earlier `rm` stage of the same run.
    pub reward_model: String,
    #[serde(default)]
    pub transform: ScoreTransform,
    #[serde(default)]
    pub shift: f64,
    #[serde(default = "one")]
    pub scale: f64,
    /// Sequences per reward-model forward pass.
    #[serde(default = "default_batch")]
    pub batch: usize,
    /// As an eval set: the checkpoint (`base` or a stage's name) whose greedy
    /// responses the policy's are judged against (the win rate).
    #[serde(default = "default_baseline")]
    pub baseline: String,
}

fn default_baseline() -> String {
    "base".into()
}

fn one() -> f64 {
    1.0
}

fn default_batch() -> usize {
    32
}

impl ModelReward {
    /// The reward for a reward-model score.
    pub fn reward(&self, score: f64) -> f64 {
        match self.transform {
            ScoreTransform::Sigmoid => 1.0 / (1.0 + (-(score - self.shift) / self.scale).exp()),
            ScoreTransform::Raw => score,
        }
    }

    fn check(self) -> Result<Self, ConfigError> {
        let bad = |message: String| ConfigError::Invalid {
            env: "rlhf".into(),
            message,
        };
        if !(self.scale > 0.0 && self.scale.is_finite()) {
            return Err(bad(format!("`scale` must be positive, got {}", self.scale)));
        }
        if !self.shift.is_finite() {
            return Err(bad("`shift` must be a finite number".into()));
        }
        if self.batch == 0 {
            return Err(bad("`batch` must be at least 1".into()));
        }
        if self.reward_model.trim().is_empty() {
            return Err(bad("`reward_model` is empty".into()));
        }
        Ok(self)
    }
}

/// The `rlhf` environment.
#[derive(Debug, Clone)]
pub struct RlhfEnv {
    config: ModelReward,
}

impl RlhfEnv {
    pub fn new(config: ModelReward) -> Result<Self, ConfigError> {
        Ok(Self {
            config: config.check()?,
        })
    }
}

impl Environment for RlhfEnv {
    fn name(&self) -> &str {
        "rlhf"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        ChatMessage::chat_prompt(row)
    }

    fn score(&self, sample: &Sample) -> Reward {
        if let Err(e) = self.prompt(sample) {
            return Reward::error(e.to_string());
        }
        Reward::error(format!(
            "`rlhf` rewards are the score of the reward model `{}`, computed by the trainer on its device; this environment alone does not score",
            self.config.reward_model
        ))
    }

    fn model_reward(&self) -> Option<&ModelReward> {
        Some(&self.config)
    }
}

inventory::submit! {
    EnvPlugin {
        name: "rlhf",
        origin: env!("CARGO_PKG_NAME"),
        description: "chat prompts rewarded by a reward model's score of (prompt, response), run by the trainer (config: reward_model, transform = sigmoid|raw, shift, scale, batch, baseline)",
        make: |config| Ok(Box::new(RlhfEnv::new(config.parse("rlhf")?)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EnvConfig, Registry};
    use serde_json::json;

    fn make(table: serde_json::Value) -> Result<Box<dyn Environment>, String> {
        let registry = Registry::discover().unwrap();
        let config = EnvConfig::new(table.as_object().unwrap().clone());
        registry.create("rlhf", &config).map_err(|e| e.to_string())
    }

    #[test]
    fn declares_its_reward_model_and_transform() {
        let env = make(json!({"reward_model": "rm", "shift": 1.0, "scale": 2.0})).unwrap();
        let spec = env.model_reward().expect("a model reward");
        assert_eq!(spec.reward_model, "rm");
        assert_eq!(spec.reward(1.0), 0.5);
        assert!((spec.reward(3.0) - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        let raw = make(json!({"reward_model": "rm", "transform": "raw"})).unwrap();
        assert_eq!(raw.model_reward().unwrap().reward(-4.5), -4.5);
    }

    #[test]
    fn bad_config_names_the_key() {
        for (table, needle) in [
            (json!({}), "reward_model"),
            (json!({"reward_model": "rm", "scale": 0.0}), "scale"),
            (json!({"reward_model": "rm", "batch": 0}), "batch"),
            (json!({"reward_model": "rm", "transform": "tanh"}), "tanh"),
            (
                json!({"reward_model": "rm", "temperature": 1}),
                "temperature",
            ),
        ] {
            let err = make(table.clone()).err().expect("refused");
            assert!(err.contains(needle), "{table}: {err}");
        }
    }

    #[test]
    fn renders_chat_prompts_and_scores_only_through_the_trainer() {
        let env = make(json!({"reward_model": "rm"})).unwrap();
        let row = Sample::new(json!({"id": "a", "prompt": "Name a fruit."}));
        assert_eq!(
            env.prompt(&row).unwrap(),
            vec![ChatMessage::user("Name a fruit.")]
        );
        let sample = Sample::new(json!({"id": "a", "prompt": "Name a fruit.", "response": "fig"}));
        let reward = env.score(&sample);
        assert_eq!(reward.score, 0.0);
        let error = reward.details["error"].as_str().unwrap().to_owned();
        assert!(error.contains("reward model `rm`"), "{error}");
        let bad = env.score(&Sample::new(json!({"id": "b", "response": "x"})));
        assert!(bad.details["error"].as_str().unwrap().contains("prompt"));
    }
}
