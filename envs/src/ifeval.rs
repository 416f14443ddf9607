//! The `ifeval` environment: instruction following, graded by IFEval's 25 checks,
//! the 29 that NeMo Gym's `instruction_following` registry adds, and IFBench's ids
//! (known, not yet checked).
//!
//! Rows come in three layouts, told apart by their fields and read the same way:
//! - IFEval's: `prompt`, `instruction_id_list`, `kwargs` (one object per id);
//! - NeMo Gym's `instruction_following` rows: the same fields under
//!   `verifier_metadata` (current layout) or at the top level beside
//!   `responses_create_params` (older blends), with an optional `grading_mode`;
//!   a field under `verifier_metadata` wins, as in Gym;
//! - NeMo Gym's `ifbench` rows: top-level fields, IFBench ids, `grading_mode`.
//!
//! verl's RL rows are read too ([`crate::verl`]): the `prompt` messages as the prompt,
//! and an object `reward_model.ground_truth` as the task fields
//! (`{"instruction_id_list": […], "kwargs": […]}`).
//!
//! The reward is `grading_mode`'s: `binary` (1 when every instruction is followed,
//! strict) or `fraction` (the share followed; 0 for an empty list, as Gym). The
//! config's `fractional = true` forces `fraction`; otherwise the row's mode is
//! used, else Gym's default for the layout (`fraction` for IFBench rows, `binary`
//! otherwise). `loose = true` grades with the loose verdicts instead.
//!
//! An unknown id or a bad argument makes that instruction false and the row goes
//! on, as in Gym; `details.instruction_errors` then names the reason per
//! instruction (null where none). Blank answers: IFEval's rule (a blank response
//! follows nothing) holds for IFEval and IFBench rows; Gym's `instruction_following`
//! server runs each check on the blank text as is (so an empty answer has "no
//! comma"), and its rows are graded that way. `details.strict` and
//! `details.loose` always hold one boolean per instruction.
//!
//! Only the final answer is graded (the text after the last `</think>`, as Gym grades
//! the final message); a response cut off while thinking is reward 0 with
//! `details.error`.

use cascade_verifiers::ifeval::{grade, ifbench, parse_each, Blank, IfevalError};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::Value;

use crate::config::ConfigError;
use crate::environment::{ChatMessage, Environment};
use crate::registry::EnvPlugin;
use crate::score_error::ScoreError;

/// Settings of the `ifeval` environment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IfevalConfig {
    /// Reward = share of instructions followed, whatever the row's `grading_mode`.
    pub fractional: bool,
    /// Reward from the loose verdicts instead of the strict ones.
    pub loose: bool,
}

/// NeMo Gym's `grading_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GradingMode {
    Binary,
    Fraction,
}

/// Which grader's rules a row follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Ifeval,
    GymInstructionFollowing,
    GymIfbench,
}

/// A row's instruction fields, wherever they were found.
struct IfRow<'a> {
    ids: &'a [Value],
    kwargs: Vec<Value>,
    grading_mode: Option<GradingMode>,
    layout: Layout,
}

/// A task field: under `verifier_metadata` first, then at the top level.
fn task_field<'a>(sample: &'a Sample, name: &str) -> Option<&'a Value> {
    sample
        .get("verifier_metadata")
        .and_then(|m| m.get(name))
        .or_else(|| sample.get(name))
}

fn field_name(sample: &Sample, name: &str) -> String {
    match sample.get("verifier_metadata").and_then(|m| m.get(name)) {
        Some(_) => format!("verifier_metadata.{name}"),
        None => name.to_owned(),
    }
}

