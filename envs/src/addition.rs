//! The `addition` environment: the trainer's toy task (single-digit sums, `"3+4="` →
//! `"7"`). Rows carry `prompt` (shown as is) and `answer`; the reward is 1 when the
//! trimmed response is exactly the answer. It lives here, not in the trainer, because
//! rewards come from environments: the trainer only consumes them.

use cascade_verifiers::FieldError;

use crate::{ChatMessage, Environment, Reward, Sample};

/// The `addition` environment: rows with `prompt` (shown as is) and `answer`, reward
/// 1 when the response is exactly the answer. The toy task's stand-in for `math`,
/// whose answers here are plain integers.
pub struct AdditionEnv;

crate::inventory::submit! {
    crate::EnvPlugin {
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
        let answer = match sample.str_field("answer") {
            Ok(answer) => answer,
            Err(e) => return Reward::error(e.to_string()),
        };
        match sample.final_answer() {
            Ok(response) => Reward::pass_fail(response.trim() == answer.trim())
                .with("extracted", response.trim()),
            Err(e) => Reward::error(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(answer: &str, response: &str) -> Sample {
        Sample::new(
            serde_json::json!({"id": "1", "prompt": "3+4=", "answer": answer, "response": response}),
        )
    }

    #[test]
    fn rewards_exactly_the_sum() {
        assert_eq!(AdditionEnv.score(&sample("7", " 7\n")).score, 1.0);
        assert_eq!(AdditionEnv.score(&sample("7", "7.0")).score, 0.0);
        assert_eq!(
            AdditionEnv.score(&sample("7", "<think>8?</think>7")).score,
            1.0
        );
        let cut = AdditionEnv.score(&sample("7", "<think>7"));
        assert!(cut.error_message().unwrap().contains("truncated"));
        assert!(AdditionEnv
            .score(&Sample::new(serde_json::json!({"id": "1"})))
            .error_message()
            .is_some());
        let prompt = AdditionEnv.prompt(&sample("7", "")).unwrap();
        assert_eq!(prompt, vec![ChatMessage::user("3+4=")]);
    }
}
