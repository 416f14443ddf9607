//! NLTK's `word_tokenize`: Punkt sentences, then the improved Treebank rules
//! (`NLTKWordTokenizer`) on each. IFEval's `capital_word_frequency` counts the
//! all-uppercase tokens, so splits such as `CAN'T` → `CA`, `N'T` must match.
//!
//! The rules are NLTK's regexes in order. The ones that need look-around (a quote
//! opening a word, `wanna`) are written out by hand.

use std::sync::OnceLock;

use regex::Regex;

use super::punkt;
use super::pystr::split_whitespace;

struct Rule {
    re: Regex,
    with: &'static str,
}

/// NLTK compiles these with the `regex` module, whose `\s`, `\w` and `\b` are the
/// Unicode ones, as in Rust.
fn rule(pattern: &str, with: &'static str) -> Rule {
    Rule {
        re: Regex::new(pattern).expect("static pattern"),
        with,
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
            rule(r"([«“‘„]|[`]+)", " $1 "),
            rule(r#"^""#, "``"),
            rule(r"(``)", " $1 "),
            rule(r#"([ (\[{<])("|'{2})"#, "$1 `` "),
        ],
        punctuation: vec![
            rule(r#"([^.])(\.)([\])}>"'»”’ ]*)\s*$"#, "$1 $2 $3 "),
            rule(r"([:,])([^\d])", " $1 $2"),
            rule(r"([:,])$", " $1 "),
            rule(r"\.{2,}", " $0 "),
            rule(r"[;@#$%&]", " $0 "),
            rule(r"[\u{2012}-\u{2015}]", " $0 "),
            rule(r#"([^.])(\.)([\])}>"']*)\s*$"#, "$1 $2$3 "),
            rule(r"[?!]", " $0 "),
            rule(r"([^'])' ", "$1 ' "),
            rule(r"[*]", " $0 "),
            rule(r"[\]\[(){}<>]", " $0 "),
            rule(r"--", " -- "),
        ],
        ending_quotes: vec![
            rule(r"([»”’])", " $1 "),
            rule(r"''", " '' "),
            rule(r#"""#, " '' "),
            rule(r"\s+", " "),
            rule(r"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "),
            rule(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "),
        ],
        contractions: vec![
            rule(r"(?i)\b(can)(not)\b", " $1 $2 "),
            rule(r"(?i)\b(d)('ye)\b", " $1 $2 "),
            rule(r"(?i)\b(gim)(me)\b", " $1 $2 "),
            rule(r"(?i)\b(gon)(na)\b", " $1 $2 "),
            rule(r"(?i)\b(got)(ta)\b", " $1 $2 "),
            rule(r"(?i)\b(lem)(me)\b", " $1 $2 "),
            rule(r"(?i)\b(more)('n)\b", " $1 $2 "),
            // `(?=\s)` in NLTK: the space is consumed here and put back.
            rule(r"(?i)\b(wan)(na)(\s)", " $1 $2 $3"),
            rule(r"(?i) ('t)(is)\b", " $1 $2 "),
            rule(r"(?i) ('t)(was)\b", " $1 $2 "),
        ],
    })
}

fn apply(text: String, rules: &[Rule]) -> String {
    rules
        .iter()
        .fold(text, |t, r| r.re.replace_all(&t, r.with).into_owned())
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

/// `NLTKWordTokenizer().tokenize(sentence)`.
pub fn tokenize_sentence(sentence: &str) -> Vec<String> {
    let rules = rules();
    let text = apply(sentence.to_owned(), &rules.starting_quotes);
    let text = split_opening_quotes(&text);
    let text = apply(text, &rules.punctuation);
    let text = format!(" {text} ");
    let text = apply(text, &rules.ending_quotes);
    let text = apply(text, &rules.contractions);
    split_whitespace(&text).map(str::to_owned).collect()
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
