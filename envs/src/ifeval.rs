//! The `ifeval` environment: instruction following, graded by IFEval's checks.
//!
//! A row carries `prompt`, `instruction_id_list` and `kwargs` (one object per id).
//! The reward is prompt-level strict accuracy (1 when every instruction is followed)
//! or, with `fractional = true`, the share of instructions followed, as open-instruct
//! uses for IF-RL; `loose = true` grades with the loose variants instead.
//! `details.strict` and `details.loose` always hold one boolean per instruction.
//! Only the final answer is graded (the text after the last `</think>`, as Gym grades
//! the final message); a response cut off while thinking is reward 0 with
//! `details.error`.

use cascade_datasets::ifeval::IfevalRow;
use cascade_verifiers::ifeval::{evaluate, parse_list};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;

use crate::config::ConfigError;
use crate::environment::{ChatMessage, Environment};
use crate::registry::EnvPlugin;
use crate::score_error::ScoreError;

/// Settings of the `ifeval` environment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IfevalConfig {
    /// Reward = share of instructions followed instead of all-or-nothing.
    pub fractional: bool,
    /// Reward from the loose verdicts instead of the strict ones.
    pub loose: bool,
}

/// Instruction following with IFEval's 25 checks.
pub struct IfevalEnv {
    config: IfevalConfig,
}

impl IfevalEnv {
    pub fn new(config: IfevalConfig) -> Self {
        Self { config }
    }

    fn reward(&self, verdicts: &[bool]) -> f64 {
        let followed = verdicts.iter().filter(|&&v| v).count();
        if self.config.fractional {
            if verdicts.is_empty() {
                1.0
            } else {
                followed as f64 / verdicts.len() as f64
            }
        } else if followed == verdicts.len() {
            1.0
        } else {
            0.0
        }
    }

    fn try_score(&self, sample: &Sample) -> Result<Reward, ScoreError> {
        sample.validate_common()?;
        let response = sample.final_answer()?;
        let row = IfevalRow::try_from(sample)?;
        let instructions = parse_list(&row.instruction_ids, &row.kwargs)?;
        let verdicts = evaluate(&instructions, response);
        let graded = if self.config.loose {
            &verdicts.loose
        } else {
            &verdicts.strict
        };
        Ok(Reward::new(self.reward(graded))
            .with("strict", verdicts.strict.clone())
            .with("loose", verdicts.loose.clone()))
    }
}

impl Environment for IfevalEnv {
    fn name(&self) -> &str {
        "ifeval"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        Ok(vec![ChatMessage::user(row.str_field("prompt")?)])
    }

    fn score(&self, sample: &Sample) -> Reward {
        self.try_score(sample).unwrap_or_else(Reward::from)
    }
}

fn make(config: &crate::EnvConfig) -> Result<Box<dyn Environment>, ConfigError> {
    Ok(Box::new(IfevalEnv::new(config.parse("ifeval")?)))
}

inventory::submit! {
    EnvPlugin {
        name: "ifeval",
        origin: env!("CARGO_PKG_NAME"),
        description: "instruction following: IFEval's 25 checks, strict reward (config: fractional, loose)",
        make,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EnvConfig;
    use serde_json::json;
    use serde_json::Value;

    fn score(config: IfevalConfig, line: Value) -> Reward {
        IfevalEnv::new(config).score(&Sample::new(line))
    }

    fn row(response: &str) -> Value {
        json!({
            "id": "r1",
            "prompt": "Write a haiku.",
            "response": response,
            "instruction_id_list": ["punctuation:no_comma", "change_case:english_lowercase"],
            "kwargs": [{}, {"unused_in_hf_rows": null}],
        })
    }

    #[test]
    fn strict_reward_and_per_instruction_details() {
        let r = score(
            IfevalConfig::default(),
            row("the sky is blue and the grass is green today"),
        );
        assert_eq!(r.score, 1.0);
        assert_eq!(r.details["strict"], json!([true, true]));
        let r = score(
            IfevalConfig::default(),
            row("The sky, blue and the grass is green today"),
        );
        assert_eq!(r.score, 0.0);
        assert_eq!(r.details["strict"], json!([false, false]));
    }

    #[test]
    fn only_the_final_answer_is_graded() {
        let ok = "the sky is blue and the grass is green today";
        let closed = format!("<think>Hmm, Commas? Let me think, OK.</think>\n{ok}");
        assert_eq!(score(IfevalConfig::default(), row(&closed)).score, 1.0);
        let inside = format!("<think>{ok}</think>The Sky, Blue.");
        assert_eq!(score(IfevalConfig::default(), row(&inside)).score, 0.0);
        let cut = score(IfevalConfig::default(), row(&format!("<think>{ok}")));
        assert_eq!(cut.score, 0.0);
        assert!(cut.error_message().unwrap().contains("truncated"));
    }

    #[test]
    fn fractional_and_loose_rewards() {
        let response = "Sure, here it is:\nthe sky is blue and the grass is green today";
        let frac = IfevalConfig {
            fractional: true,
            loose: false,
        };
        assert_eq!(score(frac, row(response)).score, 0.0);
        let r = score(
            IfevalConfig {
                fractional: true,
                loose: true,
            },
            row(response),
        );
        assert_eq!(r.score, 1.0);
        assert_eq!(r.details["loose"], json!([true, true]));
        let half = score(frac, row("the sky, blue"));
        assert_eq!(half.score, 0.5);
    }

    #[test]
    fn unknown_ids_and_bad_kwargs_are_named() {
        let mut line = row("x");
        line["instruction_id_list"] = json!(["punctuation:no_semicolon"]);
        line["kwargs"] = json!([{}]);
        let r = score(IfevalConfig::default(), line);
        assert_eq!(r.score, 0.0);
        assert_eq!(
            r.error_message(),
            Some("unknown instruction id `punctuation:no_semicolon`")
        );

        let mut line = row("x");
        line["instruction_id_list"] = json!(["length_constraints:number_words"]);
        line["kwargs"] = json!([{"num_words": 10, "relation": "at most"}]);
        let r = score(IfevalConfig::default(), line);
        assert_eq!(
            r.error_message(),
            Some("instruction `length_constraints:number_words`: kwarg `relation` must be \"less than\" or \"at least\", found \"at most\"")
        );
    }

    #[test]
    fn config_rejects_unknown_keys() {
        let config = EnvConfig::from_pairs(["fractional=true"]).unwrap();
        assert!(make(&config).is_ok());
        let config = EnvConfig::from_pairs(["fraction=true"]).unwrap();
        let err = make(&config).err().unwrap();
        assert!(err.to_string().contains("fraction"), "{err}");
    }

    #[test]
    fn bundled_sample_matches_its_expected_scores() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../datasets/ifeval");
        let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
        let (samples, expected) = (read("sample.jsonl"), read("sample.expected.jsonl"));
        let env = IfevalEnv::new(IfevalConfig::default());
        let mut n = 0;
        for (line, want) in samples.lines().zip(expected.lines()) {
            let sample = Sample::from_json_line(line).unwrap();
            let got = env.score(&sample);
            let want: Value = serde_json::from_str(want).unwrap();
            assert_eq!(json!(got.score), want["reward"], "{line}");
            assert_eq!(Value::Object(got.details), want["details"], "{line}");
            n += 1;
        }
        assert_eq!(n, expected.lines().count());
    }
}
