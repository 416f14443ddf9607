//! `change_case:*`: counts of all-capital words, and all-uppercase or all-lowercase
//! English responses (Python's `isupper`/`islower`: one cased character needed).

use super::language::{detect, Detected};
use super::pystr::{is_lower, is_upper};
use super::relation::Relation;
use super::treebank;

/// `change_case:capital_word_frequency`: NLTK `word_tokenize` tokens that are
/// all uppercase.
pub fn capital_word_frequency(value: &str, frequency: u64, relation: Relation) -> bool {
    let count = treebank::count_upper_tokens(value);
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

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn capital_words_follow_nltk_tokens() {
        // Tokens: I, CA, N'T, GO, ., OK → 5 all-caps tokens (N'T counts).
        let c = |n: u64, rel: &str| {
            v(
                "change_case:capital_word_frequency",
                json!({"capital_frequency": n, "capital_relation": rel}),
                "I CAN'T GO. ok OK",
            )
        };
        assert!(c(5, "at least") && !c(6, "at least"));
        assert!(c(6, "less than") && !c(5, "less than"));
    }

    #[test]
    fn english_case_checks() {
        let upper = "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG WHILE THE FARMER WATCHES.";
        assert!(v("change_case:english_capital", json!({}), upper));
        assert!(!v(
            "change_case:english_capital",
            json!({}),
            "THE QUICK brown FOX"
        ));
        assert!(v(
            "change_case:english_lowercase",
            json!({}),
            &upper.to_lowercase()
        ));
        assert!(!v("change_case:english_lowercase", json!({}), "123 !!!")); // no cased character
        assert!(!v(
            "change_case:english_lowercase",
            json!({}),
            "el perro come la comida en la cocina cada mañana antes del amanecer."
        ));
    }
}
