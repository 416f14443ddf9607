//! Token-wise comparison of an actual output against an expected one.

use serde::{Deserialize, Serialize};

/// How far apart two numeric tokens may be and still match.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FloatTolerance {
    /// Largest allowed `|actual - expected|`.
    pub absolute: f64,
    /// Largest allowed `|actual - expected| / |expected|`.
    pub relative: f64,
}

impl FloatTolerance {
    /// The same bound, absolute and relative (e.g. `1e-6`).
    pub fn both(bound: f64) -> Self {
        Self {
            absolute: bound,
            relative: bound,
        }
    }

    fn accepts(&self, expected: &str, actual: &str) -> bool {
        let (Some(e), Some(a)) = (parse_number(expected), parse_number(actual)) else {
            return false;
        };
        if is_integer(expected) || is_integer(actual) {
            // Counts are exact; only the value is compared (`2` is `2.0`).
            return a == e;
        }
        let diff = (a - e).abs();
        diff <= self.absolute || diff <= self.relative * e.abs()
    }
}

/// A decimal number token (`-12`, `3.5`, `1e-9`, `.5`): no `inf`, `nan` or hex, so a
/// word never becomes a number by accident.
fn parse_number(token: &str) -> Option<f64> {
    let ok = !token.is_empty()
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && token.bytes().any(|b| b.is_ascii_digit());
    if !ok {
        return None;
    }
    token.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// An integer token: an optional sign, then digits only.
fn is_integer(token: &str) -> bool {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The first place two outputs differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// 0-based index of the first differing token.
    pub token: usize,
    /// The expected token there (`None`: the actual output has extra tokens).
    pub expected: Option<String>,
    /// The actual token there (`None`: the actual output ended early).
    pub actual: Option<String>,
}

/// The outcome of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Comparison {
    Match,
    Mismatch(Difference),
}

impl Comparison {
    pub fn matches(&self) -> bool {
        *self == Comparison::Match
    }
}

/// Longest token echoed back in a [`Difference`].
const MAX_TOKEN_ECHO: usize = 64;

fn echo(token: &str) -> String {
    token.chars().take(MAX_TOKEN_ECHO).collect()
}

/// Compares `actual` with `expected` token by token (see the module docs).
pub fn compare(expected: &str, actual: &str, tolerance: Option<FloatTolerance>) -> Comparison {
    let mut want = expected.split_ascii_whitespace();
    let mut got = actual.split_ascii_whitespace();
    let mut index = 0;
    loop {
        match (want.next(), got.next()) {
            (None, None) => return Comparison::Match,
            (e, a) => {
                let same = match (e, a) {
                    (Some(e), Some(a)) => e == a || tolerance.is_some_and(|t| t.accepts(e, a)),
                    _ => false,
                };
                if !same {
                    return Comparison::Mismatch(Difference {
                        token: index,
                        expected: e.map(echo),
                        actual: a.map(echo),
                    });
                }
            }
        }
        index += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_layout_trailing_space_blank_lines_and_crlf() {
        assert!(compare("1 2\n3\n", "1 2\r\n3   \r\n\r\n\n", None).matches());
        assert!(compare("a b", "a\nb", None).matches());
        assert!(compare("", "\n \n", None).matches());
    }

    #[test]
    fn tokens_must_match_exactly_without_tolerance() {
        assert_eq!(
            compare("3.5", "3.500000", None),
            Comparison::Mismatch(Difference {
                token: 0,
                expected: Some("3.5".into()),
                actual: Some("3.500000".into()),
            })
        );
        assert!(!compare("Yes", "YES", None).matches());
        assert!(!compare("1 2", "1 2 3", None).matches());
        assert_eq!(
            compare("1 2", "1", None),
            Comparison::Mismatch(Difference {
                token: 1,
                expected: Some("2".into()),
                actual: None,
            })
        );
    }

    #[test]
    fn tolerance_applies_to_numbers_only() {
        let t = Some(FloatTolerance::both(1e-6));
        assert!(compare("3.5", "3.500000", t).matches());
        assert!(compare("1000000.0", "1000000.5", t).matches()); // relative
        assert!(compare("0.0000001", "0.0", t).matches()); // absolute
        assert!(!compare("3.5", "3.51", t).matches());
        assert!(!compare("nan", "nan1", t).matches());
        assert!(!compare("inf", "inf0", t).matches());
        assert!(!compare("abc", "abd", t).matches());
    }

    #[test]
    fn integers_are_exact_even_with_a_tolerance() {
        let t = Some(FloatTolerance::both(1e-6));
        // Off by 999 of 1,249,975,000: within 1e-6 relative, and still wrong.
        assert!(!compare("1249975000", "1249974001", t).matches());
        assert!(!compare("1000000", "1000000.5", t).matches());
        assert!(!compare("1000000.5", "1000000", t).matches());
        assert!(!compare("0.0000001", "0", t).matches());
        assert!(compare("2", "2.000000", t).matches());
        assert!(compare("-3.000", "-3", t).matches());
        assert!(compare("1249975000", "1249975000", t).matches());
    }

    #[test]
    fn echoes_are_bounded() {
        let long = "x".repeat(10_000);
        match compare("y", &long, None) {
            Comparison::Mismatch(d) => assert_eq!(d.actual.map(|s| s.len()), Some(64)),
            Comparison::Match => panic!("long token matched"),
        }
    }
}
