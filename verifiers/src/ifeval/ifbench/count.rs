//! `count:*`: words in a range, unique words, conjunctions, names from a list,
//! numbers, punctuation cover, Japanese every Nth word, pronouns and keyword
//! multiplicities.

use std::collections::HashSet;

use super::text::{bare_words, drop_punct, is_decimal, is_digit, strip_punct};
use crate::ifeval::kwargs::Args;
use crate::ifeval::length::count_words;
use crate::ifeval::pystr::split_whitespace;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone)]
pub enum Count {
    WordCountRange {
        min: u64,
        max: u64,
    },
    UniqueWords {
        n: u64,
    },
    Conjunctions {
        n: u64,
    },
    PersonNames {
        n: u64,
    },
    Numbers {
        n: u64,
    },
    Punctuation,
    /// `n` is never 0 (the reference divides by it).
    WordsJapanese {
        n: u64,
    },
    Pronouns {
        n: u64,
    },
    /// Five stripped keywords, each wanted 1, 2, 3, 5 and 7 times.
    KeywordsMultiple {
        keywords: [String; 5],
    },
}

pub(super) fn parse(id: &str, a: &mut Args) -> Result<Count, IfevalError> {
    Ok(match id {
        "count:word_count_range" => Count::WordCountRange {
            min: a.count("min_words")?,
            max: a.count("max_words")?,
        },
        "count:unique_word_count" => Count::UniqueWords { n: a.count("N")? },
        "count:conjunctions" => Count::Conjunctions {
            n: a.count("small_n")?,
        },
        "count:person_names" => Count::PersonNames { n: a.count("N")? },
        "count:numbers" => Count::Numbers { n: a.count("N")? },
        "count:punctuation" => Count::Punctuation,
        "count:words_japanese" => match a.count("N")? {
            // `(i + 1) % 0` raises on the first word: nothing follows it.
            0 => return Err(a.bad("N", "must be at least 1")),
            n => Count::WordsJapanese { n },
        },
        "count:pronouns" => Count::Pronouns { n: a.count("N")? },
        "count:keywords_multiple" => {
            let mut take = |k: &str| a.text(k).map(|w| strip(&w));
            Count::KeywordsMultiple {
                keywords: [
                    take("keyword1")?,
                    take("keyword2")?,
                    take("keyword3")?,
                    take("keyword4")?,
                    take("keyword5")?,
                ],
            }
        }
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

fn strip(s: &str) -> String {
    crate::ifeval::pystr::strip(s).to_owned()
}

const CONJUNCTIONS: [&str; 7] = ["and", "but", "for", "nor", "or", "so", "yet"];

const PERSON_NAMES: [&str; 50] = [
    "Emma",
    "Liam",
    "Sophia",
    "Jackson",
    "Olivia",
    "Noah",
    "Ava",
    "Lucas",
    "Isabella",
    "Mason",
    "Mia",
    "Ethan",
    "Charlotte",
    "Alexander",
    "Amelia",
    "Benjamin",
    "Harper",
    "Leo",
    "Zoe",
    "Daniel",
    "Chloe",
    "Samuel",
    "Lily",
    "Matthew",
    "Grace",
    "Owen",
    "Abigail",
    "Gabriel",
    "Ella",
    "Jacob",
    "Scarlett",
    "Nathan",
    "Victoria",
    "Elijah",
    "Layla",
    "Nicholas",
    "Audrey",
    "David",
    "Hannah",
    "Christopher",
    "Penelope",
    "Thomas",
    "Nora",
    "Andrew",
    "Aria",
    "Joseph",
    "Claire",
    "Ryan",
    "Stella",
    "Jonathan",
];

const PRONOUNS: [&str; 31] = [
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "we",
    "us",
    "our",
    "ours",
    "ourselves",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "her",
    "hers",
    "herself",
    "it",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
];

impl Count {
    pub fn check(&self, value: &str) -> bool {
        match self {
            Count::WordCountRange { min, max } => {
                (*min..=*max).contains(&(count_words(value) as u64))
            }
            Count::UniqueWords { n } => unique_words(value) >= *n,
            Count::Conjunctions { n } => conjunctions(value) >= *n,
            Count::PersonNames { n } => {
                PERSON_NAMES.iter().filter(|p| value.contains(*p)).count() as u64 >= *n
            }
            Count::Numbers { n } => numbers(value) == *n,
            Count::Punctuation => punctuation_cover(value),
            Count::WordsJapanese { n } => words_japanese(value, *n),
            Count::Pronouns { n } => pronouns(value) >= *n,
            Count::KeywordsMultiple { keywords } => keywords_multiple(value, keywords),
        }
    }
}

/// Distinct lowercased words stripped of punctuation (a word of punctuation
/// alone counts once, as the empty word).
fn unique_words(value: &str) -> u64 {
    let lower = value.to_lowercase();
    let set: HashSet<&str> = split_whitespace(&lower).map(strip_punct).collect();
    set.len() as u64
}

/// Distinct words (as written, with their punctuation) that are a
/// coordinating conjunction once stripped and lowercased.
fn conjunctions(value: &str) -> u64 {
    let set: HashSet<&str> = split_whitespace(value)
        .filter(|w| CONJUNCTIONS.contains(&strip_punct(w).to_lowercase().as_str()))
        .collect();
    set.len() as u64
}

/// Runs of `\d` (Unicode decimal digits) once punctuation is removed, so
/// `3.14` and `1,000` are one number each.
fn numbers(value: &str) -> u64 {
    let mut count = 0;
    let mut in_number = false;
    for c in drop_punct(value).chars() {
        let digit = is_decimal(c);
        count += u64::from(digit && !in_number);
        in_number = digit;
    }
    count
}

/// Every one of `. , ! ? ; :` and an interrobang (`?!`, `!?` or `‽`); the
/// first `?!` (else `!?`) does not count towards `?` and `!`.
fn punctuation_cover(value: &str) -> bool {
    if !(value.contains("!?") || value.contains("?!") || value.contains('‽')) {
        return false;
    }
    let rest = match value.replacen("?!", "", 1) {
        r if r.len() != value.len() => r,
        _ => value.replacen("!?", "", 1),
    };
    ['.', ',', '!', '?', ';', ':']
        .iter()
        .all(|p| rest.contains(*p))
}

fn is_japanese(word: &str) -> bool {
    word.chars()
        .any(|c| matches!(c, '\u{3040}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}'))
}

/// Every `n`th whitespace word, stripped, is Japanese unless empty or digits.
fn words_japanese(value: &str, n: u64) -> bool {
    split_whitespace(value).enumerate().all(|(i, word)| {
        let word = strip_punct(word);
        !(i as u64 + 1).is_multiple_of(n) || word.is_empty() || is_digit(word) || is_japanese(word)
    })
}

fn pronouns(value: &str) -> u64 {
    // `/` becomes a space first so `she/her` counts twice.
    let text = value.replace('/', " ").to_lowercase();
    bare_words(&text)
        .iter()
        .filter(|w| PRONOUNS.contains(&w.as_str()))
        .count() as u64
}

/// `value.lower().count(keyword.lower())` is 1, 2, 3, 5 and 7 (non-overlapping
/// occurrences; an empty keyword occurs at every character boundary).
fn keywords_multiple(value: &str, keywords: &[String; 5]) -> bool {
    let lower = value.to_lowercase();
    keywords
        .iter()
        .zip([1, 2, 3, 5, 7])
        .all(|(k, n)| lower.matches(k.to_lowercase().as_str()).count() == n)
}

#[cfg(test)]
mod tests {
    use super::super::follows;
    use serde_json::json;

    #[test]
    fn word_and_unique_counts() {
        let range = json!({"min_words": 3, "max_words": 4});
        assert!(follows(
            "count:word_count_range",
            range.clone(),
            "one two three"
        ));
        assert!(!follows("count:word_count_range", range, "one two"));
        let n = json!({"N": 3});
        assert!(follows("count:unique_word_count", n.clone(), "a b, B c"));
        assert!(!follows("count:unique_word_count", n, "a A a. b"));
    }

    #[test]
    fn conjunctions_names_numbers() {
        let n = json!({"small_n": 2});
        assert!(follows(
            "count:conjunctions",
            n.clone(),
            "tea and cake, but no"
        ));
        assert!(!follows("count:conjunctions", n, "tea and cake and pie"));
        let n = json!({"N": 2});
        assert!(follows("count:person_names", n.clone(), "Emma met Liam."));
        assert!(!follows("count:person_names", n, "Emma met emma."));
        let n = json!({"N": 2});
        assert!(follows(
            "count:numbers",
            n.clone(),
            "Pay 3.50 for 1,000 items."
        ));
        assert!(!follows("count:numbers", n, "Pay 3 and 4 and 5."));
    }

    #[test]
    fn punctuation_japanese_pronouns_keywords() {
        assert!(follows(
            "count:punctuation",
            json!({}),
            "Yes, a; b: c. Really?! Wow! Why?"
        ));
        assert!(!follows(
            "count:punctuation",
            json!({}),
            "Yes, a; b: c. Really?!"
        ));
        let n = json!({"N": 2});
        assert!(follows(
            "count:words_japanese",
            n.clone(),
            "I 猫 see 12 a ねこ"
        ));
        assert!(!follows("count:words_japanese", n, "I cat see"));
        let n = json!({"N": 3});
        assert!(follows("count:pronouns", n.clone(), "she/her said it"));
        assert!(!follows("count:pronouns", n, "she said so"));
        let kw = json!({"keyword1": "a1", "keyword2": "b2", "keyword3": "c3",
            "keyword4": "d4", "keyword5": "e5"});
        let ok = "a1 b2 B2 c3 c3 c3 d4 d4 d4 d4 d4 e5 e5 e5 e5 e5 e5 e5";
        assert!(follows("count:keywords_multiple", kw.clone(), ok));
        assert!(!follows(
            "count:keywords_multiple",
            kw,
            &ok.replace("a1 ", "")
        ));
    }
}
