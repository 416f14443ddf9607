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
    let count: usize = value
        .chars()
        .map(|c| {
            if c.is_ascii() {
                usize::from(c.to_ascii_lowercase() == letter)
            } else {
                c.to_lowercase().filter(|&l| l == letter).count()
            }
        })
        .sum();
    relation.holds(count as u64, frequency)
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn existence_is_a_case_insensitive_regex_search() {
        let kw = json!({"keywords": ["river", "Bank"]});
        assert!(v("keywords:existence", kw.clone(), "The RIVER bank."));
        assert!(!v("keywords:existence", kw, "The river."));
        assert!(v("keywords:existence", json!({"keywords": ["r.v"]}), "rav"));
    }

    #[test]
    fn frequency_boundaries() {
        let text = "the cat and the dog and the bird";
        let at = |n: u64, rel: &str| {
            v(
                "keywords:frequency",
                json!({"keyword": " the ", "frequency": n, "relation": rel}),
                text,
            )
        };
        // The keyword is stripped; "the" occurs 3 times.
        assert!(at(3, "at least") && !at(4, "at least"));
        assert!(at(4, "less than") && !at(3, "less than"));
    }

    #[test]
    fn forbidden_words_need_word_boundaries() {
        let kw = json!({"forbidden_words": ["cat"]});
        assert!(v(
            "keywords:forbidden_words",
            kw.clone(),
            "A category of concatenation."
        ));
        assert!(!v("keywords:forbidden_words", kw, "My Cat."));
    }

    #[test]
    fn letter_frequency_counts_lowercased_letters() {
        let kw =
            |n: u64, rel: &str| json!({"letter": "A", "let_frequency": n, "let_relation": rel});
        assert!(v("keywords:letter_frequency", kw(3, "at least"), "Aa bana"));
        assert!(v("keywords:letter_frequency", kw(4, "at least"), "Aa bana"));
        assert!(!v(
            "keywords:letter_frequency",
            kw(5, "at least"),
            "Aa bana"
        ));
        assert!(v(
            "keywords:letter_frequency",
            kw(5, "less than"),
            "Aa bana"
        ));
        assert!(!v(
            "keywords:letter_frequency",
            kw(4, "less than"),
            "Aa bana"
        ));
    }
}
