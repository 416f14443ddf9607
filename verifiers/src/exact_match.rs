//! `exact_match`: the simplest verifier. Reward 1 when the response's final answer
//! (after the thinking, see [`crate::final_answer`]), trimmed, equals the sample's
//! `answer` field, trimmed. Useful for string-valued tasks and as the
//! smallest working example of a verifier.

use crate::{inventory, Reward, Sample, Verifier, VerifierPlugin};

pub struct ExactMatch;

impl Verifier for ExactMatch {
    fn name(&self) -> &str {
        "exact_match"
    }

    fn verify(&self, sample: &Sample) -> Reward {
        let answer = match sample.str_field("answer") {
            Ok(a) => a,
            Err(e) => return Reward::error(e.to_string()),
        };
        let response = match sample.final_answer() {
            Ok(r) => r,
            Err(e) => return Reward::error(e.to_string()),
        };
        Reward::pass_fail(response.trim() == answer.trim())
    }
}

inventory::submit! {
    VerifierPlugin {
        name: "exact_match",
        origin: env!("CARGO_PKG_NAME"),
        description: "trimmed final answer equals the `answer` field",
        make: || Box::new(ExactMatch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compares_trimmed_text() {
        let s = |r: &str| Sample::new(json!({"id": "x", "response": r, "answer": " 42"}));
        assert_eq!(ExactMatch.verify(&s("42\n")).score, 1.0);
        assert_eq!(ExactMatch.verify(&s("4 2")).score, 0.0);
        assert_eq!(ExactMatch.verify(&s("<think>41</think>42")).score, 1.0);
        assert_eq!(ExactMatch.verify(&s("<think>42</think>41")).score, 0.0);
        let cut = ExactMatch.verify(&s("<think>42"));
        assert!(cut.error_message().unwrap().contains("truncated"));
        let missing = Sample::new(json!({"id": "x", "response": "42"}));
        assert_eq!(
            ExactMatch.verify(&missing).error_message(),
            Some("missing field `answer`")
        );
    }
}
