//! NLTK's `word_tokenize`: Punkt sentences, then the improved Treebank rules
//! (`NLTKWordTokenizer`) on each. IFEval's `capital_word_frequency` counts the
//! all-uppercase tokens, so splits such as `CAN'T` → `CA`, `N'T` must match.
//!
//! The rules are NLTK's regexes in order. The ones that need look-around (a quote
//! opening a word, `wanna`) are written out by hand.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use super::punkt;
use super::pystr::{is_upper, split_whitespace};

struct Rule {
    re: Regex,
    with: &'static str,
    /// A lowercase literal every match contains; the rule is skipped when the
    /// lowercased text lacks it (Unicode `\b` makes these patterns slow).
    needle: Option<&'static str>,
    /// Characters of which every match contains one; the rule is skipped when
    /// the text has none (most texts need few of the rules).
    needs: &'static str,
}

/// NLTK compiles these with the `regex` module, whose `\s`, `\w` and `\b` are the
/// Unicode ones, as in Rust.
fn rule(pattern: &str, with: &'static str, needs: &'static str) -> Rule {
    Rule {
        re: Regex::new(pattern).expect("static pattern"),
        with,
        needle: None,
        needs,
    }
}

fn contraction(pattern: &str, with: &'static str, needle: &'static str) -> Rule {
    Rule {
        needle: Some(needle),
        ..rule(pattern, with, "")
    }
}

struct Rules {
    starting_quotes: Vec<Rule>,
    punctuation: Vec<Rule>,
    ending_quotes: Vec<Rule>,
    contractions: Vec<Rule>,
}

fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| Rules {
        starting_quotes: vec![
            rule(r"([«“‘„]|[`]+)", " $1 ", "«“‘„`"),
            rule(r#"^""#, "``", "\""),
            rule(r"(``)", " $1 ", "`"),
            rule(r#"([ (\[{<])("|'{2})"#, "$1 `` ", "\"'"),
        ],
        punctuation: vec![
            rule(r#"([^.])(\.)([\])}>"'»”’ ]*)\s*$"#, "$1 $2 $3 ", "."),
            rule(r"([:,])([^\d])", " $1 $2", ":,"),
            rule(r"([:,])$", " $1 ", ":,"),
            rule(r"\.{2,}", " $0 ", "."),
            rule(r"[;@#$%&]", " $0 ", ";@#$%&"),
            rule(
                r"[\u{2012}-\u{2015}]",
                " $0 ",
                "\u{2012}\u{2013}\u{2014}\u{2015}",
            ),
            rule(r#"([^.])(\.)([\])}>"']*)\s*$"#, "$1 $2$3 ", "."),
            rule(r"[?!]", " $0 ", "?!"),
            rule(r"([^'])' ", "$1 ' ", "'"),
            rule(r"[*]", " $0 ", "*"),
            rule(r"[\]\[(){}<>]", " $0 ", "[](){}<>"),
            rule(r"--", " -- ", "-"),
        ],
        ending_quotes: vec![
            rule(r"([»”’])", " $1 ", "»”’"),
            rule(r"''", " '' ", "'"),
            rule(r#"""#, " '' ", "\""),
            rule(r"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 ", "'"),
            rule(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 ", "'"),
        ],
        contractions: vec![
            contraction(r"(?i)\b(can)(not)\b", " $1 $2 ", "cannot"),
            contraction(r"(?i)\b(d)('ye)\b", " $1 $2 ", "d'ye"),
            contraction(r"(?i)\b(gim)(me)\b", " $1 $2 ", "gimme"),
            contraction(r"(?i)\b(gon)(na)\b", " $1 $2 ", "gonna"),
            contraction(r"(?i)\b(got)(ta)\b", " $1 $2 ", "gotta"),
            contraction(r"(?i)\b(lem)(me)\b", " $1 $2 ", "lemme"),
            contraction(r"(?i)\b(more)('n)\b", " $1 $2 ", "more'n"),
            // `(?=\s)` in NLTK: the space is consumed here and put back.
            contraction(r"(?i)\b(wan)(na)(\s)", " $1 $2 $3", "wanna"),
            contraction(r"(?i) ('t)(is)\b", " $1 $2 ", "'tis"),
            contraction(r"(?i) ('t)(was)\b", " $1 $2 ", "'twas"),
        ],
    })
}

/// Which characters a text holds: a bit per ASCII character, plus the others.
struct Present {
    ascii: u128,
    other: Vec<char>,
}

impl Present {
    fn of(text: &str) -> Self {
        let mut p = Present {
            ascii: 0,
            other: Vec::new(),
        };
        for c in text.chars() {
            if c.is_ascii() {
                p.ascii |= 1 << (c as u32);
            } else if !p.other.contains(&c) {
                p.other.push(c);
            }
        }
        p
    }

    fn any(&self, chars: &str) -> bool {
        chars.chars().any(|c| {
            if c.is_ascii() {
                self.ascii & (1 << (c as u32)) != 0
            } else {
                self.other.contains(&c)
            }
        })
    }
}

fn apply(text: String, rules: &[Rule]) -> String {
    let lower = rules
        .iter()
        .any(|r| r.needle.is_some())
        .then(|| text.to_lowercase());
    let mut present = Present::of(&text);
    rules.iter().fold(text, |t, r| {
        let skip = match (r.needle, &lower) {
            (Some(needle), Some(lower)) => !lower.contains(needle),
            _ => !r.needs.is_empty() && !present.any(r.needs),
        };
        if skip {
            return t;
        }
        // Keep the text (no copy) when nothing matched.
        let replaced = match r.re.replace_all(&t, r.with) {
            Cow::Owned(o) => Some(o),
            Cow::Borrowed(_) => None,
        };
        match replaced {
            Some(o) => {
                present = Present::of(&o);
                o
            }
            None => t,
        }
    })
}

/// `\w` of the `regex` module (Unicode: letters, marks, digits, connectors).
fn is_word(c: char) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"^\w$").expect("static pattern"));
    let mut buf = [0u8; 4];
    re.is_match(c.encode_utf8(&mut buf))
}

/// `(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)` → `' `: a quote that opens
/// a word, unless it begins a contraction.
fn split_opening_quotes(text: &str) -> String {
    if !text.contains('\'') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        out.push(c);
        if c == '\'' && !prev.is_some_and(is_word) {
            let rest = &text[i + 1..];
            let opens_word = rest.chars().next().is_some_and(is_word);
            let contraction = ["re", "ve", "ll", "m", "t", "s", "d", "n"]
                .iter()
                .any(|suffix| {
                    rest.get(..suffix.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(suffix))
                        && !rest[suffix.len()..].chars().next().is_some_and(is_word)
                });
            if opens_word && !contraction {
                out.push(' ');
            }
        }
        prev = Some(c);
    }
    out
}

