//! The `mcqa` environment: multiple-choice questions (STEM, knowledge), NeMo Gym's
//! `mcqa` rows read unchanged.
//!
//! A row is Gym's layout (`responses_create_params.input` as the prompt, `options` as
//! `[{"A": "…"}, …]` or a map, `expected_answer` a letter, optional `grading_mode`) or
//! cascade's (`prompt` or `question`, the same `options`, `expected_answer` or
//! `answer`), whose prompt is the question, the lettered options and an instruction
//! that matches the grading mode.
//!
//! The grading mode is the config's `grading_mode` when set, else the row's, else
//! `strict_single_letter_boxed`: in Gym too the server's setting overrides the row's.
//! The answer is read by `cascade_verifiers::mcqa` (rules there). Reward 1 when the
//! letter read is the expected one, else 0.
//!
//! verl's RL rows are read too ([`crate::verl`]): the `prompt` messages as the prompt,
//! `reward_model.ground_truth` as the expected letter (or, as an object, the task
//! fields, `options` among them when the row has no `options` column).
//!
//! A row's `template_metadata.output_regex` (Gym's per-row answer patterns, one or a
//! list) is tried before the grading mode, as in Gym.
//!
//! `details`: `extracted` (the letter or null), `expected`, `mode`, `verdict`
//! (`correct`, `wrong`, `no_answer`), `reason` when there is no answer,
//! `extracted_by: "output_regex"` when a row pattern found the letter,
//! `output_regex_error` when a row pattern does not compile (the others and the mode
//! still apply), `capped` when only the end of a very long answer was read; `error`
//! (with nulls for what could not be read) for a malformed row.

mod patterns;
mod row;

use cascade_verifiers::mcqa::{
    extract_with_patterns, Choices, GradingMode, NoAnswer, RowRules, MAX_ANSWER_BYTES,
};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::Value;

use crate::environment::{ChatMessage, Environment};
use crate::gym::gym_prompt;
use crate::registry::EnvPlugin;
use crate::verl::{verl_fields, verl_prompt};

pub use patterns::PatternCache;
pub use row::{McqaRow, RowError};

/// Settings of the `mcqa` environment.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McqaConfig {
    /// Grade every row in this mode, whatever its own `grading_mode` says.
    pub grading_mode: Option<GradingMode>,
    /// A system message for cascade-layout rows (Gym rows carry their own prompt).
    pub system_prompt: Option<String>,
}

/// The `mcqa` environment.
#[derive(Debug, Clone, Default)]
pub struct McqaEnv {
    config: McqaConfig,
    patterns: PatternCache,
}

impl McqaEnv {
    pub fn new(config: McqaConfig) -> Self {
        Self {
            config,
            patterns: PatternCache::default(),
        }
    }

    /// The mode a row is graded in.
    fn mode(&self, row_mode: Option<GradingMode>) -> GradingMode {
        self.config.grading_mode.or(row_mode).unwrap_or_default()
    }

    /// The reward of a row that cannot be graded.
    fn malformed(&self, sample: &Sample, error: String) -> Reward {
        let mode = match row::grading_mode(sample) {
            Ok(row_mode) => Value::from(self.mode(row_mode).as_str()),
            Err(_) => self
                .config
                .grading_mode
                .map_or(Value::Null, |m| m.as_str().into()),
        };
        Reward::error(error)
            .with("extracted", Value::Null)
            .with("expected", Value::Null)
            .with("mode", mode)
    }
}

/// The instruction after a cascade-layout question, for each mode.
fn instruction(mode: GradingMode) -> &'static str {
    match mode {
        GradingMode::StrictSingleLetterBoxed => {
            "Think step by step, then give the letter of the correct option, and nothing else, inside \\boxed{} (for example \\boxed{A})."
        }
        GradingMode::LenientBoxed => {
            "Think step by step, then put your final answer inside \\boxed{}: the letter of the correct option (for example \\boxed{A}) or its text."
        }
        GradingMode::LenientAnswerColon | GradingMode::LenientAnswerColonMd => {
            "Think step by step, then end your response with a line of the form \"Answer: X\", where X is the letter of the correct option."
        }
    }
}

