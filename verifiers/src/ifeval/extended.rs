//! The 29 ids that NeMo Gym's `instruction_following` registry (the
//! `verifiable_instructions` package's `INSTRUCTION_DICT`) adds to IFEval's 25,
//! with the reference's argument names and rules.
//!
//! Argument rules follow the reference's `build_description`: keywords and words
//! are stripped; `last_word` and `keyword` (position) may be a list, whose first
//! item is used; keyword-count arguments are Python regexes matched ignoring case.
//! Where the reference draws a missing argument at random, the id is refused
//! with an error naming the argument (see [`super::kwargs`]).

use regex::Regex;

use super::copy::{self, Phrase};
use super::kwargs::{Args, IGNORE_CASE};
use super::pyregex::Flags;
use super::pystr::{split_whitespace, strip};
use super::relation::Relation;
use super::{counting, format_words, length, punctuation, words};
use super::{error::IfevalError, instruction::Instruction};

/// One of the 29 added instructions with its parsed arguments.
#[derive(Debug, Clone)]
pub enum Extended {
    RepeatPhrase(Phrase),
    /// `copy:copy` and `copy:copying_simple` (one check): the normalized request.
    Copy {
        prompt: String,
    },
    CopyingMultiple {
        prompt: String,
        n: u64,
    },
    /// `new:copy_span_idx`: the normalized span, cut when parsed.
    CopySpan {
        span: String,
    },
    SentenceHyphens,
    NoAdjacentConsecutive,
    SquareBrackets,
    WordOnce {
        keyword: Regex,
    },
    WordCount {
        keyword: Regex,
        frequency: u64,
        relation: Relation,
    },
    ExcludeWordHarder {
        keyword: String,
    },
    Paragraphs,
    Paragraphs2,
    FirstWordSent {
        word: String,
    },
    FirstWordAnswer {
        word: String,
    },
    LastWordSent {
        word: String,
    },
    LastWordAnswer {
        word: String,
    },
    BigramWrapping,
    PunctuationDot,
    PunctuationExclamation,
    LowercaseCounting {
        n: u64,
    },
    LetterCounting {
        n: u64,
        relation: Relation,
    },
    CountingComposition {
        n_sent: u64,
        n_words: u64,
    },
    CountUnique,
    CountIncrementWord {
        first: Regex,
        second: Regex,
    },
    Palindrome,
    KeywordPosition {
        keyword: String,
        n: u64,
        m: u64,
    },
    StartEnd,
}

/// The 29 ids (with `letters:letter_counting2`, IFEval's letter frequency under
/// a second name), in the registry's order.
pub const IDS: [&str; 29] = [
    "copy:repeat_phrase",
    "copy:copy",
    "new:copy_span_idx",
    "detectable_format:sentence_hyphens",
    "keywords:no_adjacent_consecutive",
    "detectable_format:square_brackets",
    "keywords:word_once",
    "keywords:word_count_different_numbers",
    "keywords:exclude_word_harder",
    "paragraphs:paragraphs",
    "paragraphs:paragraphs2",
    "first_word:first_word_sent",
    "first_word:first_word_answer",
    "last_word:last_word_sent",
    "last_word:last_word_answer",
    "detectable_format:bigram_wrapping",
    "copy:copying_simple",
    "copy:copying_multiple",
    "punctuation:punctuation_dot",
    "punctuation:punctuation_exclamation",
    "count:lowercase_counting",
    "letters:letter_counting",
    "letters:letter_counting2",
    "count:counting_composition",
    "count:count_unique",
    "count:count_increment_word",
    "keywords:palindrome",
    "keywords:keyword_specific_position",
    "keywords:start_end",
];

/// A keyword argument: stripped, then a Python regex matched ignoring case.
fn keyword_regex(a: &mut Args, kwarg: &str) -> Result<Regex, IfevalError> {
    let word = a.text(kwarg)?;
    a.regex(kwarg, strip(&word), IGNORE_CASE)
}

