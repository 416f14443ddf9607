//! `change_case:*`: counts of all-capital words, and all-uppercase or all-lowercase
//! English responses (Python's `isupper`/`islower`: one cased character needed).

use super::language::{detect, Detected};
use super::pystr::{is_lower, is_upper};
use super::relation::Relation;
use super::treebank;

/// `change_case:capital_word_frequency`: NLTK `word_tokenize` tokens that are
/// all uppercase.
pub fn capital_word_frequency(value: &str, frequency: u64, relation: Relation) -> bool {
    let count = treebank::word_tokenize(value)
        .iter()
        .filter(|w| is_upper(w))
        .count();
    relation.holds(count as u64, frequency)
}

/// English as the detector sees it; text with no letters passes, as a detector
/// exception does in the reference.
fn is_english(value: &str) -> bool {
    match detect(value) {
        Detected::NoLetters => true,
        Detected::Language(code) => code == "en",
        Detected::Unsupported => false,
    }
}

/// `change_case:english_capital`.
pub fn english_capital(value: &str) -> bool {
    is_upper(value) && is_english(value)
}

/// `change_case:english_lowercase`.
pub fn english_lowercase(value: &str) -> bool {
    is_lower(value) && is_english(value)
}
