//! The reference's regex sentence splitter (`instructions_util.split_into_sentences`),
//! used by the `verifiable_instructions` checks (first and last word of each
//! sentence, hyphen-joined sentences, keyword positions, counting composition).
//!
//! It is not NLTK's Punkt (see [`super::punkt`]): it protects abbreviations,
//! decimals, websites and initials by rewriting their dots to `<prd>`, marks every
//! remaining `.`, `?` and `!` as a sentence end, and splits there. Each step is one
//! left-to-right `re.sub` or `str.replace` pass over the text, so the whole split is
//! linear in the input; the passes are done in the reference's order because later
//! ones see the markers the earlier ones wrote (text that itself contains `<prd>`
//! or `<stop>` is rewritten exactly as the reference rewrites it).

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Captures, Regex};

use super::pyregex::SPACE;
use super::pystr::strip;

const ALPHABETS: &str = "([A-Za-z])";
const PREFIXES: &str = "(Mr|St|Mrs|Ms|Dr)[.]";
const SUFFIXES: &str = "(Inc|Ltd|Jr|Sr|Co)";
const ACRONYMS: &str = "([A-Z][.][A-Z][.](?:[A-Z][.])?)";
const WEBSITES: &str = "[.](com|net|org|io|gov|edu|me)";
const DIGITS: &str = "([0-9])";

/// The reference's sentence starters; its `\s` is Python's, hence the class.
fn starters() -> String {
    let s = format!("[{SPACE}]");
    format!(
        "(Mr|Mrs|Ms|Dr|Prof|Capt|Cpt|Lt|He{s}|She{s}|It{s}|They{s}|Their{s}|Our{s}|We{s}|But{s}|However{s}|That{s}|This{s}|Wherever)"
    )
}

/// The `re.sub` passes, in order: pattern and replacement (`${n}` groups).
fn passes() -> &'static [(Regex, &'static str)] {
    static PASSES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    PASSES.get_or_init(|| {
        let st = starters();
        let a = ALPHABETS;
        let rules: Vec<(String, &'static str)> = vec![
            (format!("[{SPACE}]{a}[.] "), " ${1}<prd> "),
            (format!("{ACRONYMS} {st}"), "${1}<stop> ${2}"),
            (format!("{a}[.]{a}[.]{a}[.]"), "${1}<prd>${2}<prd>${3}<prd>"),
            (format!("{a}[.]{a}[.]"), "${1}<prd>${2}<prd>"),
            (format!(" {SUFFIXES}[.] {st}"), " ${1}<stop> ${2}"),
            (format!(" {SUFFIXES}[.]"), " ${1}<prd>"),
            (format!(" {a}[.]"), " ${1}<prd>"),
        ];
        rules
            .into_iter()
            .map(|(p, r)| (Regex::new(&p).expect("static pattern"), r))
            .collect()
    })
}

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("static pattern"))
}

/// Passes before the `Ph.D.` rule: prefixes, websites, decimals, runs of dots.
fn protect_dots(text: &str) -> String {
    static PREFIX: OnceLock<Regex> = OnceLock::new();
    static WEB: OnceLock<Regex> = OnceLock::new();
    static DECIMAL: OnceLock<Regex> = OnceLock::new();
    static DOTS: OnceLock<Regex> = OnceLock::new();
    let text = regex(&PREFIX, PREFIXES).replace_all(text, "${1}<prd>");
    let text = regex(&WEB, WEBSITES).replace_all(&text, "<prd>${1}");
    let decimal = format!("{DIGITS}[.]{DIGITS}");
    let text = regex(&DECIMAL, &decimal).replace_all(&text, "${1}<prd>${2}");
    let text = regex(&DOTS, r"\.{2,}")
        .replace_all(&text, |c: &Captures| "<prd>".repeat(c[0].len()) + "<stop>");
    text.into_owned()
}

/// `split_into_sentences(text)`: the sentences, stripped, without a trailing empty one.
pub fn split_into_sentences(text: &str) -> Vec<String> {
    let text = format!(" {text}  ").replace('\n', " ");
    let mut text = protect_dots(&text);
    if text.contains("Ph.D") {
        text = text.replace("Ph.D.", "Ph<prd>D<prd>");
    }
    for (re, rep) in passes() {
        if let Cow::Owned(s) = re.replace_all(&text, *rep) {
            text = s;
        }
    }
    if text.contains('\u{201d}') {
        text = text.replace(".\u{201d}", "\u{201d}.");
    }
    // The reference tests for `"`, `!` and `?` but the replacements only change
    // text that holds them anyway.
    for (from, to) in [(".\"", "\"."), ("!\"", "\"!"), ("?\"", "\"?")] {
        text = text.replace(from, to);
    }
    let text = text
        .replace('.', ".<stop>")
        .replace('?', "?<stop>")
        .replace('!', "!<stop>")
        .replace("<prd>", ".");
    let mut sentences: Vec<String> = text.split("<stop>").map(|s| strip(s).to_owned()).collect();
    if sentences.last().is_some_and(|s| s.is_empty()) {
        sentences.pop();
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::split_into_sentences as split;

    #[test]
    fn protects_abbreviations_decimals_and_websites() {
        assert_eq!(
            split("Mr. Smith paid 3.5 dollars at shop.com today. Then he left!"),
            [
                "Mr. Smith paid 3.5 dollars at shop.com today.",
                "Then he left!"
            ]
        );
        assert_eq!(
            split("He has a Ph.D. in math. Wait... What?"),
            ["He has a Ph.D. in math.", "Wait...", "What?"]
        );
        assert_eq!(
            split("The U.S. Army won. It was Acme Inc. They paid."),
            ["The U.S. Army won.", "It was Acme Inc", "They paid."]
        );
    }

    #[test]
    fn quotes_move_before_the_stop_and_blank_text_has_no_sentence() {
        assert_eq!(
            split("She said \"hi.\" Then left"),
            ["She said \"hi\".", "Then left"]
        );
        assert!(split("").is_empty());
        assert!(split(" \n ").is_empty());
        // A lone letter before a dot is an initial, not a sentence end.
        assert_eq!(split("a.\n\nb"), ["a.  b"]);
        assert_eq!(split(". ."), [".", "."]);
    }
}