/// `copy:repeat_phrase`: the phrase's words and its `FIRST .*? LAST` finder.
fn phrase(a: &mut Args) -> Result<Phrase, IfevalError> {
    let text = a.text("phrase")?;
    let words: Vec<String> = split_whitespace(&text).map(str::to_owned).collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return Err(a.bad("phrase", "must hold at least one word"));
    };
    let finder = a.regex("phrase", &format!("{first} .*? {last}"), Flags::default())?;
    Ok(Phrase {
        words,
        finder,
        times: a.count("small_n")?,
    })
}

/// Parses one of the 29 ids; `None` when `id` is not one of them.
pub(super) fn parse(id: &str, a: &mut Args) -> Option<Result<Instruction, IfevalError>> {
    let parsed = match id {
        "letters:letter_counting2" => return Some(super::kwargs::letter_frequency(a)),
        "copy:repeat_phrase" => phrase(a).map(Extended::RepeatPhrase),
        "copy:copy" | "copy:copying_simple" => a.text("prompt_to_repeat").map(|p| Extended::Copy {
            prompt: copy::normalize(&p),
        }),
        "copy:copying_multiple" => copying_multiple(a),
        "new:copy_span_idx" => copy_span(a),
        "keywords:word_once" => {
            keyword_regex(a, "keyword").map(|keyword| Extended::WordOnce { keyword })
        }
        "keywords:word_count_different_numbers" => word_count(a),
        "keywords:exclude_word_harder" => exclude_word_harder(a),
        "first_word:first_word_sent" => {
            word(a, "first_word").map(|word| Extended::FirstWordSent { word })
        }
        "first_word:first_word_answer" => {
            word(a, "first_word").map(|word| Extended::FirstWordAnswer { word })
        }
        "last_word:last_word_sent" => {
            first_of_list(a, "last_word").map(|word| Extended::LastWordSent { word })
        }
        "last_word:last_word_answer" => {
            word(a, "last_word").map(|word| Extended::LastWordAnswer { word })
        }
        "count:lowercase_counting" => a.count("N").map(|n| Extended::LowercaseCounting { n }),
        "letters:letter_counting" => letter_counting(a),
        "count:counting_composition" => counting_composition(a),
        "count:count_increment_word" => count_increment_word(a),
        "keywords:keyword_specific_position" => keyword_position(a),
        _ => return no_argument(id).map(Ok),
    };
    Some(parsed.map(Instruction::Extended))
}

/// The ids that take no argument.
fn no_argument(id: &str) -> Option<Instruction> {
    use Extended::*;
    let e = match id {
        "detectable_format:sentence_hyphens" => SentenceHyphens,
        "keywords:no_adjacent_consecutive" => NoAdjacentConsecutive,
        "detectable_format:square_brackets" => SquareBrackets,
        "paragraphs:paragraphs" => Paragraphs,
        "paragraphs:paragraphs2" => Paragraphs2,
        "detectable_format:bigram_wrapping" => BigramWrapping,
        "punctuation:punctuation_dot" => PunctuationDot,
        "punctuation:punctuation_exclamation" => PunctuationExclamation,
        "count:count_unique" => CountUnique,
        "keywords:palindrome" => Palindrome,
        "keywords:start_end" => StartEnd,
        _ => return None,
    };
    Some(Instruction::Extended(e))
}

fn word(a: &mut Args, kwarg: &str) -> Result<String, IfevalError> {
    Ok(strip(&a.text(kwarg)?).to_owned())
}

/// A word that may also be given as a list (its first item is used).
fn first_of_list(a: &mut Args, kwarg: &str) -> Result<String, IfevalError> {
    Ok(strip(&a.text_or_first(kwarg)?).to_owned())
}

fn copying_multiple(a: &mut Args) -> Result<Extended, IfevalError> {
    Ok(Extended::CopyingMultiple {
        prompt: copy::normalize(&a.text("prompt_to_repeat")?),
        n: a.count("N")?,
    })
}

