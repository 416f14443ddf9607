//! `words:*`: letter patterns over the words (alphabet loop, vowels, consonant
//! clusters, palindromes, prime lengths, first letters), repetition limits,
//! syllable parity, sentence and paragraph ends, and keyword positions.

use std::collections::HashMap;

use super::syllables;
use super::text::{bare_words, first_char, lstrip_punct, rstrip_punct, strip_punct};
use crate::ifeval::kwargs::Args;
use crate::ifeval::pystr::{split_whitespace, strip};
use crate::ifeval::sentences::split_into_sentences;
use crate::ifeval::treebank::word_tokenize;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone)]
pub enum Words {
    Alphabet,
    Vowel,
    Consonants,
    Palindrome,
    PrimeLengths,
    Repeats {
        max: u64,
    },
    OddEvenSyllables,
    LastFirst,
    ParagraphLastFirst,
    NoConsecutive,
    /// `n` and `m` are 1-based and never 0.
    KeywordPosition {
        keyword: String,
        n: u64,
        m: u64,
    },
    SecondAndSecondLast {
        keyword: String,
    },
}

pub(super) fn parse(id: &str, a: &mut Args) -> Result<Words, IfevalError> {
    Ok(match id {
        "words:alphabet" => Words::Alphabet,
        "words:vowel" => Words::Vowel,
        "words:consonants" => Words::Consonants,
        "words:palindrome" => Words::Palindrome,
        "words:prime_lengths" => Words::PrimeLengths,
        "words:repeats" => Words::Repeats {
            max: a.count("small_n")?,
        },
        "words:odd_even_syllables" => Words::OddEvenSyllables,
        "words:last_first" => Words::LastFirst,
        "words:paragraph_last_first" => Words::ParagraphLastFirst,
        "words:no_consecutive" => Words::NoConsecutive,
        "words:keywords_specific_position" => Words::KeywordPosition {
            keyword: strip(&a.text("keyword")?).to_owned(),
            n: positive(a, "n")?,
            m: positive(a, "m")?,
        },
        "words:words_position" => Words::SecondAndSecondLast {
            keyword: strip(&a.text("keyword")?).to_owned(),
        },
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

/// A 1-based position; the reference draws a 0 at random.
fn positive(a: &mut Args, kwarg: &str) -> Result<u64, IfevalError> {
    match a.count(kwarg)? {
        0 => Err(a.bad(kwarg, "must be at least 1")),
        n => Ok(n),
    }
}

impl Words {
    pub fn check(&self, value: &str) -> bool {
        match self {
            Words::Alphabet => alphabet(value),
            Words::Vowel => vowel(value),
            Words::Consonants => consonants(value),
            Words::Palindrome => palindromes(value) >= 10,
            Words::PrimeLengths => bare_words(value)
                .iter()
                .all(|w| is_small_prime(w.chars().count())),
            Words::Repeats { max } => repeats(value, *max),
            Words::OddEvenSyllables => odd_even_syllables(value),
            Words::LastFirst => last_first(value),
            Words::ParagraphLastFirst => paragraph_last_first(value),
            Words::NoConsecutive => no_consecutive(value),
            Words::KeywordPosition { keyword, n, m } => keyword_position(value, keyword, *n, *m),
            Words::SecondAndSecondLast { keyword } => {
                let words = word_tokenize(value);
                words.len() >= 2 && words[1] == *keyword && words[words.len() - 2] == *keyword
            }
        }
    }
}

/// Each word starts with the letter after the previous word's first letter
/// (z wraps to a); the first must start with a-z.
fn alphabet(value: &str) -> bool {
    let words = bare_words(value);
    let Some(first) = words.first() else {
        return false;
    };
    let mut letter = match first_char(first).map(|c| c.to_lowercase().collect::<String>()) {
        Some(l) if l.len() == 1 && l.as_bytes()[0].is_ascii_lowercase() => l.as_bytes()[0],
        _ => return false,
    };
    for word in &words[1..] {
        let word = strip_punct(word).to_lowercase();
        let Some(c) = first_char(&word) else {
            continue;
        };
        letter = b'a' + (letter - b'a' + 1) % 26;
        if c != char::from(letter) {
            return false;
        }
    }
    true
}

/// One line (once stripped) using at most three of the vowels a, e, i, o, u.
fn vowel(value: &str) -> bool {
    let text = strip(value);
    if text.contains('\n') {
        return false;
    }
    let lower = text.to_lowercase();
    let used = ['a', 'e', 'i', 'o', 'u']
        .iter()
        .filter(|v| lower.contains(**v))
        .count();
    used <= 3
}

fn is_consonant(c: char) -> bool {
    "bcdfghjklmnpqrstvwxyz".contains(c)
}

/// Every whitespace word holds two ASCII consonants in a row.
fn consonants(value: &str) -> bool {
    let lower = value.to_lowercase();
    let clustered = split_whitespace(&lower).all(|w| {
        let chars: Vec<char> = w.chars().collect();
        chars
            .windows(2)
            .any(|p| is_consonant(p[0]) && is_consonant(p[1]))
    });
    clustered
}

/// Words of five or more characters that read the same backwards.
fn palindromes(value: &str) -> usize {
    bare_words(&value.to_lowercase())
        .iter()
        .filter(|w| {
            let chars: Vec<char> = w.chars().collect();
            chars.len() >= 5 && chars.iter().eq(chars.iter().rev())
        })
        .count()
}

/// The reference's prime table stops at 97: longer words never pass.
fn is_small_prime(n: usize) -> bool {
    (2..=97).contains(&n)
        && (2..n)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

fn repeats(value: &str, max: u64) -> bool {
    let mut counts: HashMap<String, u64> = HashMap::new();
    for w in bare_words(&value.to_lowercase()) {
        *counts.entry(w).or_default() += 1;
    }
    counts.values().all(|&c| c <= max)
}

/// Consecutive words alternate odd and even syllable counts (`syllapy`).
fn odd_even_syllables(value: &str) -> bool {
    let parities: Vec<u32> = bare_words(&value.to_lowercase())
        .iter()
        .map(|w| syllables::count(w) % 2)
        .collect();
    parities.windows(2).all(|p| p[0] != p[1])
}

/// Each sentence's last word is the next sentence's first word (ignoring case);
/// a sentence of punctuation alone has no word, where the reference raises.
fn last_first(value: &str) -> bool {
    let sentences = split_into_sentences(value);
    sentences.windows(2).all(|pair| {
        let last = split_whitespace(rstrip_punct(&pair[0])).last();
        let first = split_whitespace(lstrip_punct(&pair[1])).next();
        match (last, first) {
            (Some(l), Some(f)) => l.to_lowercase() == f.to_lowercase(),
            _ => false,
        }
    })
}

/// Each line that has words starts and ends with the same word (lowercased,
/// line stripped of punctuation).
fn paragraph_last_first(value: &str) -> bool {
    value.split('\n').all(|p| {
        let p = strip(p).to_lowercase();
        let mut words = split_whitespace(strip_punct(&p));
        match words.next() {
            None => true,
            Some(first) => words.last().unwrap_or(first) == first,
        }
    })
}

fn no_consecutive(value: &str) -> bool {
    let words = bare_words(&value.to_lowercase());
    words
        .windows(2)
        .all(|p| first_char(&p[0]) != first_char(&p[1]))
}

/// The `m`th `word_tokenize` token of the `n`th sentence is `keyword`.
fn keyword_position(value: &str, keyword: &str, n: u64, m: u64) -> bool {
    let sentences = split_into_sentences(value);
    let Some(sentence) = sentences.get(n as usize - 1) else {
        return false;
    };
    let words = word_tokenize(sentence);
    words.get(m as usize - 1).is_some_and(|w| w == keyword)
}

#[cfg(test)]
mod tests {
    use super::super::pair;
    use serde_json::json;

    #[test]
    fn letter_patterns() {
        pair(
            "words:alphabet",
            json!({}),
            "Yes, zebras: apples bite.",
            "Apples cost dear, eh.",
        );
        pair(
            "words:vowel",
            json!({}),
            "A cat sat on a mat",
            "A cat sat\non a mat",
        );
        pair(
            "words:consonants",
            json!({}),
            "Strong trees",
            "Strong tree a",
        );
        let p = "level civic radar refer kayak madam rotor stats tenet sagas";
        pair("words:palindrome", json!({}), p, "level civic radar");
        pair(
            "words:prime_lengths",
            json!({}),
            "We are all set",
            "We are all here",
        );
        pair(
            "words:no_consecutive",
            json!({}),
            "A big cat",
            "A big bad cat",
        );
    }

    #[test]
    fn repeats_and_syllables() {
        let max = json!({"small_n": 2});
        pair(
            "words:repeats",
            max,
            "the cat, the dog",
            "The cat, the dog, the end",
        );
        pair(
            "words:odd_even_syllables",
            json!({}),
            "cat apple dog",
            "cat dog apple",
        );
    }

    #[test]
    fn sentence_and_paragraph_ends() {
        pair(
            "words:last_first",
            json!({}),
            "I saw it. It was big.",
            "I saw it. Then I left.",
        );
        pair(
            "words:paragraph_last_first",
            json!({}),
            "go now go\n\nstay or stay",
            "go now",
        );
    }

    #[test]
    fn keyword_positions() {
        let kw = json!({"keyword": "cat", "n": 2, "m": 3});
        pair(
            "words:keywords_specific_position",
            kw,
            "Hi. I see cat.",
            "Hi. I cat.",
        );
        let kw = json!({"keyword": "big"});
        pair(
            "words:words_position",
            kw,
            "A big dog is big .",
            "A big dog .",
        );
    }
}
