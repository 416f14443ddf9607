//! `sentence:*`: growing alliteration, a keyword in the Nth sentence, and a
//! fixed increment of words per sentence, on the reference's regex sentences.

use super::text::{bare_words, first_char, lstrip_punct};
use crate::ifeval::kwargs::Args;
use crate::ifeval::pystr::split_whitespace;
use crate::ifeval::sentences::split_into_sentences;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone)]
pub enum Sentence {
    AlliterationIncrement,
    /// `n` as given: 0 is Python's index -1, the last sentence.
    Keyword {
        word: String,
        n: u64,
    },
    Increment {
        step: u64,
    },
}

pub(super) fn parse(id: &str, a: &mut Args) -> Result<Sentence, IfevalError> {
    Ok(match id {
        "sentence:alliteration_increment" => Sentence::AlliterationIncrement,
        "sentence:keyword" => Sentence::Keyword {
            word: a.text("word")?,
            n: a.count("N")?,
        },
        "sentence:increment" => Sentence::Increment {
            step: a.count("small_n")?,
        },
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

impl Sentence {
    pub fn check(&self, value: &str) -> bool {
        match self {
            Sentence::AlliterationIncrement => alliteration_increment(value),
            Sentence::Keyword { word, n } => keyword(value, word, *n),
            Sentence::Increment { step } => increment(value, *step),
        }
    }
}

/// The alliteration score of one sentence: each run of k >= 2 consecutive words
/// sharing a first letter scores k.
fn alliteration(sentence: &str) -> i64 {
    let lower = sentence.to_lowercase();
    let firsts: Vec<char> = split_whitespace(&lower)
        .filter_map(|w| first_char(lstrip_punct(w)))
        .collect();
    let mut score = 0;
    let mut in_run = false;
    for pair in firsts.windows(2) {
        if pair[0] == pair[1] {
            score += if in_run { 1 } else { 2 };
            in_run = true;
        } else {
            in_run = false;
        }
    }
    score
}

fn alliteration_increment(value: &str) -> bool {
    let mut previous = -1;
    for sentence in split_into_sentences(value) {
        let score = alliteration(&sentence);
        if score <= previous {
            return false;
        }
        previous = score;
    }
    true
}

fn keyword(value: &str, word: &str, n: u64) -> bool {
    let sentences = split_into_sentences(value);
    let sentence = match n {
        0 => sentences.last(),
        n if (sentences.len() as u64) < n => None,
        n => sentences.get(n as usize - 1),
    };
    sentence.is_some_and(|s| s.to_lowercase().contains(&word.to_lowercase()))
}

/// Each sentence has exactly `step` more words (punctuation removed) than the
/// one before; no sentence at all is where the reference raises.
fn increment(value: &str, step: u64) -> bool {
    let sentences = split_into_sentences(value);
    if sentences.is_empty() {
        return false;
    }
    let counts: Vec<u64> = sentences
        .iter()
        .map(|s| bare_words(s).len() as u64)
        .collect();
    counts.windows(2).all(|p| p[1] == p[0] + step)
}

#[cfg(test)]
mod tests {
    use super::super::follows;
    use serde_json::json;

    #[test]
    fn alliteration_grows() {
        let id = "sentence:alliteration_increment";
        assert!(follows(
            id,
            json!({}),
            "No. Big bad wolf. Silly sad snake sang."
        ));
        assert!(!follows(id, json!({}), "Big bad wolf. No way."));
    }

    #[test]
    fn keyword_in_nth_sentence() {
        let kw = json!({"word": "Cat", "N": 2});
        assert!(follows("sentence:keyword", kw.clone(), "Hi. A cat. Bye."));
        assert!(!follows("sentence:keyword", kw, "A cat. Hi."));
    }

    #[test]
    fn words_increment() {
        let step = json!({"small_n": 1});
        assert!(follows(
            "sentence:increment",
            step.clone(),
            "Go. Go now. Go right now."
        ));
        assert!(!follows("sentence:increment", step, "Go. Go now. Go."));
    }
}
