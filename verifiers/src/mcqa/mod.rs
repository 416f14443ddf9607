//! Multiple-choice answers: which option letter a response picks, read as NeMo Gym
//! 0.7.0's `mcqa` server reads it (`resources_servers/mcqa/app.py` of the
//! `nemo-gym==0.7.0` wheel), so that Gym's rows get Gym's rewards.
//!
//! Four grading modes, with Gym's names ([`GradingMode`]):
//! - `strict_single_letter_boxed` (the default): the last `\boxed{` (braces counted;
//!   no answer when it does not close) holds, without `\text{}` wrappers, one
//!   uppercase letter and no other ASCII letter (`\boxed{B}`, `\boxed{(B)}`,
//!   `\boxed{\text{E}}`), or starts with a letter label (`\boxed{B) Gold}`,
//!   `\boxed{B: Gold}`, `\boxed{B. Gold}`).
//! - `lenient_boxed`: strict, else the last box contains exactly one option's text.
//! - `lenient_answer_colon`: the first `Answer:` and the rest of its line: one letter
//!   (either case) or one option's exact text.
//! - `lenient_answer_colon_md`: the last `Answer:` payload (markdown around it
//!   tolerated) or `answer_prefix` line that names one option; a letter list
//!   (`A or B`) names none.
//!
//! Where cascade reads differently from Gym, on purpose:
//! - Thinking is never graded: only the text after the last `</think>` is read, and a
//!   `<think>` left open means no answer (`crate::final_answer`, every env's rule).
//! - At most the last [`MAX_ANSWER_BYTES`] of that text are read (and the result says
//!   so), and row patterns read its last 16 KiB, so the work is bounded.
//! - A row may bring its own answer patterns (Gym's `template_metadata.output_regex`,
//!   see [`extract_with_patterns`]); the grading mode reads the answer when they give
//!   none.

mod answer_colon;
mod boxed;
mod template;

use std::fmt;

use std::borrow::Borrow;

use fancy_regex::Regex;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::final_answer::{final_answer, Truncation};

/// A compiled row pattern (see [`compile_output_regex`]).
pub use fancy_regex::Regex as OutputRegex;
pub use template::{
    compile_output_regex, PatternError, BACKTRACK_LIMIT, MAX_PATTERN_BYTES, PATTERN_WINDOW_BYTES,
};

/// The answer part of a response (after the thinking) is read up to this many bytes,
/// from its end, where the final answer is.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// How the answer is read, with NeMo Gym's names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GradingMode {
    /// One option letter inside the final `\boxed{}`.
    #[default]
    StrictSingleLetterBoxed,
    /// The letter or one option's text inside the final `\boxed{}`.
    LenientBoxed,
    /// The first `Answer: X` line.
    LenientAnswerColon,
    /// The last `Answer: X` line, markdown around it tolerated (or the row's
    /// `answer_prefix`).
    LenientAnswerColonMd,
}

impl GradingMode {
    pub const ALL: [GradingMode; 4] = [
        GradingMode::StrictSingleLetterBoxed,
        GradingMode::LenientBoxed,
        GradingMode::LenientAnswerColon,
        GradingMode::LenientAnswerColonMd,
    ];

    /// Gym's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            GradingMode::StrictSingleLetterBoxed => "strict_single_letter_boxed",
            GradingMode::LenientBoxed => "lenient_boxed",
            GradingMode::LenientAnswerColon => "lenient_answer_colon",
            GradingMode::LenientAnswerColonMd => "lenient_answer_colon_md",
        }
    }

    /// Reads a mode by its Gym name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

impl fmt::Display for GradingMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a set of options is unusable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChoiceError {
    #[error("no option is defined")]
    Empty,
    #[error("option letter {0:?} is not a letter A-Z")]
    NotALetter(char),
    #[error("option letter {0} appears twice")]
    Duplicate(char),
}

/// The options of one question: uppercase letters with their texts, in row order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choices {
    entries: Vec<(char, String)>,
}

impl Choices {
    /// Letters must be distinct uppercase ASCII letters; at least one option.
    pub fn new(entries: Vec<(char, String)>) -> Result<Self, ChoiceError> {
        if entries.is_empty() {
            return Err(ChoiceError::Empty);
        }
        let mut seen = [false; 26];
        for (letter, _) in &entries {
            if !letter.is_ascii_uppercase() {
                return Err(ChoiceError::NotALetter(*letter));
            }
            let slot = &mut seen[(*letter as u8 - b'A') as usize];
            if *slot {
                return Err(ChoiceError::Duplicate(*letter));
            }
            *slot = true;
        }
        Ok(Self { entries })
    }

