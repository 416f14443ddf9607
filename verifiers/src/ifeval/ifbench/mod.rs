//! IFBench's 58 out-of-distribution constraints (allenai/IFBench at the commit
//! NeMo Gym's `ifbench` server pins, c6767a1), which share the `ifeval` env with
//! IFEval's ids, with the reference's argument names and rules.
//!
//! Layout, one file per family of ids: [`count`] (`count:*`), [`ratio`]
//! (`ratio:*`), [`words`] (`words:*`), [`sentence`] (`sentence:*`), [`format`]
//! and [`layout`] (`format:*`), [`custom`] and [`csv`] (`custom:*`), [`repeat`]
//! (`repeat:*`); [`text`] holds the Python `str` idioms they share, [`syllables`]
//! and [`emoji`] the two data tables the reference imports (`syllapy`, `emoji`),
//! bundled so the checks stay pure.
//!
//! One id is refused per instruction as not supported: `words:start_verb` needs
//! NLTK's averaged-perceptron tagger (a statistical model, not on PyPI).
//! Arguments the reference draws at random when missing are refused naming the
//! argument (see [`super::kwargs`]).

mod count;
mod csv;
mod custom;
mod emoji;
mod emoji_table;
mod format;
mod layout;
mod ratio;
mod repeat;
mod sentence;
mod syllables;
mod text;
mod words;

use super::error::IfevalError;
use super::instruction::Instruction;
use super::kwargs::Args;

/// IFBench's own ids, in its registry's order.
pub const IDS: [&str; 58] = [
    "count:word_count_range",
    "count:unique_word_count",
    "ratio:stop_words",
    "ratio:sentence_type",
    "ratio:sentence_balance",
    "count:conjunctions",
    "count:person_names",
    "ratio:overlap",
    "count:numbers",
    "words:alphabet",
    "words:vowel",
    "words:consonants",
    "sentence:alliteration_increment",
    "words:palindrome",
    "count:punctuation",
    "format:parentheses",
    "format:quotes",
    "words:prime_lengths",
    "format:options",
    "format:newline",
    "format:emoji",
    "ratio:sentence_words",
    "count:words_japanese",
    "words:start_verb",
    "words:repeats",
    "sentence:keyword",
    "count:pronouns",
    "words:odd_even_syllables",
    "words:last_first",
    "words:paragraph_last_first",
    "sentence:increment",
    "words:no_consecutive",
    "format:line_indent",
    "format:quote_unquote",
    "format:list",
    "format:thesis",
    "format:sub-bullets",
    "format:no_bullets_bullets",
    "custom:multiples",
    "custom:mcq_count_length",
    "custom:reverse_newline",
    "custom:word_reverse",
    "custom:character_reverse",
    "custom:sentence_alphabet",
    "custom:european_capitals_sort",
    "custom:csv_city",
    "custom:csv_special_character",
    "custom:csv_quotes",
    "custom:date_format_list",
    "count:keywords_multiple",
    "words:keywords_specific_position",
    "words:words_position",
    "repeat:repeat_change",
    "repeat:repeat_simple",
    "repeat:repeat_span",
    "format:title_case",
    "format:output_template",
    "format:no_whitespace",
];

/// The ids refused as not supported, each with the statistical model it needs.
pub const UNSUPPORTED: [(&str, &str); 1] = [(
    "words:start_verb",
    "it needs NLTK's averaged-perceptron part-of-speech tagger, a statistical model",
)];

/// Whether `id` is one of IFBench's constraints.
pub fn is_ifbench(id: &str) -> bool {
    IDS.contains(&id)
}

/// One IFBench instruction with its parsed arguments.
#[derive(Debug, Clone)]
pub enum Ifbench {
    Count(count::Count),
    Ratio(ratio::Ratio),
    Words(words::Words),
    Sentence(sentence::Sentence),
    Format(format::Format),
    Layout(layout::Layout),
    Custom(custom::Custom),
    Repeat(repeat::Repeat),
}

/// Parses one of the 58 ids; `None` when `id` is not one of them.
pub(super) fn parse(id: &str, a: &mut Args) -> Option<Result<Instruction, IfevalError>> {
    if !is_ifbench(id) {
        return None;
    }
    if let Some(&(_, reason)) = UNSUPPORTED.iter().find(|(u, _)| *u == id) {
        let id = id.to_owned();
        return Some(Err(IfevalError::Unsupported { id, reason }));
    }
    let family = id.split(':').next().unwrap_or_default();
    let parsed = match family {
        "count" => count::parse(id, a).map(Ifbench::Count),
        "ratio" => ratio::parse(id, a).map(Ifbench::Ratio),
        "words" => words::parse(id, a).map(Ifbench::Words),
        "sentence" => sentence::parse(id, a).map(Ifbench::Sentence),
        "format" => match format::parse(id, a) {
            Some(f) => f.map(Ifbench::Format),
            None => layout::parse(id).map(Ifbench::Layout),
        },
        "custom" => {
            // The reference's custom checks take `**kwargs` and ignore them all.
            a.ignore_rest();
            custom::parse(id).map(Ifbench::Custom)
        }
        _ => repeat::parse(id, a).map(Ifbench::Repeat),
    };
    Some(parsed.map(Instruction::Ifbench))
}

