//! The final `Answer: X` line (`lenient_answer_colon`).

use std::sync::OnceLock;

use regex::Regex;

use super::candidate::{by_label_or_text, single_letter, unwrap};
use super::{Choices, NoAnswer};

/// `Answer:`, any case, as a word (`Final Answer:` too), with markdown emphasis
/// between the word and the colon (`**Answer**:`).
fn label() -> &'static Regex {
    static LABEL: OnceLock<Regex> = OnceLock::new();
    LABEL.get_or_init(|| {
        Regex::new(r"(?i)(?-u:\b)answer(?-u:\b)[*_ \t]{0,4}:").expect("a valid pattern")
    })
}

/// The letter named by the last `Answer:` line. When nothing follows the colon on its
/// line (`**Answer:**` as a heading), the next non-empty line is the answer.
pub(super) fn final_answer_line(text: &str, choices: &Choices) -> Result<char, NoAnswer> {
    let Some(found) = label().find_iter(text).last() else {
        return Err(NoAnswer::NoAnswerLine);
    };
    let mut lines = text[found.end()..].split('\n');
    let first = lines.next().unwrap_or_default();
    let candidate = if has_content(first) {
        first
    } else {
        lines.find(|l| has_content(l)).unwrap_or_default()
    };
    single_letter(candidate, true, choices)
        .or_else(|| by_label_or_text(candidate, choices, false))
        .ok_or(NoAnswer::NotAnOption)
}

fn has_content(line: &str) -> bool {
    unwrap(line).chars().any(char::is_alphanumeric)
}
