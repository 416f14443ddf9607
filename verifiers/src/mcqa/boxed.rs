//! The last `\boxed{…}`: the strict and lenient boxed modes, as NeMo Gym 0.7.0 reads
//! them (`_extract_boxed_inner`, `_parse_answer_letter_strict_boxed`,
//! `_match_option_text` in `resources_servers/mcqa/app.py`).

use super::{Choices, NoAnswer};

const MARKER: &str = "\\boxed{";

/// The content of the last `\boxed{`, braces counted. Only the last one is read: when
/// it does not close there is no answer, whatever an earlier box said.
pub(super) fn last_box_inner(text: &str) -> Result<&str, NoAnswer> {
    let start = text.rfind(MARKER).ok_or(NoAnswer::NoBox)? + MARKER.len();
    let mut depth = 1usize;
    for (offset, byte) in text[start..].bytes().enumerate() {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(&text[start..start + offset]);
                }
            }
            _ => {}
        }
    }
    Err(NoAnswer::UnclosedBox)
}

/// Gym's `_strip_latex_wrappers`: while the whole string is one `\text{…}`, its
/// content without the blanks at either end.
pub(super) fn strip_text_wrappers(mut s: &str) -> &str {
    while let Some(inner) = s
        .strip_prefix("\\text{")
        .and_then(|rest| rest.strip_suffix('}'))
    {
        s = inner.trim();
    }
    s
}

/// Strict mode: the last box holds one uppercase letter with no other ASCII letter
/// around it (`B`, `(B)`, `[C].`, `\text{E}`, `1B`), or starts with a letter label
/// (`B) Gold`, `B: Gold`, `B. Gold`, `B - Gold`); the letter must be an option.
pub(super) fn strict_letter(text: &str, choices: &Choices) -> Result<char, NoAnswer> {
    let inner = strip_text_wrappers(last_box_inner(text)?.trim());
    let letter = lone_letter(inner).or_else(|| letter_label(inner));
    letter
        .filter(|l| choices.contains(*l))
        .ok_or(NoAnswer::NotAnOption)
}

/// `^[^A-Za-z]*([A-Z])[^A-Za-z]*$`: exactly one ASCII letter, uppercase.
fn lone_letter(s: &str) -> Option<char> {
    let mut letters = s.chars().filter(char::is_ascii_alphabetic);
    match (letters.next(), letters.next()) {
        (Some(l), None) if l.is_ascii_uppercase() => Some(l),
        _ => None,
    }
}

/// `^\s*([A-Z])\s*[:).\-]`: an uppercase letter, then (after blanks) a label mark.
fn letter_label(s: &str) -> Option<char> {
    let mut rest = s.trim_start().chars();
    let letter = rest.next().filter(char::is_ascii_uppercase)?;
    let mark = rest.as_str().trim_start().chars().next()?;
    matches!(mark, ':' | ')' | '.' | '-').then_some(letter)
}

/// Lenient mode: strict, else the last box's content (as written, and without its
/// `\text{}` wrappers) contains exactly one option's text, compared lowercased with
/// blanks collapsed.
pub(super) fn lenient_letter(text: &str, choices: &Choices) -> Result<char, NoAnswer> {
    let strict = strict_letter(text, choices);
    if strict.is_ok() {
        return strict;
    }
    let inner = last_box_inner(text)?.trim();
    let candidates = [normalize(inner), normalize(strip_text_wrappers(inner))];
    let matched: Vec<char> = choices
        .iter()
        .map(|(letter, option)| (letter, normalize(option)))
        .filter(|(_, option)| !option.is_empty())
        .filter(|(_, option)| candidates.iter().any(|c| c.contains(option.as_str())))
        .map(|(letter, _)| letter)
        .collect();
    match matched.as_slice() {
        [letter] => Ok(*letter),
        [] => Err(NoAnswer::NotAnOption),
        many => Err(NoAnswer::Ambiguous(letter_list(many))),
    }
}

/// The option whose text equals `candidate` (both normalised as Gym compares them).
pub(super) fn option_with_text(candidate: &str, choices: &Choices) -> Option<char> {
    let wanted = normalize(candidate);
    choices
        .iter()
        .find(|(_, option)| normalize(option) == wanted)
        .map(|(letter, _)| letter)
}

/// Gym's `_normalize_for_match`: lowercase, blanks collapsed to one space.
pub(super) fn normalize(s: &str) -> String {
    let lower = s.to_lowercase();
    lower.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn letter_list(letters: &[char]) -> String {
    let names: Vec<String> = letters.iter().map(char::to_string).collect();
    names.join(", ")
}
