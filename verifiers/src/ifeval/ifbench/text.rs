//! The Python `str` idioms IFBench's checks share: `string.punctuation` (ASCII
//! punctuation) stripped or removed, `str.isdigit()`, the NFKD-then-ASCII
//! normalisation of its list checks, and Python's slice of a list.

use unicode_normalization::UnicodeNormalization;

use crate::ifeval::pystr::split_whitespace;

/// `c in string.punctuation + ' '`: what `strip(''.join(string.punctuation) + ' ')`
/// removes (only the ASCII space, not other whitespace).
fn punct_or_space(c: char) -> bool {
    c.is_ascii_punctuation() || c == ' '
}

/// `s.strip(string.punctuation + ' ')`.
pub(super) fn strip_punct(s: &str) -> &str {
    s.trim_matches(punct_or_space)
}

/// `s.lstrip(string.punctuation + ' ')`.
pub(super) fn lstrip_punct(s: &str) -> &str {
    s.trim_start_matches(punct_or_space)
}

/// `s.rstrip(string.punctuation + ' ')`.
pub(super) fn rstrip_punct(s: &str) -> &str {
    s.trim_end_matches(punct_or_space)
}

/// `s.translate(str.maketrans('', '', string.punctuation))`.
pub(super) fn drop_punct(s: &str) -> String {
    s.chars().filter(|c| !c.is_ascii_punctuation()).collect()
}

/// `s.translate(...).split()` after removing punctuation, as owned words.
pub(super) fn bare_words(s: &str) -> Vec<String> {
    split_whitespace(&drop_punct(s))
        .map(str::to_owned)
        .collect()
}

/// Python's `str.isdigit()`: non-empty, every character a decimal digit or a
/// digit-valued number sign (superscripts, circled digits).
pub(super) fn is_digit(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_digit_char)
}

/// Python's `\d` in a `str` pattern: a Unicode decimal digit (category Nd).
pub(super) fn is_decimal(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory};
    c.is_ascii_digit()
        || (!c.is_ascii() && get_general_category(c) == GeneralCategory::DecimalNumber)
}

fn is_digit_char(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory};
    match get_general_category(c) {
        GeneralCategory::DecimalNumber => true,
        // `No` characters whose Numeric_Type is Digit (Python's `isdigit`).
        GeneralCategory::OtherNumber => matches!(c,
            '\u{B2}' | '\u{B3}' | '\u{B9}' | '\u{1369}'..='\u{1371}' | '\u{19DA}'
            | '\u{2070}' | '\u{2074}'..='\u{2079}' | '\u{2080}'..='\u{2089}'
            | '\u{2460}'..='\u{2468}' | '\u{2474}'..='\u{247C}' | '\u{2488}'..='\u{2490}'
            | '\u{24EA}' | '\u{24F5}'..='\u{24FD}' | '\u{24FF}'
            | '\u{2776}'..='\u{277E}' | '\u{2780}'..='\u{2788}' | '\u{278A}'..='\u{2792}'
            | '\u{10A40}'..='\u{10A43}' | '\u{1F100}'..='\u{1F10A}'),
        _ => false,
    }
}

/// `unicodedata.normalize('NFKD', s).encode('ASCII', 'ignore').decode()`:
/// accents split off and every non-ASCII character dropped.
pub(super) fn ascii_fold(s: &str) -> String {
    s.nfkd().filter(char::is_ascii).collect()
}

/// Python's `items[start:end]` for non-negative or negative indices.
pub(super) fn slice<T>(items: &[T], start: i64, end: i64) -> &[T] {
    let len = items.len() as i64;
    let clamp = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) } as usize;
    let (start, end) = (clamp(start), clamp(end));
    if start >= end {
        &[]
    } else {
        &items[start..end]
    }
}

/// The first character, as Python's `s[0]` (`None` where Python raises).
pub(super) fn first_char(s: &str) -> Option<char> {
    s.chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_idioms() {
        assert_eq!(strip_punct("  ..hi!\t"), "hi!\t");
        assert_eq!(drop_punct("a-b, c."), "ab c");
        assert!(is_digit("12²") && !is_digit("½") && !is_digit("") && !is_digit("〇"));
        assert_eq!(ascii_fold("São Tomé ✓"), "Sao Tome ");
        assert_eq!(slice(&[1, 2, 3, 4], 1, -1), &[2, 3]);
        assert!(slice(&[1, 2], 5, 9).is_empty());
    }
}