impl<'a> IfRow<'a> {
    fn read(sample: &'a Sample) -> Result<Self, FieldError> {
        let ids_name = field_name(sample, "instruction_id_list");
        let ids = task_field(sample, "instruction_id_list")
            .ok_or_else(|| FieldError::Missing(ids_name.clone()))?;
        let ids = ids
            .as_array()
            .ok_or_else(|| FieldError::wrong_type(ids_name, "an array", ids))?;
        let kwargs = match task_field(sample, "kwargs") {
            None | Some(Value::Null) => vec![Value::Null; ids.len()],
            Some(Value::Array(list)) => list.clone(),
            Some(other) => {
                return Err(FieldError::wrong_type(
                    field_name(sample, "kwargs"),
                    "an array",
                    other,
                ))
            }
        };
        // `verifier_metadata` is instruction_following's layout whatever the ids (an
        // IFBench id there is one its registry lacks); top-level fields beside
        // `responses_create_params` are ifbench's when an IFBench id is among them.
        let metadata = sample.get("verifier_metadata").is_some();
        let gym = metadata || sample.get("responses_create_params").is_some();
        let has_ifbench = ids
            .iter()
            .any(|id| id.as_str().is_some_and(ifbench::is_ifbench));
        let layout = match (gym, has_ifbench && !metadata) {
            (false, _) => Layout::Ifeval,
            (true, false) => Layout::GymInstructionFollowing,
            (true, true) => Layout::GymIfbench,
        };
        Ok(Self {
            ids,
            kwargs,
            grading_mode: grading_mode(sample)?,
            layout,
        })
    }
}

/// The row's `grading_mode`, if set (Gym's two names).
fn grading_mode(sample: &Sample) -> Result<Option<GradingMode>, FieldError> {
    match task_field(sample, "grading_mode") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s == "binary" => Ok(Some(GradingMode::Binary)),
        Some(Value::String(s)) if s == "fraction" => Ok(Some(GradingMode::Fraction)),
        Some(other) => Err(FieldError::Invalid {
            field: field_name(sample, "grading_mode"),
            problem: format!("must be \"binary\" or \"fraction\", found {other}"),
        }),
    }
}

/// Instruction following with IFEval's and NeMo Gym's checks.
pub struct IfevalEnv {
    config: IfevalConfig,
}

impl IfevalEnv {
    pub fn new(config: IfevalConfig) -> Self {
        Self { config }
    }

    fn mode(&self, row: &IfRow) -> GradingMode {
        if self.config.fractional {
            return GradingMode::Fraction;
        }
        row.grading_mode.unwrap_or(match row.layout {
            Layout::GymIfbench => GradingMode::Fraction,
            _ => GradingMode::Binary,
        })
    }

    fn try_score(&self, sample: &Sample) -> Result<Reward, ScoreError> {
        sample.validate_common()?;
        let response = sample.final_answer()?;
        let row = IfRow::read(sample)?;
        let mut parsed = parse_each(row.ids, &row.kwargs)?;
        if row.layout == Layout::GymInstructionFollowing {
            // Gym's instruction_following server looks ids up in its own registry
            // (IFEval's and IF-RL's): an IFBench id there is unknown, so not followed.
            for (slot, id) in parsed.iter_mut().zip(row.ids) {
                if let Some(id) = id.as_str().filter(|id| ifbench::is_ifbench(id)) {
                    *slot = Err(IfevalError::UnknownId(id.to_owned()));
                }
            }
        }
        let blank = match row.layout {
            Layout::GymInstructionFollowing => Blank::Checked,
            _ => Blank::Fails,
        };
        let verdicts = grade(&parsed, response, blank);
        let graded = if self.config.loose {
            &verdicts.loose
        } else {
            &verdicts.strict
        };
        let mut reward = Reward::new(reward(self.mode(&row), graded))
            .with("strict", verdicts.strict.clone())
            .with("loose", verdicts.loose.clone());
        if parsed.iter().any(Result::is_err) {
            let errors: Vec<Value> = parsed
                .iter()
                .map(|p| {
                    p.as_ref()
                        .err()
                        .map_or(Value::Null, |e| Value::from(e.to_string()))
                })
                .collect();
            reward = reward.with("instruction_errors", errors);
        }
        Ok(reward)
    }
}

/// Gym's reward: all followed (binary), or the share followed (fraction; 0 for
/// an empty list).
fn reward(mode: GradingMode, verdicts: &[bool]) -> f64 {
    let followed = verdicts.iter().filter(|&&v| v).count();
    match mode {
        GradingMode::Fraction if verdicts.is_empty() => 0.0,
        GradingMode::Fraction => followed as f64 / verdicts.len() as f64,
        GradingMode::Binary if followed == verdicts.len() => 1.0,
        GradingMode::Binary => 0.0,
    }
}

