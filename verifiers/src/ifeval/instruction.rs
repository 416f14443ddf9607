//! One parsed IFEval instruction: the id with its arguments, ready to check.

use regex::Regex;

use super::extended::Extended;
use super::ifbench::Ifbench;
use super::relation::Relation;
use super::{change_case, combination, content, format, keywords, language, length};
use super::{punctuation, startend};

/// Every instruction id (IFEval's 25 and NeMo Gym's 29 more) with its parsed
/// arguments. Regex arguments are
/// compiled once, when the instruction is parsed.
#[derive(Debug, Clone)]
pub enum Instruction {
    KeywordsExistence {
        keywords: Vec<Regex>,
    },
    KeywordsFrequency {
        keyword: Regex,
        frequency: u64,
        relation: Relation,
    },
    ForbiddenWords {
        words: Vec<Regex>,
    },
    LetterFrequency {
        letter: char,
        frequency: u64,
        relation: Relation,
    },
    ResponseLanguage {
        language: String,
    },
    NumberSentences {
        num_sentences: u64,
        relation: Relation,
    },
    NumberParagraphs {
        num_paragraphs: u64,
    },
    NumberWords {
        num_words: u64,
        relation: Relation,
    },
    NthParagraphFirstWord {
        num_paragraphs: u64,
        nth_paragraph: u64,
        first_word: String,
    },
    NumberPlaceholders {
        num_placeholders: u64,
    },
    Postscript {
        marker: Regex,
    },
    NumberBulletLists {
        num_bullets: u64,
    },
    ConstrainedResponse,
    NumberHighlightedSections {
        num_highlights: u64,
    },
    MultipleSections {
        splitter: Regex,
        num_sections: u64,
    },
    JsonFormat,
    Title,
    TwoResponses,
    RepeatPrompt {
        prompt: String,
    },
    EndChecker {
        end_phrase: String,
    },
    CapitalWordFrequency {
        frequency: u64,
        relation: Relation,
    },
    EnglishCapital,
    EnglishLowercase,
    NoComma,
    Quotation,
    /// One of the 29 ids NeMo Gym's registry adds (see [`super::extended`]).
    Extended(Extended),
    /// One of IFBench's 58 ids (see [`super::ifbench`]).
    Ifbench(Ifbench),
}

/// The 25 ids, in IFEval's registry order.
pub const IDS: [&str; 25] = [
    "keywords:existence",
    "keywords:frequency",
    "keywords:forbidden_words",
    "keywords:letter_frequency",
    "language:response_language",
    "length_constraints:number_sentences",
    "length_constraints:number_paragraphs",
    "length_constraints:number_words",
    "length_constraints:nth_paragraph_first_word",
    "detectable_content:number_placeholders",
    "detectable_content:postscript",
    "detectable_format:number_bullet_lists",
    "detectable_format:constrained_response",
    "detectable_format:number_highlighted_sections",
    "detectable_format:multiple_sections",
    "detectable_format:json_format",
    "detectable_format:title",
    "combination:two_responses",
    "combination:repeat_prompt",
    "startend:end_checker",
    "change_case:capital_word_frequency",
    "change_case:english_capital",
    "change_case:english_lowercase",
    "punctuation:no_comma",
    "startend:quotation",
];

impl Instruction {
    /// Whether `value` follows the instruction (the bare check, without the
    /// non-empty rule that [`super::evaluate`] adds).
    pub fn check(&self, value: &str) -> bool {
        use Instruction::*;
        match self {
            KeywordsExistence { keywords: k } => keywords::existence(value, k),
            KeywordsFrequency {
                keyword,
                frequency,
                relation,
            } => keywords::frequency(value, keyword, *frequency, *relation),
            ForbiddenWords { words } => keywords::forbidden_words(value, words),
            LetterFrequency {
                letter,
                frequency,
                relation,
            } => keywords::letter_frequency(value, *letter, *frequency, *relation),
            ResponseLanguage { language: code } => language::response_language(value, code),
            NumberSentences {
                num_sentences,
                relation,
            } => length::number_sentences(value, *num_sentences, *relation),
            NumberParagraphs { num_paragraphs } => {
                length::number_paragraphs(value, *num_paragraphs)
            }
            NumberWords {
                num_words,
                relation,
            } => length::number_words(value, *num_words, *relation),
            NthParagraphFirstWord {
                num_paragraphs,
                nth_paragraph,
                first_word,
            } => {
                length::nth_paragraph_first_word(value, *num_paragraphs, *nth_paragraph, first_word)
            }
            NumberPlaceholders { num_placeholders } => {
                content::number_placeholders(value, *num_placeholders)
            }
            Postscript { marker } => content::postscript(value, marker),
            NumberBulletLists { num_bullets } => format::number_bullet_lists(value, *num_bullets),
            ConstrainedResponse => format::constrained_response(value),
            NumberHighlightedSections { num_highlights } => {
                format::number_highlighted_sections(value, *num_highlights)
            }
            MultipleSections {
                splitter,
                num_sections,
            } => format::multiple_sections(value, splitter, *num_sections),
            JsonFormat => format::json_format(value),
            Title => format::title(value),
            TwoResponses => combination::two_responses(value),
            RepeatPrompt { prompt } => combination::repeat_prompt(value, prompt),
            EndChecker { end_phrase } => startend::end_checker(value, end_phrase),
            CapitalWordFrequency {
                frequency,
                relation,
            } => change_case::capital_word_frequency(value, *frequency, *relation),
            EnglishCapital => change_case::english_capital(value),
            EnglishLowercase => change_case::english_lowercase(value),
            NoComma => punctuation::no_comma(value),
            Quotation => startend::quotation(value),
            Extended(e) => e.check(value),
            Ifbench(i) => i.check(value),
        }
    }
}
