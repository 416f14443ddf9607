//! `count:*` and `letters:letter_counting` of the `verifiable_instructions`
//! registry: lowercase words, letters, unique tokens, and paragraphs of fixed
//! sentence and word counts.

use std::sync::OnceLock;

use regex::Regex;

use super::length::paragraph_divider;
use super::pystr::strip;
use super::relation::Relation;
use super::sentences::split_into_sentences;
use super::treebank::word_tokenize;

/// Python's `\w` for one character: letters, numbers and underscore.
fn is_word(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"^[\p{L}\p{N}_]$").expect("static pattern"));
    let mut buf = [0u8; 4];
    re.is_match(c.encode_utf8(&mut buf))
}

/// `re.findall(r"\b[a-z]+\b", value)` counted: runs of ASCII lowercase letters
/// with no word character (Python's `\w`) touching either end. A run that a
/// word character touches cannot match anywhere: every shorter piece of it has
/// a letter on the side that would need the boundary.
pub fn lowercase_words(value: &str) -> u64 {
    let chars: Vec<char> = value.chars().collect();
    let mut count = 0;
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_lowercase() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_lowercase() {
            i += 1;
        }
        let open = start == 0 || !is_word(chars[start - 1]);
        let close = i == chars.len() || !is_word(chars[i]);
        count += u64::from(open && close);
    }
    count
}

/// `count:lowercase_counting`: at most `n` lowercase words.
pub fn lowercase_counting(value: &str, n: u64) -> bool {
    lowercase_words(value) <= n
}

/// `letters:letter_counting`: ASCII letters counted against the threshold.
pub fn letter_counting(value: &str, n: u64, relation: Relation) -> bool {
    let letters = value.chars().filter(char::is_ascii_alphabetic).count();
    relation.holds(letters as u64, n)
}

/// `count:count_unique`: no NLTK token appears twice.
pub fn count_unique(value: &str) -> bool {
    let tokens = word_tokenize(value);
    let unique: std::collections::HashSet<&String> = tokens.iter().collect();
    unique.len() == tokens.len()
}

/// `count:counting_composition`: three `***`-separated paragraphs, each of
/// `n_sent` sentences of `n_words` tokens. As in the reference, an empty first or
/// last piece is not a paragraph yet must still hold `n_sent` sentences, so it
/// fails unless `n_sent` is 0.
pub fn counting_composition(value: &str, n_sent: u64, n_words: u64) -> bool {
    let pieces: Vec<&str> = paragraph_divider().split(value).collect();
    let mut paragraphs = pieces.len();
    for (index, piece) in pieces.iter().enumerate() {
        if strip(piece).is_empty() {
            if index == 0 || index == pieces.len() - 1 {
                paragraphs -= 1;
            } else {
                return false;
            }
        }
        let sentences = split_into_sentences(piece);
        if sentences.len() as u64 != n_sent {
            return false;
        }
        if sentences
            .iter()
            .any(|s| word_tokenize(s).len() as u64 != n_words)
        {
            return false;
        }
    }
    paragraphs == 3
}

#[cfg(test)]
mod tests {
    use super::lowercase_words;
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn lowercase_words_need_python_word_boundaries() {
        assert_eq!(lowercase_words("the cat sat"), 3);
        assert_eq!(lowercase_words("The Cat sat_ on caf\u{e9} x2 don't"), 3); // on, don, t
        assert!(v("count:lowercase_counting", json!({"N": 3}), "a b c D"));
        assert!(!v("count:lowercase_counting", json!({"N": 3}), "a b c d"));
    }

    #[test]
    fn letter_counting_counts_ascii_letters() {
        let kw = |n: u64, rel: &str| json!({"N": n, "relation": rel});
        assert!(v(
            "letters:letter_counting",
            kw(5, "at least"),
            "ab, c-d é e1"
        ));
        assert!(!v(
            "letters:letter_counting",
            kw(6, "at least"),
            "ab, c-d é e1"
        ));
        assert!(v(
            "letters:letter_counting",
            kw(6, "less than"),
            "ab, c-d é e1"
        ));
        // letter_counting2 is IFEval's letter_frequency under another id.
        let lf = json!({"letter": "a", "let_frequency": 2, "let_relation": "at least"});
        assert!(v("letters:letter_counting2", lf, "banana"));
    }

    #[test]
    fn unique_tokens() {
        assert!(v("count:count_unique", json!({}), "One two three."));
        assert!(!v("count:count_unique", json!({}), "One two. Three."));
        assert!(v("count:count_unique", json!({}), "One one"));
    }

    #[test]
    fn counting_composition_paragraphs_sentences_words() {
        let kw = json!({"n_sent": 2, "n_words": 2});
        let id = "count:counting_composition";
        let p = "Cats purr. Dogs bark.";
        assert!(!v(id, kw.clone(), &format!("{p} *** {p} *** {p}")));
        let p = "Cats purr Dogs bark";
        assert!(!v(id, kw.clone(), &format!("{p}\n***\n{p}\n***\n{p}")));
        let kw = json!({"n_sent": 2, "n_words": 3});
        let p = "Cats purr. Dogs bark.";
        assert!(v(id, kw.clone(), &format!("{p}\n***\n{p}\n***\n{p}")));
        assert!(!v(id, kw.clone(), &format!("{p}\n***\n{p}")));
        assert!(!v(id, kw, &format!("***\n{p}\n***\n{p}\n***\n{p}")));
    }
}