    pub fn contains(&self, letter: char) -> bool {
        self.entries.iter().any(|(l, _)| *l == letter)
    }

    /// `(letter, text)` in row order.
    pub fn iter(&self) -> impl Iterator<Item = (char, &str)> {
        self.entries.iter().map(|(l, t)| (*l, t.as_str()))
    }

    /// The letters, e.g. `"A, B, C"`.
    pub fn letters(&self) -> String {
        let letters: Vec<String> = self.entries.iter().map(|(l, _)| l.to_string()).collect();
        letters.join(", ")
    }

    /// The text of one option.
    pub fn text(&self, letter: char) -> Option<&str> {
        self.iter().find(|(l, _)| *l == letter).map(|(_, t)| t)
    }
}

/// Why a response has no answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NoAnswer {
    #[error("empty response (after the thinking)")]
    Empty,
    #[error("{0}")]
    Truncated(Truncation),
    #[error("no \\boxed{{}} answer")]
    NoBox,
    #[error("the last \\boxed{{ does not close")]
    UnclosedBox,
    #[error("no `Answer:` line")]
    NoAnswerLine,
    #[error("the final answer names no option")]
    NotAnOption,
    #[error("the final answer names several options ({0})")]
    Ambiguous(String),
}

/// What was read from a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extraction {
    /// The chosen letter (an option's, except that a row pattern may capture any
    /// letter, as in Gym), or why there is none.
    pub answer: Result<char, NoAnswer>,
    /// The answer part was longer than [`MAX_ANSWER_BYTES`]: only its end was read.
    pub capped: bool,
    /// The row's own pattern found the letter (see [`extract_with_patterns`]).
    pub by_pattern: bool,
}

/// Reads the option a response picks (see the module docs for the rules).
pub fn extract(response: &str, choices: &Choices, mode: GradingMode) -> Extraction {
    extract_with_patterns::<Regex>(response, choices, mode, &RowRules::default())
}

/// What a row adds to its grading mode (Gym's `template_metadata`).
#[derive(Debug)]
pub struct RowRules<'a, P> {
    /// `output_regex`, compiled by [`compile_output_regex`]: tried first.
    pub patterns: &'a [P],
    /// `answer_prefix`: read by `lenient_answer_colon_md` beside `Answer:`.
    pub answer_prefix: Option<&'a str>,
}

impl<P> Default for RowRules<'_, P> {
    fn default() -> Self {
        Self {
            patterns: &[],
            answer_prefix: None,
        }
    }
}

/// [`extract`], trying the row's own answer patterns first.
pub fn extract_with_patterns<P: Borrow<Regex>>(
    response: &str,
    choices: &Choices,
    mode: GradingMode,
    row: &RowRules<'_, P>,
) -> Extraction {
    let (text, capped) = match final_text(response) {
        Ok(found) => found,
        Err(reason) => {
            return Extraction {
                answer: Err(reason),
                capped: false,
                by_pattern: false,
            }
        }
    };
    if let Some(letter) = template::by_patterns(text, choices, row.patterns) {
        return Extraction {
            answer: Ok(letter),
            capped,
            by_pattern: true,
        };
    }
    let answer = match mode {
        GradingMode::StrictSingleLetterBoxed => boxed::strict_letter(text, choices),
        GradingMode::LenientBoxed => boxed::lenient_letter(text, choices),
        GradingMode::LenientAnswerColon => answer_colon::first_answer_line(text, choices),
        GradingMode::LenientAnswerColonMd => {
            answer_colon::last_answer_payload(text, choices, row.answer_prefix)
        }
    };
    Extraction {
        answer,
        capped,
        by_pattern: false,
    }
}

/// The final answer (see [`crate::final_answer`]), its last [`MAX_ANSWER_BYTES`] at
/// most, and whether it was cut.
fn final_text(response: &str) -> Result<(&str, bool), NoAnswer> {
    let after = final_answer(response)
        .answer()
        .map_err(NoAnswer::Truncated)?;
    let after = after.trim();
    if after.is_empty() {
        return Err(NoAnswer::Empty);
    }
    if after.len() <= MAX_ANSWER_BYTES {
        return Ok((after, false));
    }
    let mut start = after.len() - MAX_ANSWER_BYTES;
    while !after.is_char_boundary(start) {
        start += 1;
    }
    Ok((&after[start..], true))
}

#[cfg(test)]
mod tests;