impl Environment for IfevalEnv {
    fn name(&self) -> &str {
        "ifeval"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        if let Some(messages) = crate::verl::verl_prompt(row)? {
            return Ok(messages);
        }
        let prompt =
            task_field(row, "prompt").ok_or_else(|| FieldError::Missing("prompt".into()))?;
        let prompt = prompt
            .as_str()
            .ok_or_else(|| FieldError::wrong_type(field_name(row, "prompt"), "a string", prompt))?;
        Ok(vec![ChatMessage::user(prompt)])
    }

    fn score(&self, sample: &Sample) -> Reward {
        let derived = crate::verl::verl_fields(sample, None);
        let sample = derived.as_ref().unwrap_or(sample);
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
        description: "instruction following: IFEval's 25 checks and NeMo Gym's 29 more, reward by grading_mode (config: fractional, loose)",
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

    /// verl's RL layout: the chat `prompt`, the task fields in an object ground truth.
    #[test]
    fn verl_rows_take_their_fields_from_the_ground_truth() {
        let line = json!({
            "data_source": "google/IFEval",
            "prompt": [{"role": "user", "content": "Write a haiku."}],
            "reward_model": {"style": "rule", "ground_truth": {
                "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}},
            "extra_info": {"index": 3},
            "response": "no commas here",
        });
        let env = IfevalEnv::new(IfevalConfig::default());
        assert_eq!(
            env.prompt(&Sample::new(line.clone())).unwrap(),
            [ChatMessage::user("Write a haiku.")]
        );
        assert_eq!(score(IfevalConfig::default(), line.clone()).score, 1.0);
        let mut comma = line;
        comma["response"] = json!("one, two");
        assert_eq!(score(IfevalConfig::default(), comma).score, 0.0);
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
    fn unknown_ids_and_bad_kwargs_fail_only_their_instruction() {
        let mut line = row("the sky is blue");
        line["instruction_id_list"] = json!([
            "punctuation:no_semicolon",
            "punctuation:no_comma",
            "length_constraints:number_words",
            "words:start_verb"
        ]);
        line["kwargs"] = json!([{}, {}, {"num_words": 10, "relation": "at most"}, {}]);
        let r = score(IfevalConfig::default(), line.clone());
        assert_eq!(r.score, 0.0);
        assert_eq!(r.error_message(), None);
        assert_eq!(r.details["strict"], json!([false, true, false, false]));
        assert_eq!(
            r.details["instruction_errors"],
            json!([
                "unknown instruction id `punctuation:no_semicolon`",
                null,
                "instruction `length_constraints:number_words`: kwarg `relation` must be \"less than\" or \"at least\", found \"at most\"",
                "instruction `words:start_verb` (IFBench) is not supported: it needs NLTK's averaged-perceptron part-of-speech tagger, a statistical model"
            ])
        );
        line["grading_mode"] = json!("fraction");
        assert_eq!(score(IfevalConfig::default(), line).score, 0.25);
        // Mismatched lists are still a row error.
        let mut line = row("x");
        line["kwargs"] = json!([{}]);
        let r = score(IfevalConfig::default(), line);
        assert_eq!(
            r.error_message(),
            Some("2 instruction ids but 1 kwargs entries")
        );
    }

    fn gym_row(response: &str, mode: Option<&str>) -> Value {
        let mut vm = json!({
            "prompt": "Write.",
            "instruction_id_list": ["punctuation:no_comma", "paragraphs:paragraphs2"],
            "kwargs": [null, {}],
        });
        if let Some(mode) = mode {
            vm["grading_mode"] = json!(mode);
        }
        json!({
            "id": "7",
            "response": response,
            "responses_create_params": {"input": [{"role": "user", "content": "Write."}]},
            "verifier_metadata": vm,
        })
    }

    #[test]
    fn gym_rows_verifier_metadata_and_grading_mode() {
        let env = IfevalConfig::default();
        let r = score(env, gym_row("one, two", None));
        assert_eq!(r.score, 0.0);
        assert_eq!(r.details["strict"], json!([false, false]));
        assert_eq!(
            score(env, gym_row("one, two\n\nthree", Some("fraction"))).score,
            0.5
        );
        assert_eq!(
            score(env, gym_row("one two\n\nthree", Some("binary"))).score,
            1.0
        );
        let r = score(env, gym_row("x", Some("partial")));
        assert_eq!(
            r.error_message(),
            Some("field `verifier_metadata.grading_mode`: must be \"binary\" or \"fraction\", found \"partial\"")
        );
        // A top-level field is used when verifier_metadata lacks it (older blends).
        let mut legacy = gym_row("a\n\nb", None);
        let vm = legacy["verifier_metadata"].take();
        for (k, v) in vm.as_object().unwrap() {
            legacy[k] = v.clone();
        }
        legacy["verifier_metadata"] = json!({"grading_mode": "fraction"});
        assert_eq!(score(env, legacy.clone()).score, 1.0);
        let prompt = IfevalEnv::new(env)
            .prompt(&Sample::new(gym_row("", None)))
            .unwrap();
        assert_eq!(prompt[0].content, "Write.");
    }

    #[test]
    fn blank_answers_follow_gyms_rule_on_gym_rows_only() {
        let mut line = row("");
        line["instruction_id_list"] = json!(["punctuation:no_comma"]);
        line["kwargs"] = json!([{}]);
        // IFEval's rule: a blank response follows nothing.
        assert_eq!(score(IfevalConfig::default(), line.clone()).score, 0.0);
        // Gym's instruction_following server checks the empty text: no comma.
        line["responses_create_params"] = json!({"input": []});
        assert_eq!(score(IfevalConfig::default(), line.clone()).score, 1.0);
        // Gym's ifbench server fails blank answers, and defaults to fraction.
        line["instruction_id_list"] = json!(["punctuation:no_comma", "format:emoji"]);
        line["kwargs"] = json!([{}, {}]);
        let r = score(IfevalConfig::default(), line.clone());
        assert_eq!(
            (r.score, r.details["strict"].clone()),
            (0.0, json!([false, false]))
        );
        line["response"] = json!("no commas");
        assert_eq!(score(IfevalConfig::default(), line).score, 0.5);
    }

    /// Gym 0.7.0 side by side (scripts/compare/gym_all.sh): an IF-RL row in
    /// `verifier_metadata` with an IFBench id is graded by instruction_following's
    /// rules (binary by default, blank text checked), the IFBench id not followed.
    #[test]
    fn an_ifbench_id_in_verifier_metadata_is_unknown_to_instruction_following() {
        let line = json!({
            "id": 1,
            "response": "no commas here",
            "responses_create_params": {"input": []},
            "verifier_metadata": {
                "prompt": "p",
                "instruction_id_list": ["punctuation:no_comma", "count:word_count_range"],
                "kwargs": [{}, {"min_words": 1, "max_words": 5}]
            }
        });
        let r = score(IfevalConfig::default(), line.clone());
        assert_eq!(
            (r.score, r.details["strict"].clone()),
            (0.0, json!([true, false]))
        );
        assert_eq!(
            r.details["instruction_errors"][1],
            "unknown instruction id `count:word_count_range`"
        );
        let mut fraction = line.clone();
        fraction["verifier_metadata"]["grading_mode"] = json!("fraction");
        assert_eq!(score(IfevalConfig::default(), fraction).score, 0.5);
        // A blank answer is checked as text, as instruction_following does.
        let mut blank = line;
        blank["response"] = json!("");
        blank["verifier_metadata"]["grading_mode"] = json!("fraction");
        assert_eq!(score(IfevalConfig::default(), blank).score, 0.5);
    }

    #[test]
    fn fraction_of_an_empty_list_is_zero_as_in_gym() {
        let mut line = row("x");
        line["instruction_id_list"] = json!([]);
        line["kwargs"] = json!([]);
        assert_eq!(score(IfevalConfig::default(), line.clone()).score, 1.0);
        let frac = IfevalConfig {
            fractional: true,
            loose: false,
        };
        assert_eq!(score(frac, line).score, 0.0);
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
