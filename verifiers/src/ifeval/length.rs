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

fn paragraph_divider() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(&format!(r"[{SPACE}]?\*\*\*[{SPACE}]?")).expect("static pattern"))
}

/// `length_constraints:number_paragraphs`: pieces between `***` dividers; an empty
/// first or last piece is ignored, an empty middle one fails.
pub fn number_paragraphs(value: &str, expected: u64) -> bool {
    let pieces: Vec<&str> = paragraph_divider().split(value).collect();
    let mut count = pieces.len() as u64;
    for (i, piece) in pieces.iter().enumerate() {
        if strip(piece).is_empty() {
            if i == 0 || i == pieces.len() - 1 {
                count -= 1;
            } else {
                return false;
            }
        }
    }
    count == expected
}

fn word_run() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\w+").expect("static pattern"))
}

/// IFEval's word count: `RegexpTokenizer(r"\w+")` tokens. NLTK (3.10+) compiles
/// it with the `regex` module, whose `\w` is Unicode's, as in Rust: combining
/// marks stay inside words (stdlib `re`, used by older NLTK, splits there).
pub fn count_words(value: &str) -> usize {
    word_run().find_iter(value).count()
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
