//! The `math` environment: a problem becomes a chat prompt asking for a `\boxed{}`
//! answer; a response is scored by `cascade_verifiers::math` against the row's `answer`.
//!
//! Rows carry the problem in `problem` (or `prompt`, or `question`) and the gold answer
//! in `answer` (or `expected_answer`). NeMo Gym's math_with_judge rows are read as
//! published: their prompt is `responses_create_params.input` (its own instruction and
//! system message, nothing appended); `question`/`expected_answer` are the problem and
//! the gold. verl's RL rows are read as published too ([`crate::verl`]): the prompt is
//! the `prompt` messages, `reward_model.ground_truth` the gold. A problem that already
//! asks for a `\boxed{}` answer gets no second instruction. Reward 1 when the
//! extracted answer equals the gold answer, else 0. math_with_judge's rows follow its
//! rule (Gym 0.4.0 and later): an answer whose last `\boxed{` does not close or holds
//! only blanks scores 0, whatever else it states.
//! `details`: `extracted` (string or null), `extracted_from`, `normal_form`,
//! `gold_normal_form`, `verdict` (`correct`, `wrong`, `no_answer`, `undecidable`) and
//! `reason`.

use cascade_verifiers::math::{Approx, MathOptions, MathVerifier};
use cascade_verifiers::{FieldError, Reward, Sample, Verifier};
use serde::Deserialize;
use serde_json::Value;

use crate::environment::{ChatMessage, Environment};
use crate::gym::gym_prompt;
use crate::registry::EnvPlugin;
use crate::verl::{verl_fields, verl_prompt};

/// The instruction appended to every problem unless configured otherwise.
pub const DEFAULT_INSTRUCTION: &str =
    "Please reason step by step, and put your final answer within \\boxed{}.";

/// Settings of the `math` environment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MathConfig {
    /// Text appended to the problem (after a blank line).
    pub instruction: String,
    /// An optional system message.
    pub system_prompt: Option<String>,
    /// Opt-in rounding for datasets whose golds are rounded: significant digits
    /// (`--config approx=3`) or a relative tolerance (`--config approx=1e-3`).
    /// Unset, answers must be exactly equal (`0.63` is not `5/8`).
    pub approx: Option<Approx>,
}

impl Default for MathConfig {
    fn default() -> Self {
        Self {
            instruction: DEFAULT_INSTRUCTION.to_owned(),
            system_prompt: None,
            approx: None,
        }
    }
}

/// The `math` environment.
#[derive(Debug, Clone, Default)]
pub struct MathEnv {
    config: MathConfig,
}

impl MathEnv {
    pub fn new(config: MathConfig) -> Self {
        Self { config }
    }
}

/// The problem statement of a row: `problem`, else `prompt`, else `question`.
fn problem_text(row: &Sample) -> Result<&str, FieldError> {
    for field in ["problem", "prompt", "question"] {
        if let Some(v) = row.get(field) {
            return v
                .as_str()
                .ok_or_else(|| FieldError::wrong_type(field, "a string", v));
        }
    }
    Err(FieldError::Missing("problem".to_owned()))
}

impl Environment for MathEnv {
    fn name(&self) -> &str {
        "math"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        let mut messages = Vec::with_capacity(2);
        // A row carries its own chat (Gym's or verl's) or a problem to render.
        let chat = match gym_prompt(row)? {
            Some(messages) => Some(messages),
            None => verl_prompt(row)?,
        };
        let has_system = chat.iter().flatten().any(|m| m.role == "system");
        if let Some(system) = self.config.system_prompt.as_ref().filter(|_| !has_system) {
            messages.push(ChatMessage::system(system.clone()));
        }
        if let Some(chat) = chat {
            messages.extend(chat);
            return Ok(messages);
        }
        let problem = problem_text(row)?;
        // A problem that already says how to answer (the published math sets do) would
        // otherwise carry two, possibly conflicting, instructions.
        let content = if self.config.instruction.is_empty() || problem.contains("\\boxed") {
            problem.to_owned()
        } else {
            format!("{problem}\n\n{}", self.config.instruction)
        };
        messages.push(ChatMessage::user(content));
        Ok(messages)
    }

    fn score(&self, sample: &Sample) -> Reward {
        let derived = verl_fields(sample, Some("answer"));
        let sample = derived.as_ref().unwrap_or(sample);
        if let Err(e) = sample.validate_common() {
            return Reward::error(e.to_string()).with("extracted", Value::Null);
        }
        let mut reward = MathVerifier::new(MathOptions {
            approx: self.config.approx,
        })
        .verify(sample);
        if reward.score > 0.0 && is_math_with_judge(sample) {
            let boxed = sample.final_answer().is_ok_and(last_box_filled);
            if !boxed {
                reward.score = 0.0;
                reward.set("verdict", "no_answer");
                reward.set("reason", NO_BOX);
            }
        }
        reward
    }
}

