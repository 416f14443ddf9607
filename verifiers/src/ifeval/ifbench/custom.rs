//! `custom:*`: IFBench's one-off tasks with a fixed expected shape (multiples
//! of 7, four growing multiple-choice questions, African countries in reverse
//! order, a reversed answer, an alphabet story, European capitals, Napoleon's
//! battle dates). The CSV tasks are in [`super::csv`].

use std::sync::OnceLock;

use regex::Regex;

use super::csv;
use super::text::{ascii_fold, drop_punct, first_char, is_decimal, strip_punct};
use crate::ifeval::pyregex::{self, Flags};
use crate::ifeval::pystr::{split_whitespace, strip};
use crate::ifeval::sentences::split_into_sentences;
use crate::ifeval::IfevalError;

#[derive(Debug, Clone, Copy)]
pub enum Custom {
    Multiples,
    McqCountLength,
    ReverseNewline,
    WordReverse,
    CharacterReverse,
    SentenceAlphabet,
    EuropeanCapitals,
    CsvCity,
    CsvSpecialCharacter,
    CsvQuotes,
    DateFormatList,
}

pub(super) fn parse(id: &str) -> Result<Custom, IfevalError> {
    Ok(match id {
        "custom:multiples" => Custom::Multiples,
        "custom:mcq_count_length" => Custom::McqCountLength,
        "custom:reverse_newline" => Custom::ReverseNewline,
        "custom:word_reverse" => Custom::WordReverse,
        "custom:character_reverse" => Custom::CharacterReverse,
        "custom:sentence_alphabet" => Custom::SentenceAlphabet,
        "custom:european_capitals_sort" => Custom::EuropeanCapitals,
        "custom:csv_city" => Custom::CsvCity,
        "custom:csv_special_character" => Custom::CsvSpecialCharacter,
        "custom:csv_quotes" => Custom::CsvQuotes,
        "custom:date_format_list" => Custom::DateFormatList,
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

impl Custom {
    pub fn check(self, value: &str) -> bool {
        match self {
            Custom::Multiples => multiples(value),
            Custom::McqCountLength => mcq(value).unwrap_or(false),
            Custom::ReverseNewline => reverse_newline(value),
            Custom::WordReverse => word_reverse(value),
            Custom::CharacterReverse => value.to_lowercase().contains("elgae dlab"),
            Custom::SentenceAlphabet => sentence_alphabet(value),
            Custom::EuropeanCapitals => european_capitals(value),
            Custom::CsvCity => csv::city(value),
            Custom::CsvSpecialCharacter => csv::special_character(value),
            Custom::CsvQuotes => csv::quotes(value),
            Custom::DateFormatList => date_list(value),
        }
    }
}

fn compile(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| pyregex::compile(pattern, Flags::default()).expect("static pattern"))
}

/// The `\d+` runs (commas followed by a space first) are exactly 14 … 49.
fn multiples(value: &str) -> bool {
    let text = value.replace(',', ", ");
    let mut numbers = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if is_decimal(c) {
            current.push(c);
        } else if !current.is_empty() {
            numbers.push(std::mem::take(&mut current));
        }
    }
    numbers == ["14", "21", "28", "35", "42", "49"]
}

/// Four `Question N` blocks at the very start, each with five `A.`–`E.`
/// options, the question texts strictly growing in length.
fn mcq(value: &str) -> Option<bool> {
    static SPLIT: OnceLock<Regex> = OnceLock::new();
    static OPTION: OnceLock<Regex> = OnceLock::new();
    let split = compile(&SPLIT, r"\n*(?:Question \d+[\.|\):;]?\s*)");
    let option = compile(&OPTION, r"^[A-Ea-e][\.|\)]\s*\w+");
    if !value.starts_with("Question") {
        // Text before the first `Question` (an explanation) fails, and so does
        // a text without one (a single character would survive the slice, but
        // then is one block, not four).
        return Some(false);
    }
    let questions: Vec<&str> = split
        .split(value)
        .map(strip)
        .filter(|q| !q.is_empty())
        .collect();
    if questions.len() != 4 {
        return Some(false);
    }
    let mut lengths = Vec::with_capacity(4);
    for q in questions {
        let mut text = String::new();
        let (mut options, mut done) = (0, false);
        for line in q.split('\n') {
            if option.is_match(strip(line)) {
                options += 1;
                done = true;
            } else if !done {
                text.push(' ');
                text.push_str(strip(line));
            }
        }
        if options != 5 {
            return Some(false);
        }
        lengths.push(strip(&text).chars().count());
    }
    Some(lengths.windows(2).all(|p| p[0] < p[1]))
}

/// From the line naming Zimbabwe on, 52 or more lines (stripped of punctuation
/// and spaces, accents folded) in reverse alphabetical order.
fn reverse_newline(value: &str) -> bool {
    let lines: Vec<&str> = value
        .split('\n')
        .map(strip_punct)
        .filter(|l| !l.is_empty())
        .collect();
    let Some(start) = lines.iter().position(|l| l.contains("Zimbabwe")) else {
        return false;
    };
    let folded: Vec<String> = lines[start..].iter().map(|l| ascii_fold(l)).collect();
    folded.len() >= 52 && folded.windows(2).all(|p| p[0] >= p[1])
}

/// Read backwards word by word (punctuation removed), the text holds
/// "bald eagle" and is one of its own sentences.
fn word_reverse(value: &str) -> bool {
    let lower = value.to_lowercase();
    let bare = drop_punct(strip(&lower));
    let words: Vec<&str> = split_whitespace(&bare).collect();
    let reversed = words.into_iter().rev().collect::<Vec<_>>().join(" ");
    reversed.contains("bald eagle") && split_into_sentences(&reversed).contains(&reversed)
}

/// 26 sentences whose first words start with a, b, … z in order.
fn sentence_alphabet(value: &str) -> bool {
    let sentences = split_into_sentences(value);
    sentences.len() == 26
        && sentences.iter().zip('a'..='z').all(|(s, letter)| {
            let first = split_whitespace(s).next().unwrap_or("").to_lowercase();
            first_char(&first) == Some(letter)
        })
}

const CAPITALS: [&str; 27] = [
    "Reykjavik",
    "Helsinki",
    "Oslo",
    "Tallinn",
    "Stockholm",
    "Riga",
    "Moscow",
    "Copenhagen",
    "Vilnius",
    "Minsk",
    "Dublin",
    "Berlin",
    "Amsterdam",
    "Warsaw",
    "London",
    "Brussels",
    "Prague",
    "Luxembourg",
    "Paris",
    "Vienna",
    "Bratislava",
    "Budapest",
    "Vaduz",
    "Chisinau",
    "Bern",
    "Ljubljana",
    "Zagreb",
];

/// Exactly the 27 capitals, comma-separated, in the reference's order.
fn european_capitals(value: &str) -> bool {
    let folded = ascii_fold(value);
    let capitals: Vec<&str> = folded.split(',').filter(|c| !strip(c).is_empty()).collect();
    capitals.len() == CAPITALS.len() && capitals.iter().zip(CAPITALS).all(|(c, e)| strip(c) == e)
}

/// Comma-separated `YYYY-MM-DD` dates between 1769 and 1821 with a plausible
/// month and day.
fn date_list(value: &str) -> bool {
    static DATE: OnceLock<Regex> = OnceLock::new();
    let date = compile(&DATE, r"^\d{4}-\d{2}-\d{2}$");
    strip(value).split(',').all(|d| {
        let d = strip(d);
        // `$` also matches before a final newline, which `strip` removed.
        if !date.is_match(d) {
            return false;
        }
        let parts: Vec<u32> = d.split('-').map(digits_value).collect();
        let (year, month, day) = (parts[0], parts[1], parts[2]);
        let max_day = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 => 29,
            _ => u32::MAX,
        };
        (1769..=1821).contains(&year) && month <= 12 && day <= max_day
    })
}

