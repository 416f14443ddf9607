//! `length_constraints:*`: sentences (NLTK Punkt), paragraphs split by `***` or by
//! blank lines, and words (`\w+` runs).

use std::sync::OnceLock;

use regex::Regex;

use super::punkt;
use super::pyregex::SPACE;
use super::pystr::{split_whitespace, strip};
use super::relation::Relation;

/// `length_constraints:number_sentences`.
pub fn number_sentences(value: &str, threshold: u64, relation: Relation) -> bool {
    relation.holds(punkt::count_sentences(value) as u64, threshold)
}

/// The reference's `***` divider, `\s?\*\*\*\s?`.
pub(super) fn paragraph_divider() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!(r"[{SPACE}]?\*\*\*[{SPACE}]?")).expect("static pattern"))
}

/// `length_constraints:number_paragraphs`: pieces between `***` dividers; an empty
/// first or last piece is ignored, an empty middle one fails.
pub fn number_paragraphs(value: &str, expected: u64) -> bool {
    let pieces: Vec<&str> = paragraph_divider().split(value).collect();
    paragraph_count(&pieces) == Some(expected as usize)
}

/// `paragraphs:paragraphs2`: exactly two paragraphs split on `\n\n`; an empty
/// first or last piece is ignored, an empty middle one fails.
pub fn two_blank_line_paragraphs(value: &str) -> bool {
    let pieces: Vec<&str> = value.split("\n\n").collect();
    paragraph_count(&pieces) == Some(2)
}

/// The paragraphs among `pieces`, the reference's way: an empty first or last piece
/// is not one; an empty one in the middle makes the text fail (`None`).
fn paragraph_count(pieces: &[&str]) -> Option<usize> {
    let last = pieces.len().saturating_sub(1);
    let mut count = pieces.len();
    for (i, piece) in pieces.iter().enumerate() {
        if strip(piece).is_empty() {
            if i != 0 && i != last {
                return None;
            }
            count -= 1;
        }
    }
    Some(count)
}

/// `\w` of the `regex` module, which is Unicode's (as in Rust's `regex`).
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"^\w$").expect("static pattern"));
    let mut buf = [0u8; 4];
    re.is_match(c.encode_utf8(&mut buf))
}

/// IFEval's word count: `RegexpTokenizer(r"\w+")` tokens. NLTK (3.10+) compiles
/// it with the `regex` module, whose `\w` is Unicode's, as in Rust: combining
/// marks stay inside words (stdlib `re`, used by older NLTK, splits there).
pub fn count_words(value: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for c in value.chars() {
        let word = is_word_char(c);
        count += usize::from(word && !in_word);
        in_word = word;
    }
    count
}

/// `length_constraints:number_words`.
pub fn number_words(value: &str, threshold: u64, relation: Relation) -> bool {
    relation.holds(count_words(value) as u64, threshold)
}

/// `length_constraints:nth_paragraph_first_word`: paragraphs split on `\n\n`; the
/// count of non-blank ones must equal `num_paragraphs`, and the `nth` raw piece
/// must start with `first_word` (leading quotes dropped, cut at punctuation).
pub fn nth_paragraph_first_word(
    value: &str,
    num_paragraphs: u64,
    nth: u64,
    first_word: &str,
) -> bool {
    let paragraphs: Vec<&str> = value.split("\n\n").collect();
    let count = paragraphs.iter().filter(|p| !strip(p).is_empty()).count() as u64;
    if nth == 0 || nth > count {
        return false;
    }
    let Some(paragraph) = paragraphs.get((nth - 1) as usize).map(|p| strip(p)) else {
        return false;
    };
    let Some(word) = split_whitespace(paragraph).next() else {
        return false;
    };
    let word = strip(word).trim_start_matches('\'').trim_start_matches('"');
    let found: String = word
        .chars()
        .take_while(|c| !matches!(c, '.' | ',' | '?' | '!' | '\'' | '"'))
        .flat_map(char::to_lowercase)
        .collect();
    count == num_paragraphs && found == first_word
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn sentence_count_boundaries_use_punkt() {
        // Punkt keeps "Dr." and "p.m." inside sentences: 2 sentences.
        let text = "Dr. Smith arrived at 5 p.m. on Monday. He left early.";
        let s = |n: u64, rel: &str| {
            v(
                "length_constraints:number_sentences",
                json!({"num_sentences": n, "relation": rel}),
                text,
            )
        };
        assert!(s(2, "at least") && !s(3, "at least"));
        assert!(s(3, "less than") && !s(2, "less than"));
    }

    #[test]
    fn word_count_boundaries() {
        let text = "snake_case e-mail 3.14 don't"; // snake_case, e, mail, 3, 14, don, t
        let w = |n: u64, rel: &str| {
            v(
                "length_constraints:number_words",
                json!({"num_words": n, "relation": rel}),
                text,
            )
        };
        assert!(w(7, "at least") && !w(8, "at least"));
        assert!(w(8, "less than") && !w(7, "less than"));
    }

    #[test]
    fn paragraphs_split_on_stars() {
        let p = |text: &str, n: u64| {
            v(
                "length_constraints:number_paragraphs",
                json!({"num_paragraphs": n}),
                text,
            )
        };
        assert!(p("a\n***\nb\n***\nc", 3));
        assert!(!p("a\n***\nb\n***\nc", 2));
        assert!(p("***\na\n***\nb\n***", 2)); // empty first and last pieces ignored
        assert!(!p("a\n***\n\n***\nb", 2)); // empty middle piece fails
        assert!(v("paragraphs:paragraphs", json!({}), "a\n***\nb"));
        assert!(!v("paragraphs:paragraphs", json!({}), "a\n***\nb***c"));
    }

    #[test]
    fn paragraphs2_split_on_blank_lines() {
        let p = |text: &str| v("paragraphs:paragraphs2", json!({}), text);
        assert!(p("a\n\nb"));
        assert!(p("\n\na\n\nb\n\n"));
        assert!(!p("a\nb"));
        assert!(!p("a\n\n\n\nb")); // an empty middle piece fails
        assert!(p("a\n\n\nb")); // the third newline starts the second piece
    }

    #[test]
    fn nth_paragraph_first_word() {
        let kw = json!({"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "Rivers"});
        let n = |text: &str| {
            v(
                "length_constraints:nth_paragraph_first_word",
                kw.clone(),
                text,
            )
        };
        assert!(n("Intro.\n\n\"Rivers,\" she said."));
        assert!(!n("Intro.\n\nLakes."));
        assert!(!n("Intro.\n\nRivers.\n\nThird."));
    }
}