/// The question of a cascade-layout row: `prompt`, else `question`.
fn question(row: &Sample) -> Result<&str, FieldError> {
    match row.get("prompt") {
        Some(_) => row.str_field("prompt"),
        None => row.str_field("question"),
    }
}

/// Question, lettered options (`A: text`, one a line, as Gym's data writes them) and
/// the mode's instruction.
fn render(question: &str, choices: &Choices, mode: GradingMode) -> String {
    let mut text = format!("{}\n\n", question.trim_end());
    for (letter, option) in choices.iter() {
        text.push_str(&format!("{letter}: {option}\n"));
    }
    text.push('\n');
    text.push_str(instruction(mode));
    text
}

impl Environment for McqaEnv {
    fn name(&self) -> &str {
        "mcqa"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        if let Some(messages) = gym_prompt(row)? {
            return Ok(messages);
        }
        if let Some(messages) = verl_prompt(row)? {
            return Ok(messages);
        }
        let question = question(row)?;
        let choices = row::choices(row).map_err(RowError::into_field_error)?;
        let mode = self.mode(row::grading_mode(row).ok().flatten());
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.config.system_prompt {
            messages.push(ChatMessage::system(system.clone()));
        }
        messages.push(ChatMessage::user(render(question, &choices, mode)));
        Ok(messages)
    }

    fn score(&self, sample: &Sample) -> Reward {
        let derived = verl_fields(sample, Some("expected_answer"));
        let sample = derived.as_ref().unwrap_or(sample);
        if let Err(e) = sample.validate_common() {
            return self.malformed(sample, e.to_string());
        }
        let row = match McqaRow::try_from(sample) {
            Ok(row) => row,
            Err(e) => return self.malformed(sample, e.to_string()),
        };
        let response = sample.response().unwrap_or_default();
        let mode = self.mode(row.grading_mode);
        let mut patterns = Vec::with_capacity(row.output_regex.len());
        let mut pattern_error = None;
        for pattern in &row.output_regex {
            match self.patterns.get(pattern) {
                Ok(compiled) => patterns.push(compiled),
                Err(e) => pattern_error = pattern_error.or(Some(e.to_string())),
            }
        }
        let rules = RowRules {
            patterns: &patterns,
            answer_prefix: row.answer_prefix.as_deref(),
        };
        let found = extract_with_patterns(response, &row.choices, mode, &rules);
        let verdict = match found.answer {
            Ok(letter) if letter == row.expected => "correct",
            Ok(_) => "wrong",
            Err(_) => "no_answer",
        };
        let mut reward = Reward::pass_fail(verdict == "correct")
            .with("extracted", found.answer.as_ref().ok().map(char::to_string))
            .with("expected", row.expected.to_string())
            .with("mode", mode.as_str())
            .with("verdict", verdict);
        if let Err(reason) = &found.answer {
            reward.set("reason", reason.to_string());
            // Cut off while thinking: no final answer, which every env reports as an error.
            if let NoAnswer::Truncated(why) = reason {
                reward.set("error", why.to_string());
            }
        }
        if found.by_pattern {
            reward.set("extracted_by", "output_regex");
        }
        if let Some(error) = pattern_error {
            reward.set("output_regex_error", error);
        }
        if found.capped {
            let note =
                format!("the answer part is over {MAX_ANSWER_BYTES} bytes: only its end was read");
            reward.set("capped", note);
        }
        reward
    }
}

inventory::submit! {
    EnvPlugin {
        name: "mcqa",
        origin: env!("CARGO_PKG_NAME"),
        description: "multiple choice (NeMo Gym mcqa rows): the option letter in the final \\boxed{} or `Answer:` line vs `expected_answer` (config: grading_mode)",
        make: |config| Ok(Box::new(McqaEnv::new(config.parse("mcqa")?))),
    }
}

#[cfg(test)]
mod tests;