/// `int()` of a run of Unicode decimal digits.
fn digits_value(s: &str) -> u32 {
    s.chars().fold(0, |n, c| n * 10 + decimal_value(c))
}

/// The value of a decimal digit: Unicode lays each decimal digit set out as
/// ten consecutive code points from 0 to 9 (adjacent sets start on a 0 too).
fn decimal_value(c: char) -> u32 {
    if let Some(d) = c.to_digit(10) {
        return d;
    }
    let mut zero = u32::from(c);
    while zero > 0 && char::from_u32(zero - 1).is_some_and(is_decimal) {
        zero -= 1;
    }
    (u32::from(c) - zero) % 10
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    fn pair(id: &str, yes: &str, no: &str) {
        super::super::pair(id, json!({}), yes, no);
    }

    #[test]
    fn numbers_and_dates() {
        pair(
            "custom:multiples",
            "14, 21,28, 35, 42, 49",
            "7, 14, 21, 28, 35, 42, 49",
        );
        pair(
            "custom:date_format_list",
            "1796-04-12, 1815-06-18",
            "1796-04-31",
        );
    }

    #[test]
    fn questions() {
        let block =
            |n: usize, q: &str| format!("Question {n}: {q}\nA. a\nB. b\nC. c\nD. d\nE. e\n");
        let ok: String = ["Q?", "QQ?", "QQQ?", "QQQQ?"]
            .iter()
            .enumerate()
            .map(|(i, q)| block(i + 1, q))
            .collect();
        pair("custom:mcq_count_length", &ok, &format!("Sure!\n{ok}"));
    }

    #[test]
    fn reversals_and_lists() {
        pair(
            "custom:word_reverse",
            "Eagle bald the is it.",
            "It is the bald eagle.",
        );
        pair("custom:character_reverse", ".elgae dlab A", "A bald eagle.");
        let story: String = ('a'..='z').map(|c| format!("{c}x went. ")).collect();
        pair("custom:sentence_alphabet", &story, "A b. C d.");
        let caps = super::CAPITALS.join(", ");
        pair("custom:european_capitals_sort", &caps, "Oslo, Helsinki");
        let africa: String = (0..52).map(|i| format!("Zimbabwe {}\n", 99 - i)).collect();
        pair(
            "custom:reverse_newline",
            &africa,
            "Zimbabwe\nAngola\nZambia",
        );
    }
}
