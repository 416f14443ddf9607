//! Python `str` semantics the reference relies on: what `strip()` treats as
//! whitespace, `isupper()`/`islower()` on mixed text, and `\w` in `re` patterns.
//!
//! Rust's notions differ in small ways (Python's whitespace includes the ASCII
//! separators `\x1c`..`\x1f`; Python's `\w` excludes combining marks), and each
//! difference would flip a verdict on some input, so every check goes through here.

/// Python's `str.isspace()` for one character.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no arguments.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `str.rstrip()` with no arguments.
pub fn rstrip(s: &str) -> &str {
    s.trim_end_matches(is_space)
}

/// Titlecase letters (general category Lt): Python counts them as cased but
/// neither upper nor lower, so they make `isupper()` and `islower()` false.
fn is_title(c: char) -> bool {
    matches!(c,
        '\u{01C5}' | '\u{01C8}' | '\u{01CB}' | '\u{01F2}'
        | '\u{1F88}'..='\u{1F8F}'
        | '\u{1F98}'..='\u{1F9F}'
        | '\u{1FA8}'..='\u{1FAF}'
        | '\u{1FBC}' | '\u{1FCC}' | '\u{1FFC}')
}

/// Python's `str.isupper()`: at least one cased character and no lowercase or
/// titlecase one.
pub fn is_upper(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_lowercase() || is_title(c) {
            return false;
        }
        cased |= c.is_uppercase();
    }
    cased
}

/// Python's `str.islower()`: at least one cased character and no uppercase or
/// titlecase one.
pub fn is_lower(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_uppercase() || is_title(c) {
            return false;
        }
        cased |= c.is_lowercase();
    }
    cased
}

/// Python's `str.split()` with no arguments: runs of whitespace separate, no
/// empty pieces.
pub fn split_whitespace(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_space).filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_predicates_need_a_cased_character() {
        assert!(is_upper("HELLO, WORLD 42!"));
        assert!(!is_upper("123 !"));
        assert!(!is_upper("HELLo"));
        assert!(is_lower("hello, world 42!"));
        assert!(!is_lower("..."));
        assert!(!is_lower("hello ǅ"));
        assert!(!is_upper("HELLO ǅ"));
    }

    #[test]
    fn strip_uses_python_whitespace() {
        assert_eq!(strip("\u{1c} a b \u{a0}\n"), "a b");
        assert_eq!(rstrip("x \u{1f}"), "x");
        assert_eq!(
            split_whitespace(" a\u{1e}b  c ").collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }
}
