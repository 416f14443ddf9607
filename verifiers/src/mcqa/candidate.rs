//! What one candidate answer (a box's content, the rest of an `Answer:` line) names.
//!
//! A candidate is first unwrapped: formatting commands whose argument is the answer
//! itself (`\text{}`, `\textbf{}`, `\mathrm{}`, `\boxed{}`, …) keep only their argument,
//! and braces, `$`, `\(`/`\)`, markdown emphasis (`*`, `_`) and LaTeX spacing go.

use super::Choices;

/// Formatting commands dropped around an answer (their argument stays).
const WRAPPERS: [&str; 16] = [
    "text", "textbf", "textrm", "textit", "texttt", "textsf", "mathrm", "mathbf", "mathit",
    "mathtt", "mathsf", "mbox", "boxed", "fbox", "bf", "emph",
];

/// The candidate without wrappers, braces, math delimiters and emphasis marks.
pub(super) fn unwrap(candidate: &str) -> String {
    let mut out = String::with_capacity(candidate.len());
    let mut rest = candidate;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\\' => {
                let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
                let (name, after) = rest.split_at(name_len);
                if name.is_empty() {
                    // `\(`, `\)`, `\{`, `\,`, `\\`: delimiters and spacing, not content.
                    let skip = after.chars().next().map_or(0, char::len_utf8);
                    rest = &after[skip..];
                    out.push(' ');
                } else {
                    if !WRAPPERS.contains(&name) {
                        out.push('\\');
                        out.push_str(name);
                    }
                    rest = after;
                }
            }
            '{' | '}' | '$' | '*' | '_' => {}
            '~' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

fn trim_non_alphanumeric(s: &str) -> &str {
    s.trim_matches(|c: char| !c.is_alphanumeric())
}

/// Lowercase, whitespace collapsed, no punctuation at either end: how option texts
/// and candidates are compared.
pub(super) fn normalize(text: &str) -> String {
    let unwrapped = unwrap(text).to_lowercase();
    let words: Vec<&str> = unwrapped.split_whitespace().collect();
    trim_non_alphanumeric(&words.join(" ")).to_owned()
}

/// The candidate is one option letter with only punctuation, brackets or wrappers
/// around it (`B`, `(B)`, `[C].`, `\text{E}`). `any_case` also accepts `b`.
pub(super) fn single_letter(candidate: &str, any_case: bool, choices: &Choices) -> Option<char> {
    let unwrapped = unwrap(candidate);
    let core = trim_non_alphanumeric(&unwrapped);
    let mut chars = core.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let letter = match c {
        'A'..='Z' => c,
        'a'..='z' if any_case => c.to_ascii_uppercase(),
        _ => return None,
    };
    choices.contains(letter).then_some(letter)
}

/// NeMo Gym's strict boxed label (0.7.0, `BOXED_LETTER_LABEL_PATTERN`,
/// `^\s*([A-Z])\s*[:).\-]`): an uppercase option letter at the start of the box, then
/// `:`, `)`, `.` or `-`, whatever follows (`B) Gold`, `B: Gold`, `E. coli`). As in Gym,
/// the text after the label is not compared with the option's.
pub(super) fn leading_label(candidate: &str, choices: &Choices) -> Option<char> {
    let unwrapped = unwrap(candidate);
    let mut chars = unwrapped.trim_start().chars();
    let letter = chars.next().filter(char::is_ascii_uppercase)?;
    let delimiter = chars.find(|c| !c.is_whitespace())?;
    (":).-".contains(delimiter) && choices.contains(letter)).then_some(letter)
}

/// A candidate that starts with an option letter as a label: `B) Square`, `(B) Square`,
/// `B. Square`, `B: Square`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// No label: read the candidate otherwise.
    Absent,
    /// The text agrees with the letter's option (equal, or one contains the other).
    Agrees(char),
    /// The text is not that option's (`A) Square` with A = Circle): no answer, since
    /// the response contradicts itself.
    Disagrees,
}

/// Reads a candidate's label, if it has one.
fn label(candidate: &str, choices: &Choices) -> Label {
    let unwrapped = unwrap(candidate);
    let s = unwrapped.trim_start();
    let (bracketed, s) = match s.strip_prefix(['(', '[']) {
        Some(inner) => (true, inner),
        None => (false, s),
    };
    let mut chars = s.chars();
    let (Some(letter), Some(closer)) = (chars.next(), chars.next()) else {
        return Label::Absent;
    };
    let closes = if bracketed {
        matches!(closer, ')' | ']')
    } else {
        matches!(closer, ')' | ']' | '.' | ':')
    };
    let rest = normalize(chars.as_str());
    if !closes || !choices.contains(letter) || rest.is_empty() {
        return Label::Absent;
    }
    let own = choices.text(letter).map(normalize).unwrap_or_default();
    if !own.is_empty() && (own.contains(&rest) || rest.contains(&own)) {
        Label::Agrees(letter)
    } else {
        Label::Disagrees
    }
}

/// A labelled letter, else (without a label) an option's text; see [`option_text`].
pub(super) fn by_label_or_text(
    candidate: &str,
    choices: &Choices,
    containment: bool,
) -> Option<char> {
    match label(candidate, choices) {
        Label::Agrees(letter) => Some(letter),
        Label::Disagrees => None,
        Label::Absent => option_text(candidate, choices, containment),
    }
}

/// The one option whose text the candidate is (after normalising both), or, with
/// `containment`, else the one option whose text the candidate contains.
pub(super) fn option_text(candidate: &str, choices: &Choices, containment: bool) -> Option<char> {
    let wanted = normalize(candidate);
    if wanted.is_empty() {
        return None;
    }
    let texts: Vec<(char, String)> = choices
        .iter()
        .map(|(l, t)| (l, normalize(t)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let equal = only(texts.iter().filter(|(_, t)| *t == wanted));
    if equal.is_some() || !containment {
        return equal;
    }
    only(texts.iter().filter(|(_, t)| wanted.contains(t.as_str())))
}

/// The letter when exactly one option matched.
fn only<'a>(mut matches: impl Iterator<Item = &'a (char, String)>) -> Option<char> {
    match (matches.next(), matches.next()) {
        (Some((letter, _)), None) => Some(*letter),
        _ => None,
    }
}