/// Why a math_with_judge row without a box scores 0.
const NO_BOX: &str = "math_with_judge grades only a \\boxed{} answer (its last \\boxed{} must close and hold something)";

/// NeMo Gym's math_with_judge rows: `expected_answer` beside `responses_create_params`.
fn is_math_with_judge(row: &Sample) -> bool {
    row.get(crate::gym::PARAMS).is_some() && row.get("expected_answer").is_some()
}

/// math_with_judge's rule (Gym 0.4.0 and later, `_extract_last_boxed_answer`): the last
/// `\boxed{` of the answer closes and holds more than blanks; otherwise reward 0
/// before any comparison.
fn last_box_filled(text: &str) -> bool {
    const OPEN: &str = "\\boxed{";
    let Some(at) = text.rfind(OPEN) else {
        return false;
    };
    let body = &text[at + OPEN.len()..];
    let mut depth = 1usize;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return !body[..i].trim().is_empty();
                }
            }
            _ => {}
        }
    }
    false
}

inventory::submit! {
    EnvPlugin {
        name: "math",
        origin: env!("CARGO_PKG_NAME"),
        description: "final answers (\\boxed{}, answer phrases, last line) checked for exact mathematical equivalence with `answer`",
        make: |config| Ok(Box::new(MathEnv::new(config.parse("math")?))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EnvConfig, Registry};
    use serde_json::json;

    fn sample(json: &str) -> Sample {
        Sample::from_json_line(json).unwrap()
    }

    #[test]
    fn prompt_asks_for_a_boxed_answer() {
        let env = MathEnv::default();
        let msgs = env
            .prompt(&sample(r#"{"problem": "What is 1+1?"}"#))
            .unwrap();
        assert_eq!(msgs.len(), 1);
        assert!(msgs[0].content.starts_with("What is 1+1?\n\n"));
        assert!(msgs[0].content.contains("\\boxed{}"));
        let err = env.prompt(&sample(r#"{"id": "a"}"#)).unwrap_err();
        assert_eq!(err, FieldError::Missing("problem".into()));
    }

    /// math_with_judge's published rows (Gym 0.7.0's example.jsonl layout).
    #[test]
    fn reads_gym_math_rows_as_published() {
        let env = MathEnv::default();
        let row = sample(concat!(
            r#"{"responses_create_params":{"input":[{"role":"system","content":"S"},"#,
            r#"{"role":"user","content":"Solve. Put the answer inside \\boxed{}.\n\nWhat is 2+2?"}]},"#,
            r#""question":"What is 2+2?","expected_answer":"4","response":"\\boxed{4}"}"#
        ));
        let msgs = env.prompt(&row).unwrap();
        assert_eq!(
            msgs,
            vec![
                ChatMessage::system("S"),
                ChatMessage::user("Solve. Put the answer inside \\boxed{}.\n\nWhat is 2+2?"),
            ]
        );
        assert_eq!(env.score(&row).score, 1.0);
        // Without responses_create_params: question/expected_answer, and a problem that
        // already asks for a box gets no second instruction.
        let bare = sample(
            r#"{"question":"Put it in \\boxed{}: 1+1?","expected_answer":2,"response":"\\boxed{2}"}"#,
        );
        assert_eq!(
            env.prompt(&bare).unwrap(),
            vec![ChatMessage::user("Put it in \\boxed{}: 1+1?")]
        );
        assert_eq!(env.score(&bare).score, 1.0);
    }

    /// Gym 0.7.0 side by side (scripts/compare/gym_all.sh): math_with_judge requires
    /// a box; cascade-layout rows still take an answer phrase or a last line.
    #[test]
    fn math_with_judge_rows_require_a_filled_box() {
        let env = MathEnv::default();
        let gym = |response: &str| {
            let row = json!({"responses_create_params": {"input": "1+1?"}, "question": "1+1?",
                             "expected_answer": "2", "response": response});
            env.score(&Sample::new(row))
        };
        for unboxed in [
            "The answer is 2.",
            "Answer: 2",
            "\\fbox{2}",
            "\\boxed{2} then \\boxed{ }",
            "\\boxed{2",
            "<think>\\boxed{2}</think>The answer is 2.",
        ] {
            let r = gym(unboxed);
            assert_eq!(
                (r.score, r.details["verdict"].as_str()),
                (0.0, Some("no_answer")),
                "{unboxed}"
            );
        }
        assert_eq!(gym("The answer is 2.").details["reason"], NO_BOX);
        assert_eq!(gym("So \\boxed{2}.").score, 1.0);
        assert_eq!(gym("$\\boxed{\\frac{4}{2}}$").score, 1.0);
        assert_eq!(gym("<think>maybe 3</think>\n\\boxed{2}").score, 1.0);
        // The same answer in cascade's own layout keeps its phrase rule.
        let bare =
            sample(r#"{"question":"1+1?","expected_answer":"2","response":"The answer is 2."}"#);
        assert_eq!(env.score(&bare).score, 1.0);
        assert!(!last_box_filled("\\boxed{}") && last_box_filled("\\boxed{{x}}"));
    }

    /// verl's RL layout (`examples/data_preprocess/gsm8k.py`): the chat `prompt` as is,
    /// `reward_model.ground_truth` as the gold, over gsm8k's worked `answer` column.
    #[test]
    fn reads_verl_rows_as_published() {
        let env = MathEnv::default();
        let row = |response: &str| {
            Sample::new(serde_json::json!({
                "data_source": "openai/gsm8k",
                "prompt": [{"role": "user", "content": "What is 2+2? Let's think step by step."}],
                "ability": "math",
                "reward_model": {"style": "rule", "ground_truth": "4"},
                "extra_info": {"split": "train", "index": 7},
                "answer": "2 + 2 = <<2+2=4>>4\n#### 4",
                "response": response,
            }))
        };
        assert_eq!(
            env.prompt(&row("")).unwrap(),
            vec![ChatMessage::user("What is 2+2? Let's think step by step.")]
        );
        let r = env.score(&row("so \\boxed{4}"));
        assert_eq!((r.score, &r.details["extracted"]), (1.0, &Value::from("4")));
        assert_eq!(env.score(&row("\\boxed{5}")).score, 0.0);
        let system = MathEnv::new(MathConfig {
            system_prompt: Some("S".into()),
            ..MathConfig::default()
        });
        assert_eq!(
            system.prompt(&row("")).unwrap()[0],
            ChatMessage::system("S")
        );
    }

    #[test]
    fn scores_with_details() {
        let env = MathEnv::default();
        let r = env.score(&sample(
            r#"{"id":"a","response":"so \\boxed{\\frac{2}{4}}","answer":"0.5"}"#,
        ));
        assert_eq!(r.score, 1.0);
        assert_eq!(r.details["extracted"], "\\frac{2}{4}");
        assert_eq!(r.details["normal_form"], "1/2");
        assert_eq!(r.details["verdict"], "correct");
        let r = env.score(&sample(r#"{"id":"b","response":"no idea","answer":"3"}"#));
        assert_eq!(r.score, 0.0);
        assert_eq!(r.details["extracted"], Value::Null);
        assert_eq!(r.details["verdict"], "no_answer");
        let r = env.score(&sample(r#"{"id":"c","response":"\\boxed{3}","answer":3}"#));
        assert_eq!(r.score, 1.0);
        let r = env.score(&sample(r#"{"id":"d","response":"\\boxed{3}"}"#));
        assert_eq!(r.error_message(), Some("missing field `answer`"));
    }

    #[test]
    fn registered_and_config_is_checked() {
        let registry = Registry::discover().unwrap();
        assert!(registry.contains("math"));
        let bad = EnvConfig::from_pairs(["colour=red"]).unwrap();
        assert!(registry.create("math", &bad).is_err());
        let good = EnvConfig::from_pairs(["instruction=Answer in a box."]).unwrap();
        let env = registry.create("math", &good).unwrap();
        let msgs = env.prompt(&sample(r#"{"prompt": "2+2?"}"#)).unwrap();
        assert_eq!(msgs[0].content, "2+2?\n\nAnswer in a box.");
        assert!(registry
            .create("math", &EnvConfig::from_pairs(["approx=loose"]).unwrap())
            .is_err());
    }

    #[test]
    fn approx_is_opt_in() {
        let row = r#"{"id":"a","response":"so \\boxed{3.14}","answer":"\\pi"}"#;
        assert_eq!(MathEnv::default().score(&sample(row)).score, 0.0);
        for setting in [
            "approx=3",
            "approx=sig:3",
            "approx=1e-3",
            "approx=rel:0.001",
        ] {
            let config: MathConfig = EnvConfig::from_pairs([setting])
                .unwrap()
                .parse("math")
                .unwrap();
            assert!(config.approx.is_some(), "{setting}");
            assert_eq!(
                MathEnv::new(config).score(&sample(row)).score,
                1.0,
                "{setting}"
            );
        }
    }
}
