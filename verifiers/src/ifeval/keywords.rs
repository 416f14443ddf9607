//! `keywords:*`: keyword presence, keyword and letter frequency, forbidden words.
//! Keywords are Python regexes matched case-insensitively (see [`super::pyregex`]).

use regex::Regex;

use super::relation::Relation;

/// `keywords:existence`: every keyword pattern is found somewhere.
pub fn existence(value: &str, keywords: &[Regex]) -> bool {
    keywords.iter().all(|k| k.is_match(value))
}

/// `keywords:frequency`: the number of non-overlapping matches against the threshold.
pub fn frequency(value: &str, keyword: &Regex, frequency: u64, relation: Relation) -> bool {
    relation.holds(keyword.find_iter(value).count() as u64, frequency)
}

/// `keywords:forbidden_words`: no `\bword\b` match (patterns built by the parser).
pub fn forbidden_words(value: &str, words: &[Regex]) -> bool {
    !words.iter().any(|w| w.is_match(value))
}

/// `keywords:letter_frequency`: occurrences of `letter` in the lowercased text.
pub fn letter_frequency(value: &str, letter: char, frequency: u64, relation: Relation) -> bool {
    let count = value
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|&c| c == letter)
        .count();
    relation.holds(count as u64, frequency)
}
