//! The `Answer:` modes, as NeMo Gym 0.7.0 reads them (`resources_servers/mcqa/app.py`):
//! `lenient_answer_colon` takes the first `Answer:` and the rest of its line;
//! `lenient_answer_colon_md` takes the last markdown-tolerant `Answer:` payload (or
//! the row's `answer_prefix`) that names one option.

use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

use super::boxed::{option_with_text, strict_letter, strip_text_wrappers};
use super::{Choices, NoAnswer, MAX_PATTERN_BYTES};

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid pattern"))
}

/// `ANSWER_COLON_PATTERN`: the first `answer:` (any case, not a whole word), the rest
/// of the line after any blanks (line breaks included).
fn answer_colon() -> &'static Regex {
    static CELL: OnceLock<Regex> = OnceLock::new();
    regex(&CELL, r"(?i)answer\s*:\s*(.+)")
}

/// `ANSWER_COLON_PAYLOAD_PATTERN`: `Answer:` with up to two emphasis marks around the
/// word and after the colon.
fn answer_payload() -> &'static Regex {
    static CELL: OnceLock<Regex> = OnceLock::new();
    regex(&CELL, r"(?i)[*_]{0,2}Answer[*_]{0,2}\s*:[*_\s]{0,2}(.+)")
}

/// `lenient_answer_colon`: the first `Answer:` line's text (without `\text{}`) is one
/// letter of an option (either case), or equals one option's text.
pub(super) fn first_answer_line(text: &str, choices: &Choices) -> Result<char, NoAnswer> {
    let captures = answer_colon()
        .captures(text)
        .ok_or(NoAnswer::NoAnswerLine)?;
    let candidate = strip_text_wrappers(&captures[1]).trim();
    let mut chars = candidate.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if let Some(letter) = upper_letter(c).filter(|l| choices.contains(*l)) {
            return Ok(letter);
        }
    }
    option_with_text(candidate, choices).ok_or(NoAnswer::NotAnOption)
}

/// `lenient_answer_colon_md`: the payloads after `Answer:` (and after the row's
/// `answer_prefix`, to the end of its line), read from the last; the first that names
/// one option counts. With an `answer_prefix` and no such payload, strict boxed.
pub(super) fn last_answer_payload(
    text: &str,
    choices: &Choices,
    answer_prefix: Option<&str>,
) -> Result<char, NoAnswer> {
    let normalized: String = text.nfkc().collect();
    let payloads = payloads(&normalized, answer_prefix);
    let found = payloads
        .iter()
        .rev()
        .find_map(|payload| choice_letter(payload, choices));
    match (found, answer_prefix) {
        (Some(letter), _) => Ok(letter),
        // Gym's fallback reads the response as written, not its NFKC form.
        (None, Some(_)) => strict_letter(text, choices),
        (None, None) if payloads.is_empty() => Err(NoAnswer::NoAnswerLine),
        (None, None) => Err(NoAnswer::NotAnOption),
    }
}

/// Every payload in text order (`_answer_payloads`).
fn payloads<'t>(text: &'t str, answer_prefix: Option<&str>) -> Vec<&'t str> {
    let mut found: Vec<(usize, &str)> = answer_payload()
        .captures_iter(text)
        .map(|c| {
            (
                c.get(0).map_or(0, |m| m.start()),
                c.get(1).map_or("", |m| m.as_str()),
            )
        })
        .collect();
    // A prefix over the pattern cap is not read (bounded work; no real prefix is long).
    let usable = |p: &&str| !p.is_empty() && p.len() <= MAX_PATTERN_BYTES;
    if let Some(prefix) = answer_prefix.filter(usable) {
        let prefix: String = prefix.nfkc().collect();
        let pattern = format!(r"(?i){}\s*", regex::escape(&prefix));
        if let Ok(pattern) = Regex::new(&pattern) {
            for m in pattern.find_iter(text) {
                let line_end = text[m.end()..]
                    .find('\n')
                    .map_or(text.len(), |i| m.end() + i);
                found.push((m.start(), &text[m.end()..line_end]));
            }
        }
    }
    // Stable, as Python's sort: at one offset the `Answer:` payload comes first.
    found.sort_by_key(|(start, _)| *start);
    found.into_iter().map(|(_, payload)| payload).collect()
}

