//! `ratio:*`: the share of stop words, sentence-type ratios, trigram overlap
//! with a reference text, and three sentences of equal length.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use crate::ifeval::kwargs::Args;
use crate::ifeval::length::count_words;
use crate::ifeval::sentences::split_into_sentences;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone)]
pub enum Ratio {
    StopWords {
        percentage: f64,
    },
    SentenceType,
    SentenceBalance,
    /// The reference text's character trigrams, collected once.
    Overlap {
        reference: HashSet<[char; 3]>,
        percentage: f64,
    },
    SentenceWords,
}

pub(super) fn parse(id: &str, a: &mut Args) -> Result<Ratio, IfevalError> {
    Ok(match id {
        "ratio:stop_words" => Ratio::StopWords {
            percentage: percentage(a)?,
        },
        "ratio:sentence_type" => Ratio::SentenceType,
        "ratio:sentence_balance" => Ratio::SentenceBalance,
        "ratio:overlap" => Ratio::Overlap {
            reference: trigrams(&a.text("reference_text")?),
            percentage: percentage(a)?,
        },
        "ratio:sentence_words" => Ratio::SentenceWords,
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

/// A percentage; the reference draws a negative one at random.
fn percentage(a: &mut Args) -> Result<f64, IfevalError> {
    match a.number("percentage")? {
        p if p < 0.0 => Err(a.bad("percentage", format!("must not be negative, found {p}"))),
        p => Ok(p),
    }
}

/// NLTK's English stop word list (`nltk_data` corpora/stopwords/english). Its
/// entries with an apostrophe (`don't`, `he'd`, …) are left out: the check
/// counts `\w+` tokens, which never hold one.
const STOP_WORDS: [&str; 153] = [
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "ain",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "couldn",
    "d",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "ll",
    "m",
    "ma",
    "me",
    "mightn",
    "more",
    "most",
    "mustn",
    "my",
    "myself",
    "needn",
    "no",
    "nor",
    "not",
    "now",
    "o",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "re",
    "s",
    "same",
    "shan",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "t",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "ve",
    "very",
    "was",
    "wasn",
    "we",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "won",
    "wouldn",
    "y",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

impl Ratio {
    pub fn check(&self, value: &str) -> bool {
        match self {
            Ratio::StopWords { percentage } => stop_words(value, *percentage),
            Ratio::SentenceType => {
                let [dot, question, _] = sentence_ends(value);
                dot == 2 * question
            }
            Ratio::SentenceBalance => {
                let [dot, question, bang] = sentence_ends(value);
                dot == question && question == bang
            }
            Ratio::Overlap {
                reference,
                percentage,
            } => overlap(value, reference, *percentage),
            Ratio::SentenceWords => sentence_words(value),
        }
    }
}

/// Stop words are at most `percentage`% of the `\w+` tokens (no token: the
/// reference divides by zero).
fn stop_words(value: &str, percentage: f64) -> bool {
    static WORD: OnceLock<Regex> = OnceLock::new();
    let word = WORD.get_or_init(|| Regex::new(r"\w+").expect("static pattern"));
    let total = count_words(value);
    if total == 0 {
        return false;
    }
    let stops = word
        .find_iter(value)
        .filter(|t| STOP_WORDS.contains(&t.as_str().to_lowercase().as_str()))
        .count();
    (stops as f64 / total as f64) * 100.0 <= percentage
}

/// How many sentences end in `.`, `?` and `!`.
fn sentence_ends(value: &str) -> [usize; 3] {
    let mut counts = [0; 3];
    for s in split_into_sentences(value) {
        match s.chars().last() {
            Some('.') => counts[0] += 1,
            Some('?') => counts[1] += 1,
            Some('!') => counts[2] += 1,
            _ => {}
        }
    }
    counts
}

/// `set(nltk.ngrams(text, 3))`: the text's distinct character trigrams.
fn trigrams(text: &str) -> HashSet<[char; 3]> {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
}

/// The share of the response's trigrams found in the reference is within two
/// points of `percentage` (a response without a trigram divides by zero).
fn overlap(value: &str, reference: &HashSet<[char; 3]>, percentage: f64) -> bool {
    let own = trigrams(value);
    if own.is_empty() {
        return false;
    }
    let shared = own.intersection(reference).count();
    let share = (shared as f64 / own.len() as f64) * 100.0;
    percentage - 2.0 <= share && share <= percentage + 2.0
}

/// Exactly three sentences with the same number of characters.
fn sentence_words(value: &str) -> bool {
    let sentences = split_into_sentences(value);
    let lens: Vec<usize> = sentences.iter().map(|s| s.chars().count()).collect();
    lens.len() == 3 && lens.iter().all(|&l| l == lens[0])
}

#[cfg(test)]
mod tests {
    use super::super::follows;
    use serde_json::json;

    #[test]
    fn stop_words_share() {
        let p = json!({"percentage": 50});
        assert!(follows("ratio:stop_words", p.clone(), "the cat sat down"));
        assert!(!follows(
            "ratio:stop_words",
            p.clone(),
            "the cat and the dog"
        ));
        assert!(!follows("ratio:stop_words", p, "..."));
    }

    #[test]
    fn sentence_types() {
        assert!(follows("ratio:sentence_type", json!({}), "Yes. No. Why?"));
        assert!(!follows("ratio:sentence_type", json!({}), "Yes. No? Why?"));
        assert!(follows(
            "ratio:sentence_balance",
            json!({}),
            "Yes. No? Wow!"
        ));
        assert!(!follows(
            "ratio:sentence_balance",
            json!({}),
            "Yes. No. Wow!"
        ));
        assert!(follows("ratio:sentence_words", json!({}), "Abc. Def! Ghi?"));
        assert!(!follows(
            "ratio:sentence_words",
            json!({}),
            "Abc. Defg! Ghi?"
        ));
    }

    #[test]
    fn trigram_overlap() {
        // "abcxyz" shares one of its four trigrams.
        let kw = json!({"reference_text": "abcdef", "percentage": 25});
        assert!(follows("ratio:overlap", kw.clone(), "abcxyz"));
        assert!(!follows("ratio:overlap", kw.clone(), "abcdef"));
        assert!(!follows("ratio:overlap", kw, "ab"));
    }
}
