//! Word-level checks of the `verifiable_instructions` registry: first and last
//! words (of the answer or of every sentence), a keyword at a given position,
//! start and end with the same word, palindromes, adjacent initials, and the
//! keyword counts that take their keyword as a Python regex.
//!
//! "Words" are what the reference uses in each check: `str.split()` pieces,
//! NLTK `word_tokenize` tokens, or [`split_into_sentences`] sentences.

use std::sync::OnceLock;

use regex::Regex;

use super::pyregex::{self, Flags};
use super::pystr::{split_whitespace, strip};
use super::relation::Relation;
use super::sentences::split_into_sentences;
use super::treebank::word_tokenize;

/// Python's `re.sub(r"[^\w\s]", "", word)`: drops what is neither a word
/// character nor whitespace, in Python's sense of both.
fn drop_punctuation(word: &str) -> String {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re =
        RE.get_or_init(|| pyregex::compile(r"[^\w\s]", Flags::default()).expect("static pattern"));
    re.replace_all(word, "").into_owned()
}

fn same_lower(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// `first_word:first_word_sent`: every sentence opens with `word` (any case).
pub fn first_word_sent(value: &str, word: &str) -> bool {
    split_into_sentences(value).iter().all(|s| {
        split_whitespace(s)
            .next()
            .is_some_and(|first| same_lower(strip(first), word))
    })
}

/// `first_word:first_word_answer`: the response opens with `word` (any case).
pub fn first_word_answer(value: &str, word: &str) -> bool {
    split_whitespace(value)
        .next()
        .is_some_and(|first| same_lower(first, word))
}

/// `last_word:last_word_sent`: every sentence's last word, punctuation dropped,
/// is `word` (any case).
pub fn last_word_sent(value: &str, word: &str) -> bool {
    split_into_sentences(value).iter().all(|s| {
        split_whitespace(s)
            .last()
            .is_some_and(|last| same_lower(&drop_punctuation(last), word))
    })
}

/// `last_word:last_word_answer`: the response's last word, punctuation dropped,
/// is `word` (any case).
pub fn last_word_answer(value: &str, word: &str) -> bool {
    split_whitespace(value)
        .last()
        .is_some_and(|last| same_lower(&drop_punctuation(last), word))
}

/// `keywords:keyword_specific_position`: the `m`-th token of the `n`-th sentence
/// (both from 1) is exactly `keyword`.
pub fn keyword_specific_position(value: &str, keyword: &str, n: u64, m: u64) -> bool {
    let sentences = split_into_sentences(value);
    let Some(sentence) = usize::try_from(n)
        .ok()
        .and_then(|n| sentences.get(n.checked_sub(1)?))
    else {
        return false;
    };
    let tokens = word_tokenize(sentence);
    usize::try_from(m)
        .ok()
        .and_then(|m| tokens.get(m.checked_sub(1)?))
        .is_some_and(|t| t == keyword)
}

/// `keywords:start_end`: at least two tokens, the first and last equal in any case.
pub fn start_end(value: &str) -> bool {
    let tokens = word_tokenize(value);
    tokens.len() >= 2 && same_lower(&tokens[0], &tokens[tokens.len() - 1])
}

/// `keywords:palindrome`: some whitespace-separated word reads the same reversed
/// (one character is enough, as in the reference).
pub fn palindrome(value: &str) -> bool {
    split_whitespace(value).any(|w| w.chars().eq(w.chars().rev()))
}

/// The lowercase form of a word's first character, when it is one character.
fn initial(word: &str) -> Option<char> {
    let mut lower = word.chars().next()?.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// `keywords:no_adjacent_consecutive`: no two neighbouring words whose initials
/// are consecutive code points (`a` then `b`); an initial that lowercases to two
/// characters fails, as the reference's length check does.
pub fn no_adjacent_consecutive(value: &str) -> bool {
    let words: Vec<&str> = split_whitespace(value).collect();
    words
        .windows(2)
        .all(|pair| match (initial(pair[0]), initial(pair[1])) {
            (Some(a), Some(b)) => b as i64 - a as i64 != 1,
            _ => false,
        })
}

/// `keywords:exclude_word_harder`: the keyword never appears with a space on
/// each side (case-sensitive).
pub fn exclude_word_harder(value: &str, keyword: &str) -> bool {
    !value.contains(&format!(" {keyword} "))
}

/// Non-overlapping matches of a keyword pattern (`re.findall` count).
fn matches(value: &str, keyword: &Regex) -> u64 {
    keyword.find_iter(value).count() as u64
}

/// `keywords:word_once`: the keyword pattern matches exactly once.
pub fn word_once(value: &str, keyword: &Regex) -> bool {
    matches(value, keyword) == 1
}

/// `keywords:word_count_different_numbers`: match count against the threshold.
pub fn word_count(value: &str, keyword: &Regex, frequency: u64, relation: Relation) -> bool {
    relation.holds(matches(value, keyword), frequency)
}

/// `count:count_increment_word`: `first` matches once and `second` twice.
pub fn count_increment_word(value: &str, first: &Regex, second: &Regex) -> bool {
    matches(value, first) == 1 && matches(value, second) == 2
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn first_word_of_each_sentence_and_of_the_answer() {
        let kw = json!({"first_word": "Rain"});
        assert!(v(
            "first_word:first_word_sent",
            kw.clone(),
            "rain falls. RAIN stops!"
        ));
        assert!(!v(
            "first_word:first_word_sent",
            kw.clone(),
            "Rain falls. Then stops."
        ));
        assert!(!v("first_word:first_word_sent", kw.clone(), "Rain, falls."));
        assert!(v(
            "first_word:first_word_answer",
            kw.clone(),
            " rain then sun"
        ));
        // Punctuation stays on the word, as in the reference.
        assert!(!v(
            "first_word:first_word_answer",
            kw.clone(),
            "Rain, then sun"
        ));
        assert!(!v("first_word:first_word_answer", kw, "Sun, then rain"));
    }

    #[test]
    fn last_word_drops_punctuation() {
        let kw = json!({"last_word": "end"});
        assert!(v(
            "last_word:last_word_answer",
            kw.clone(),
            "This is the END!!"
        ));
        assert!(v("last_word:last_word_answer", kw.clone(), "the \"end\"."));
        assert!(!v("last_word:last_word_answer", kw.clone(), "the end now"));
        assert!(v(
            "last_word:last_word_sent",
            kw.clone(),
            "A good end. Another end!"
        ));
        assert!(!v(
            "last_word:last_word_sent",
            kw.clone(),
            "A good end. Another one."
        ));
        // A list of words uses its first word, as the reference does.
        let list = json!({"last_word": ["end", "x"]});
        assert!(v("last_word:last_word_sent", list, "The end."));
    }

    #[test]
    fn keyword_at_a_position_uses_sentences_then_tokens() {
        let kw = json!({"keyword": "cat", "n": 2, "m": 3});
        let id = "keywords:keyword_specific_position";
        assert!(v(id, kw.clone(), "Hello there. I saw cat today."));
        assert!(!v(id, kw.clone(), "Hello there. I saw Cat today."));
        assert!(!v(id, kw.clone(), "I saw cat today."));
        assert!(!v(id, kw, "Hello there. I saw"));
    }

    #[test]
    fn start_end_palindrome_and_adjacent_initials() {
        assert!(v("keywords:start_end", json!({}), "Hello world and hello"));
        assert!(!v(
            "keywords:start_end",
            json!({}),
            "Hello world and hello."
        ));
        assert!(!v("keywords:start_end", json!({}), "Hello"));
        assert!(v("keywords:palindrome", json!({}), "we saw a racecar"));
        assert!(!v("keywords:palindrome", json!({}), "no such thing"));
        let id = "keywords:no_adjacent_consecutive";
        assert!(v(id, json!({}), "cat egg zebra apple"));
        assert!(!v(id, json!({}), "cat dog"));
        assert!(!v(id, json!({}), "Apple banana"));
        assert!(v(id, json!({}), "banana apple"));
    }

    #[test]
    fn keyword_patterns_count_matches_case_insensitively() {
        let once = json!({"keyword": " sun "});
        assert!(v("keywords:word_once", once.clone(), "The SUN sets."));
        assert!(!v("keywords:word_once", once.clone(), "Sun and sunset."));
        let freq = json!({"keyword": "sun", "frequency": 2, "relation": "at least"});
        assert!(v(
            "keywords:word_count_different_numbers",
            freq.clone(),
            "sun sunset"
        ));
        assert!(!v("keywords:word_count_different_numbers", freq, "sun"));
        let inc = json!({"keyword1": "cat", "keyword2": "dog"});
        assert!(v(
            "count:count_increment_word",
            inc.clone(),
            "Cat, dog and DOG."
        ));
        assert!(!v("count:count_increment_word", inc, "cat dog"));
        let ex = json!({"keyword": "cat"});
        assert!(v(
            "keywords:exclude_word_harder",
            ex.clone(),
            "cat. A Cat. cats"
        ));
        assert!(!v("keywords:exclude_word_harder", ex, "a cat here"));
    }
}