impl Ifbench {
    /// Whether `value` follows the instruction. Where the reference raises (a
    /// division by zero, an index past the end), the instruction is not
    /// followed, as NeMo Gym's server counts it.
    pub fn check(&self, value: &str) -> bool {
        match self {
            Ifbench::Count(c) => c.check(value),
            Ifbench::Ratio(r) => r.check(value),
            Ifbench::Words(w) => w.check(value),
            Ifbench::Sentence(s) => s.check(value),
            Ifbench::Format(f) => f.check(value),
            Ifbench::Layout(l) => l.check(value),
            Ifbench::Custom(c) => c.check(value),
            Ifbench::Repeat(r) => r.check(value),
        }
    }
}

/// Test helper: the strict verdict of one IFBench instruction.
#[cfg(test)]
pub(crate) fn follows(id: &str, kwargs: serde_json::Value, response: &str) -> bool {
    super::strict_verdict(id, kwargs, response)
}

/// Test helper: `id` with `kwargs` is followed by `yes` and not by `no`.
#[cfg(test)]
pub(crate) fn pair(id: &str, kwargs: serde_json::Value, yes: &str, no: &str) {
    assert!(
        follows(id, kwargs.clone(), yes),
        "{id} should follow: {yes:?}"
    );
    assert!(!follows(id, kwargs, no), "{id} should not follow: {no:?}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ifeval::parse_each;
    use serde_json::{json, Value};

    /// Arguments that parse for every id that takes some.
    fn kwargs(id: &str) -> Value {
        match id {
            "count:word_count_range" => json!({"min_words": 1, "max_words": 9}),
            "ratio:stop_words" => json!({"percentage": 40}),
            "ratio:overlap" => json!({"reference_text": "a b c d", "percentage": 10}),
            "count:keywords_multiple" => json!({"keyword1": "a", "keyword2": "b",
                "keyword3": "c", "keyword4": "d", "keyword5": "e"}),
            "words:keywords_specific_position" => json!({"keyword": "a", "n": 2, "m": 3}),
            "words:words_position" => json!({"keyword": "a"}),
            "sentence:keyword" => json!({"word": "a", "N": 2}),
            "format:options" => json!({"options": "yes/no/maybe"}),
            "format:list" => json!({"sep": "-"}),
            "repeat:repeat_change" => json!({"prompt_to_repeat": "a b c"}),
            "repeat:repeat_span" => json!({"prompt_to_repeat": "a b c", "n_start": 0, "n_end": 2}),
            "count:conjunctions" | "words:repeats" | "sentence:increment" => json!({"small_n": 2}),
            id if id.starts_with("count:") && id != "count:punctuation" => json!({"N": 2}),
            _ => json!({}),
        }
    }

    #[test]
    fn every_id_parses_and_start_verb_is_refused_with_its_reason() {
        let ids: Vec<Value> = IDS.iter().map(|id| json!(id)).collect();
        let kw: Vec<Value> = IDS.iter().map(|id| kwargs(id)).collect();
        for (id, parsed) in IDS.iter().zip(parse_each(&ids, &kw).unwrap()) {
            match parsed {
                Ok(_) => assert_ne!(*id, "words:start_verb"),
                Err(e) => {
                    assert_eq!(*id, "words:start_verb", "{e}");
                    assert!(e.to_string().contains("part-of-speech tagger"));
                }
            }
        }
    }

    #[test]
    fn megabyte_responses_are_checked_in_bounded_time() {
        let ids: Vec<Value> = IDS.iter().map(|id| json!(id)).collect();
        let kw: Vec<Value> = IDS.iter().map(|id| kwargs(id)).collect();
        let parsed: Vec<Instruction> = parse_each(&ids, &kw)
            .unwrap()
            .into_iter()
            .filter_map(Result::ok)
            .collect();
        let mb = 1 << 20;
        for text in [
            "a b. ".repeat(mb / 5),
            "\n \n\n".repeat(mb / 4),
            "(\"'".repeat(mb / 3),
            "Question 1 A. \"x\",b\n".repeat(mb / 20),
        ] {
            // About a second per check even unoptimised: every check is linear
            // or n log n (line_indent replays Python's list removal in a tree).
            for instruction in &parsed {
                let start = std::time::Instant::now();
                instruction.check(&text);
                assert!(start.elapsed().as_secs() < 20, "{instruction:?}");
            }
        }
    }
}
