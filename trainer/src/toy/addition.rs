//! Single-digit addition problems and their exact-answer reward. The runner scores
//! them with the `addition` environment of `cascade-envs` (`cascade_envs::addition`),
//! since the trainer computes no rewards itself.

use cascade_envs::Sample;
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
