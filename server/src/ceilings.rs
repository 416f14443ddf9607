//! What one sample may cost, set by the operator (`--max-test-seconds`,
//! `--max-memory-mb`, `--max-response-bytes`).
//!
//! A sample that asks for more is **refused, not clamped**: it gets reward 0 with
//! `details.error` naming the field, its value and the server's ceiling, and is not
//! run. Clamping would score the program under limits other than its task's, so a
//! solution correct within its own time limit could earn 0 with no word of why.

use cascade_envs::{Reward, Sample};
use serde_json::Value;

/// The per-sample ceilings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceilings {
    /// The most seconds a sample may ask for per test (`time_limit_s`).
    pub max_test_seconds: f64,
    /// The most MiB a sample may ask for (`memory_limit_mb`).
    pub max_memory_mb: f64,
    /// The longest `response`, in bytes.
    pub max_response_bytes: usize,
}

impl Default for Ceilings {
    fn default() -> Self {
        Self {
            max_test_seconds: 10.0,
            max_memory_mb: 1024.0,
            max_response_bytes: 1 << 20,
        }
    }
}

impl Ceilings {
    /// The refusal of `sample` if it asks for more than a ceiling, else `None`.
    pub fn refuse(&self, sample: &Sample) -> Option<Reward> {
        let field = |name: &str| sample.get(name).and_then(Value::as_f64);
        for (name, ceiling, flag) in [
            ("time_limit_s", self.max_test_seconds, "--max-test-seconds"),
            ("memory_limit_mb", self.max_memory_mb, "--max-memory-mb"),
        ] {
            if let Some(asked) = field(name).filter(|asked| *asked > ceiling) {
                return Some(Reward::error(format!(
                    "{name} {asked} exceeds this server's ceiling ({flag} {ceiling})"
                )));
            }
        }
        let response = sample.get("response").and_then(Value::as_str)?;
        (response.len() > self.max_response_bytes).then(|| {
            Reward::error(format!(
                "the response holds {} bytes, more than this server's ceiling (--max-response-bytes {})",
                response.len(),
                self.max_response_bytes
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refuses_what_asks_for_more() {
        let c = Ceilings {
            max_response_bytes: 4,
            ..Ceilings::default()
        };
        let ok = Sample::new(json!({"id": 1, "response": "abcd", "time_limit_s": 10}));
        assert!(c.refuse(&ok).is_none());
        for (sample, needle) in [
            (
                json!({"response": "", "time_limit_s": 3600}),
                "time_limit_s 3600",
            ),
            (
                json!({"response": "", "memory_limit_mb": 4096}),
                "--max-memory-mb",
            ),
            (json!({"response": "abcde"}), "--max-response-bytes 4"),
        ] {
            let reward = c.refuse(&Sample::new(sample)).unwrap();
            assert_eq!(reward.score, 0.0);
            assert!(reward.error_message().unwrap().contains(needle));
        }
    }
}