/// `_extract_choice_letter`: a payload names one option when, trimmed of blanks,
/// emphasis and end punctuation, it is one letter, starts with a letter standing
/// alone (`B because…`, `b) text`), or else holds a standalone capital (the last);
/// two different option letters listed (`A or B`, `A, C`) name none.
fn choice_letter(payload: &str, choices: &Choices) -> Option<char> {
    let normalized = normalize_extracted(payload);
    let candidate = normalized
        .trim()
        .trim_matches(|c: char| "*_` \t\n\r.,;:".contains(c));
    if lists_several(candidate, choices) {
        return None;
    }
    let mut chars = candidate.chars();
    let letter = match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => leading_letter(candidate).or_else(|| last_standalone_capital(candidate)),
    }?;
    upper_letter(letter).filter(|l| choices.contains(*l))
}

/// `_normalize_extracted_answer`: NFKC, option letters written in Arabic, Bengali or
/// full-width forms read as A-D, blanks trimmed.
pub(super) fn normalize_extracted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfkc() {
        match c {
            'أ' | 'অ' | 'Ａ' => out.push_str(" A"),
            'ب' | 'ব' | 'Ｂ' => out.push_str(" B"),
            'ج' | 'ড' | 'Ｃ' => out.push_str(" C"),
            'د' | 'ঢ' | 'Ｄ' => out.push_str(" D"),
            _ => out.push(c),
        }
    }
    out.trim().to_owned()
}

/// `LEADING_CHOICE_LETTER_PATTERN`: an ASCII letter not followed by a letter or digit.
fn leading_letter(s: &str) -> Option<char> {
    let mut chars = s.chars();
    let first = chars.next().filter(char::is_ascii_alphabetic)?;
    match chars.next() {
        Some(next) if next.is_ascii_alphanumeric() => None,
        _ => Some(first),
    }
}

/// `LAST_STANDALONE_CHOICE_LETTER_PATTERN`: the last `\b[A-Z]\b`.
fn last_standalone_capital(s: &str) -> Option<char> {
    static CELL: OnceLock<Regex> = OnceLock::new();
    let found = regex(&CELL, r"\b[A-Z]\b").find_iter(s).last()?;
    found.as_str().chars().next()
}

/// `_contains_ambiguous_choice_list`: two different option letters, each standing
/// alone, with only a separator between them (`/ | & , ;`, `or`, `and`, blanks).
fn lists_several(s: &str, choices: &Choices) -> bool {
    static SEPARATOR: OnceLock<Regex> = OnceLock::new();
    let separator = regex(&SEPARATOR, r"(?i)^(?:\s*[/|&,;]\s*|\s+(?:or|and)\s+|\s+)$");
    let letters = lone_ascii_letters(s, choices);
    letters.windows(2).any(|pair| {
        let ((left, _, left_end), (right, right_start, _)) = (pair[0], pair[1]);
        left != right && separator.is_match(&s[left_end..right_start])
    })
}

/// `CHOICE_LETTER_PATTERN` matches naming an option: (letter, start, end).
fn lone_ascii_letters(s: &str, choices: &Choices) -> Vec<(char, usize, usize)> {
    let bytes = s.as_bytes();
    let is_letter = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_alphabetic);
    (0..bytes.len())
        .filter(|&i| is_letter(i) && (i == 0 || !is_letter(i - 1)) && !is_letter(i + 1))
        .map(|i| ((bytes[i] as char).to_ascii_uppercase(), i, i + 1))
        .filter(|(letter, _, _)| choices.contains(*letter))
        .collect()
}

/// Python's `c.isalpha()` then `.upper()`, kept only when it is one character.
pub(super) fn upper_letter(c: char) -> Option<char> {
    if !c.is_alphabetic() {
        return None;
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => Some(u),
        _ => None,
    }
}
