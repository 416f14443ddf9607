//! The needle-retrieval and variable-tracking grader: which of the expected strings
//! (needle values, variable names) the response names.
//!
//! RULER grades these tasks with `string_match_all`: the fraction of expected strings
//! found in the response, case-insensitively, as substrings. Substrings reward listing
//! everything: "0123456789" contains every one-digit value, and naming every number of
//! the haystack finds the needle's. So when every expected string has a shape that can
//! be read as whole words, cascade reads the response's words of that shape and
//! rewards the **Jaccard index** `|found ∩ expected| / |found ∪ expected|`: RULER's
//! fraction whenever the response names nothing else, less for each extra.
//!
//! - **numbers** (every expected string is ASCII digits): the response's maximal runs
//!   of ASCII digits (`4,512` is two numbers, `x42` holds `42`);
//! - **names** (every expected string is ASCII capitals, such as `QWERT`): the
//!   response's whole words (maximal ASCII letter/digit runs) made only of capitals
//!   and as long as some expected name (so `VAR` or `I` are not read as names),
//!   compared exactly: `qwert` is not `QWERT`;
//! - anything else (uuids, words, mixed): RULER's `string_match_all` itself, and no
//!   penalty for extras.
//!
//! Expected strings are a set (duplicates count once); an empty set is a malformed row
//! (the caller's error). Responses over [`MAX_RESPONSE_BYTES`] are refused.

use std::collections::BTreeSet;

/// The longest response the long-context graders read; longer ones score 0 (a
/// retrieval answer is a few words, a graph answer a list of node names).
pub const MAX_RESPONSE_BYTES: usize = 65_536;

/// How the expected strings are looked for in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Numbers,
    Names,
    /// RULER's case-insensitive substrings.
    Substrings,
}

impl Shape {
    /// The shape every expected string has.
    pub fn of(expected: &BTreeSet<String>) -> Self {
        let all = |f: fn(&u8) -> bool| {
            expected
                .iter()
                .all(|s| !s.is_empty() && s.bytes().all(|b| f(&b)))
        };
        if all(u8::is_ascii_digit) {
            Shape::Numbers
        } else if all(u8::is_ascii_uppercase) {
            Shape::Names
        } else {
            Shape::Substrings
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Numbers => "numbers",
            Shape::Names => "names",
            Shape::Substrings => "substrings",
        }
    }
}

/// A graded retrieval answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    pub score: f64,
    pub shape: Shape,
    /// The expected strings the response names.
    pub found: Vec<String>,
    /// What the response names that was not asked for (numbers and names only).
    pub extra: Vec<String>,
}

/// Grades `response` against a non-empty set of expected strings (rules above).
pub fn grade_retrieval(response: &str, expected: &BTreeSet<String>) -> Retrieval {
    let shape = Shape::of(expected);
    if shape == Shape::Substrings {
        let lower = response.to_lowercase();
        let found: Vec<String> = expected
            .iter()
            .filter(|s| lower.contains(&s.to_lowercase()))
            .cloned()
            .collect();
        let score = found.len() as f64 / expected.len().max(1) as f64;
        return Retrieval {
            score,
            shape,
            found,
            extra: Vec::new(),
        };
    }
    let named = words(response, shape, expected);
    let found: Vec<String> = named.intersection(expected).cloned().collect();
    let extra: Vec<String> = named.difference(expected).cloned().collect();
    let union = expected.len() + extra.len();
    let score = if union == 0 {
        0.0
    } else {
        found.len() as f64 / union as f64
    };
    Retrieval {
        score,
        shape,
        found,
        extra,
    }
}

/// The response's words of `shape` (numbers or names), as a set.
fn words(response: &str, shape: Shape, expected: &BTreeSet<String>) -> BTreeSet<String> {
    let lengths: BTreeSet<usize> = expected.iter().map(String::len).collect();
    let runs = |keep: fn(&u8) -> bool| -> Vec<&str> {
        response
            .split(|c: char| !(c.is_ascii() && keep(&(c as u8))))
            .filter(|w| !w.is_empty())
            .collect()
    };
    match shape {
        Shape::Numbers => runs(u8::is_ascii_digit)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        Shape::Names => runs(u8::is_ascii_alphanumeric)
            .into_iter()
            .filter(|w| w.bytes().all(|b| b.is_ascii_uppercase()) && lengths.contains(&w.len()))
            .map(str::to_owned)
            .collect(),
        Shape::Substrings => BTreeSet::new(),
    }
}