/// Every run of Unicode whitespace becomes one space (`re.sub(r"\s+", " ", text)`).
fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// `NLTKWordTokenizer().tokenize(sentence)`.
pub fn tokenize_sentence(sentence: &str) -> Vec<String> {
    let rules = rules();
    let text = apply(sentence.to_owned(), &rules.starting_quotes);
    let text = split_opening_quotes(&text);
    let text = apply(text, &rules.punctuation);
    let text = format!(" {text} ");
    let text = apply(text, &rules.ending_quotes[..3]);
    // NLTK's `\s+` → " " rule, in one pass.
    let text = collapse_whitespace(&text);
    let text = apply(text, &rules.ending_quotes[3..]);
    let text = apply(text, &rules.contractions);
    split_whitespace(&text).map(str::to_owned).collect()
}

/// Most sentences remembered per thread by [`count_upper_tokens`]; the memo is
/// emptied when full.
const MEMO_CAPACITY: usize = 4096;

/// Longest sentence (bytes) the memo keeps, so it stays within a few MB per thread.
const MEMO_MAX_SENTENCE: usize = 1024;

thread_local! {
    static UPPER_MEMO: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
}

/// The number of all-uppercase tokens (Python `isupper`) of `nltk.word_tokenize(text)`.
/// Sentences are tokenized independently, so each sentence's count is memoised:
/// the loose variants of a response share all but their first or last sentences.
pub fn count_upper_tokens(text: &str) -> usize {
    punkt::sentences(text)
        .into_iter()
        .map(|sentence| {
            let cached = UPPER_MEMO.with(|m| m.borrow().get(sentence).copied());
            cached.unwrap_or_else(|| {
                let count = tokenize_sentence(sentence)
                    .iter()
                    .filter(|t| is_upper(t))
                    .count();
                if sentence.len() <= MEMO_MAX_SENTENCE {
                    UPPER_MEMO.with(|m| {
                        let mut m = m.borrow_mut();
                        if m.len() >= MEMO_CAPACITY {
                            m.clear();
                        }
                        m.insert(sentence.to_owned(), count);
                    });
                }
                count
            })
        })
        .sum()
}

/// `nltk.word_tokenize(text)`.
pub fn word_tokenize(text: &str) -> Vec<String> {
    punkt::sentences(text)
        .into_iter()
        .flat_map(tokenize_sentence)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn treebank_splits_contractions_and_punctuation() {
        assert_eq!(
            word_tokenize("I CAN'T go, \"REALLY\" (no). They're 'fine' cannot."),
            [
                "I", "CA", "N'T", "go", ",", "``", "REALLY", "''", "(", "no", ")", ".", "They",
                "'re", "'", "fine", "'", "can", "not", "."
            ]
        );
    }
}
