//! The `math` [`Verifier`]: reads `response` and the gold `answer` from a sample.

use serde_json::Value;

use crate::{Reward, Sample, Verifier};

use super::{check_with, MathOptions, MathVerdict};

/// Scores a sample by [`check_with`]ing its `response` against its `answer`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MathVerifier {
    /// Exact by default; `approx` for datasets with rounded golds.
    pub options: MathOptions,
}

impl MathVerifier {
    pub fn new(options: MathOptions) -> Self {
        Self { options }
    }

    /// The reward for a verdict; `details` holds `extracted`, `extracted_from`,
    /// `normal_form`, `gold_normal_form`, `verdict` and `reason`.
    pub fn reward(verdict: &MathVerdict) -> Reward {
        let opt = |s: &Option<String>| s.clone().map_or(Value::Null, Value::String);
        Reward::pass_fail(verdict.correct)
            .with("extracted", opt(&verdict.extracted))
            .with(
                "extracted_from",
                verdict
                    .source
                    .map_or(Value::Null, |s| Value::from(s.as_str())),
            )
            .with("normal_form", opt(&verdict.normal_form))
            .with("gold_normal_form", opt(&verdict.gold_normal_form))
            .with("verdict", verdict.verdict)
            .with("reason", verdict.reason.clone())
    }
}

/// The gold answer: `answer`, else NeMo Gym's `expected_answer` (math_with_judge
/// rows); a string, or a JSON number written as text.
pub fn gold_answer(sample: &Sample) -> Result<String, crate::FieldError> {
    let field = match sample.get("answer") {
        None if sample.get("expected_answer").is_some() => "expected_answer",
        _ => "answer",
    };
    match sample.require(field)? {
        Value::Number(n) => Ok(n.to_string()),
        _ => sample.str_field(field).map(str::to_owned),
    }
}

impl Verifier for MathVerifier {
    fn name(&self) -> &str {
        "math"
    }

    fn verify(&self, sample: &Sample) -> Reward {
        // The final answer only; a response cut off while thinking is an error.
        let response = match sample.final_answer() {
            Ok(r) => r,
            Err(e) => {
                return Reward::error(e.to_string())
                    .with("extracted", Value::Null)
                    .with("verdict", "no_answer")
            }
        };
        let gold = match gold_answer(sample) {
            Ok(g) => g,
            Err(e) => return Reward::error(e.to_string()).with("extracted", Value::Null),
        };
        Self::reward(&check_with(response, &gold, &self.options))
    }
}
