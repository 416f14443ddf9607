//! A row's own answer patterns: NeMo Gym's `template_metadata.output_regex`, for rows
//! whose prompt asks for another format ("Option Selected: X").
//!
//! As in NeMo Gym 0.7.0 (`_parse_answer_with_custom_regex`): matching ignores case,
//! the last match counts, and its first group (or the whole match), trimmed and
//! uppercased, is the answer when it is one letter (any letter: Gym trusts the
//! pattern, so a letter no option has is a wrong answer, not no answer), else the
//! option whose text it equals. Patterns are tried in order; when none gives an
//! answer, the grading mode reads it. Patterns run on the text after the thinking,
//! like every rule here.
//! Patterns are Python-like (`fancy-regex`: look-around and back-references too); a
//! pattern that does not compile is not used, and the grading mode reads the answer
//! (Gym does the same for a pattern Python cannot compile).
//!
//! Bounded work: patterns read only the last [`PATTERN_WINDOW_BYTES`] of the answer,
//! a pattern without look-around or back-references runs in linear time (`regex`),
//! and one with them may backtrack at most [`BACKTRACK_LIMIT`] times per match
//! attempt; a pattern over that limit counts as not matching.

use std::borrow::Borrow;

use fancy_regex::{Regex, RegexBuilder};
use thiserror::Error;

use super::answer_colon::{normalize_extracted, upper_letter};
use super::boxed::option_with_text;
use super::Choices;

/// Longest pattern compiled.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// The compiled program's size limit (given to the `regex` crate).
const COMPILED_SIZE_LIMIT: usize = 1 << 20;
/// Backtracking steps one match attempt of a look-around pattern may take.
pub const BACKTRACK_LIMIT: usize = 10_000;
/// Patterns read the end of the answer only, where the final answer is.
pub const PATTERN_WINDOW_BYTES: usize = 16 * 1024;

/// Why a pattern is not used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PatternError {
    #[error("output_regex is over {MAX_PATTERN_BYTES} bytes")]
    TooLong,
    #[error("output_regex does not compile: {0}")]
    Invalid(String),
}

/// Compiles one `output_regex`, case-insensitive.
pub fn compile_output_regex(pattern: &str) -> Result<Regex, PatternError> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(PatternError::TooLong);
    }
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .delegate_size_limit(COMPILED_SIZE_LIMIT)
        .backtrack_limit(BACKTRACK_LIMIT)
        .build()
        .map_err(|e| {
            // The crate's message spans lines (pattern, caret, reason): keep the reason.
            let message = e.to_string();
            let reason = message.lines().last().unwrap_or_default();
            PatternError::Invalid(reason.trim_start_matches("error: ").to_owned())
        })
}

/// The answer of the first pattern that gives one.
pub(super) fn by_patterns<P: Borrow<Regex>>(
    text: &str,
    choices: &Choices,
    patterns: &[P],
) -> Option<char> {
    let mut start = text.len().saturating_sub(PATTERN_WINDOW_BYTES);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let window = &text[start..];
    patterns.iter().find_map(|pattern| {
        let mut last = None;
        for found in pattern.borrow().captures_iter(window) {
            // Over the backtracking limit: which match is last is unknown.
            last = Some(found.ok()?);
        }
        let last = last?;
        let captured = last.get(1).or_else(|| last.get(0))?.as_str();
        answer_in(captured, choices)
    })
}

/// One letter (uppercased), else the option whose text the capture equals.
fn answer_in(captured: &str, choices: &Choices) -> Option<char> {
    let captured = normalize_extracted(captured.trim()).to_uppercase();
    let mut chars = captured.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if let Some(letter) = upper_letter(c) {
            return Some(letter);
        }
    }
    option_with_text(&captured, choices)
}
