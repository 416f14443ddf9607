//! Single-digit addition problems and their exact-answer reward, plus the
//! `Environment` the learning test and the runner score them with.

use cascade_envs::{ChatMessage, Environment, Reward, Sample};
use cascade_verifiers::FieldError;
use serde_json::json;

use cascade_verifiers::seeded::SplitMix64;

/// `a + b` with `a, b` in `0..=9`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub a: u32,
    pub b: u32,
}

impl Problem {
    pub fn random(rng: &mut SplitMix64) -> Self {
        Self {
            a: rng.below(10) as u32,
            b: rng.below(10) as u32,
        }
    }

    /// The prompt text the model continues: `"3+4="`.
    pub fn prompt(&self) -> String {
        format!("{}+{}=", self.a, self.b)
    }

    pub fn answer(&self) -> String {
        (self.a + self.b).to_string()
    }

    /// 1 for exactly the sum (surrounding whitespace ignored), else 0.
    pub fn reward(&self, response: &str) -> f64 {
        if response.trim() == self.answer() {
            1.0
        } else {
            0.0
        }
    }

    /// As a dataset row: `{"id", "prompt", "answer"}`.
    pub fn row(&self) -> Sample {
        Sample::new(
            json!({"id": format!("{}+{}", self.a, self.b), "prompt": self.prompt(), "answer": self.answer()}),
        )
    }
}

/// The `addition` environment: rows with `prompt` (shown as is) and `answer`, reward
/// 1 when the response is exactly the answer. The toy task's stand-in for `math`,
/// whose answers here are plain integers.
pub struct AdditionEnv;

cascade_envs::inventory::submit! {
    cascade_envs::EnvPlugin {
        name: "addition",
        origin: env!("CARGO_PKG_NAME"),
        description: "the trainer's toy task: single-digit sums, exact answer",
        make: |_| Ok(Box::new(AdditionEnv)),
    }
}

impl Environment for AdditionEnv {
    fn name(&self) -> &str {
        "addition"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        Ok(vec![ChatMessage::user(row.str_field("prompt")?)])
    }

    fn score(&self, sample: &Sample) -> Reward {
        match (sample.str_field("answer"), sample.response()) {
            (Ok(answer), Ok(response)) => Reward::pass_fail(response.trim() == answer.trim())
                .with("extracted", response.trim()),
            (Err(e), _) | (_, Err(e)) => Reward::error(e.to_string()),
        }
    }
}