fn copy_span(a: &mut Args) -> Result<Extended, IfevalError> {
    let prompt = a.text("prompt_to_repeat")?;
    let (start, end) = (a.int("n_start")?, a.int("n_end")?);
    Ok(Extended::CopySpan {
        span: copy::normalize(&copy::py_slice(&prompt, start, end)),
    })
}

fn word_count(a: &mut Args) -> Result<Extended, IfevalError> {
    Ok(Extended::WordCount {
        keyword: keyword_regex(a, "keyword")?,
        frequency: a.count("frequency")?,
        relation: a.relation("relation")?,
    })
}

fn exclude_word_harder(a: &mut Args) -> Result<Extended, IfevalError> {
    // `instruction` only feeds the reference's random draw of a missing keyword.
    a.ignore("instruction");
    Ok(Extended::ExcludeWordHarder {
        keyword: word(a, "keyword")?,
    })
}

fn letter_counting(a: &mut Args) -> Result<Extended, IfevalError> {
    Ok(Extended::LetterCounting {
        n: a.count("N")?,
        relation: a.relation("relation")?,
    })
}

fn counting_composition(a: &mut Args) -> Result<Extended, IfevalError> {
    Ok(Extended::CountingComposition {
        n_sent: a.count("n_sent")?,
        n_words: a.count("n_words")?,
    })
}

fn count_increment_word(a: &mut Args) -> Result<Extended, IfevalError> {
    Ok(Extended::CountIncrementWord {
        first: keyword_regex(a, "keyword1")?,
        second: keyword_regex(a, "keyword2")?,
    })
}

fn keyword_position(a: &mut Args) -> Result<Extended, IfevalError> {
    Ok(Extended::KeywordPosition {
        keyword: first_of_list(a, "keyword")?,
        n: a.count("n")?,
        m: a.count("m")?,
    })
}

impl Extended {
    /// Whether `value` follows the instruction.
    pub fn check(&self, value: &str) -> bool {
        use Extended::*;
        match self {
            RepeatPhrase(p) => copy::repeat_phrase(value, p),
            Copy { prompt } => copy::copy(value, prompt),
            CopyingMultiple { prompt, n } => copy::copying_multiple(value, prompt, *n),
            CopySpan { span } => copy::normalize(value) == *span,
            SentenceHyphens => format_words::sentence_hyphens(value),
            NoAdjacentConsecutive => words::no_adjacent_consecutive(value),
            SquareBrackets => format_words::square_brackets(value),
            WordOnce { keyword } => words::word_once(value, keyword),
            WordCount {
                keyword,
                frequency,
                relation,
            } => words::word_count(value, keyword, *frequency, *relation),
            ExcludeWordHarder { keyword } => words::exclude_word_harder(value, keyword),
            Paragraphs => length::number_paragraphs(value, 2),
            Paragraphs2 => length::two_blank_line_paragraphs(value),
            FirstWordSent { word } => words::first_word_sent(value, word),
            FirstWordAnswer { word } => words::first_word_answer(value, word),
            LastWordSent { word } => words::last_word_sent(value, word),
            LastWordAnswer { word } => words::last_word_answer(value, word),
            BigramWrapping => format_words::bigram_wrapping(value),
            PunctuationDot => punctuation::no_dot(value),
            PunctuationExclamation => punctuation::no_exclamation(value),
            LowercaseCounting { n } => counting::lowercase_counting(value, *n),
            LetterCounting { n, relation } => counting::letter_counting(value, *n, *relation),
            CountingComposition { n_sent, n_words } => {
                counting::counting_composition(value, *n_sent, *n_words)
            }
            CountUnique => counting::count_unique(value),
            CountIncrementWord { first, second } => {
                words::count_increment_word(value, first, second)
            }
            Palindrome => words::palindrome(value),
            KeywordPosition { keyword, n, m } => {
                words::keyword_specific_position(value, keyword, *n, *m)
            }
            StartEnd => words::start_end(value),
        }
    }
}
