//! The `detectable_format:*` ids that NeMo Gym's `verifiable_instructions` adds,
//! all about how words and sentences are marked: `[word]` brackets, `<<bi gram>>`
//! wrapping, and sentences joined by hyphens.

use super::pystr::{split_whitespace, strip};
use super::sentences::split_into_sentences;

/// `detectable_format:square_brackets`: every whitespace-separated word starts
/// with `[` and ends with `]`.
pub fn square_brackets(value: &str) -> bool {
    split_whitespace(value).all(|w| w.starts_with('[') && w.ends_with(']'))
}

/// `detectable_format:bigram_wrapping`: words taken in pairs (0-1, 2-3, …), the
/// first of each pair opens with `<<` and the second closes with `>>`; an odd
/// last word is not checked.
pub fn bigram_wrapping(value: &str) -> bool {
    let words: Vec<&str> = split_whitespace(value).collect();
    words
        .chunks_exact(2)
        .all(|pair| pair[0].starts_with("<<") && pair[1].ends_with(">>"))
}

/// `detectable_format:sentence_hyphens`: the pieces between hyphens have no
/// outer whitespace and are, in order, the sentences the reference's splitter
/// finds once hyphens are read as spaces (pairs beyond the shorter list are not
/// compared).
pub fn sentence_hyphens(value: &str) -> bool {
    let gold = split_into_sentences(&value.replace('-', " "));
    value
        .split('-')
        .zip(&gold)
        .all(|(piece, sentence)| strip(piece) == piece && piece == sentence)
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn square_brackets_around_every_word() {
        let id = "detectable_format:square_brackets";
        assert!(v(id, json!({}), "[Hello] [world!]"));
        assert!(!v(id, json!({}), "[Hello] world"));
        assert!(!v(id, json!({}), "[Hello world]"));
    }

    #[test]
    fn bigrams_are_wrapped_pairwise() {
        let id = "detectable_format:bigram_wrapping";
        assert!(v(id, json!({}), "<<I am>> <<at home>> alone"));
        assert!(!v(id, json!({}), "<<I am at>> <<home>>"));
        assert!(!v(id, json!({}), "I <<am at>> home"));
    }

    #[test]
    fn sentences_joined_by_hyphens_without_spaces() {
        let id = "detectable_format:sentence_hyphens";
        assert!(v(id, json!({}), "I ran.-You walked.-We rested."));
        assert!(!v(id, json!({}), "I ran. - You walked."));
        assert!(!v(id, json!({}), "I ran. You walked."));
        // A hyphen inside a sentence splits it where the splitter does not.
        assert!(!v(id, json!({}), "A well-known fact."));
    }
}
