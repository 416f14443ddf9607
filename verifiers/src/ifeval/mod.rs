//! Instruction-following checks, graded strict and loose: IFEval's 25 ids, with
//! the reference's verdicts on every deterministic check (Google's
//! `instruction_following_eval`, as shipped in `lm-eval`), and the 29 ids NeMo
//! Gym's `instruction_following` registry adds ([`extended`], after the
//! `verifiable_instructions` package), and IFBench's 58 ([`ifbench`], as NeMo Gym's
//! `ifbench` server grades them; one, which needs a POS tagger, is refused per
//! instruction).
//!
//! ```
//! use cascade_verifiers::ifeval::{evaluate, parse_list};
//! use serde_json::json;
//! let ids = [json!("punctuation:no_comma"), json!("length_constraints:number_words")];
//! let kwargs = [json!({}), json!({"num_words": 3, "relation": "less than"})];
//! let instructions = parse_list(&ids, &kwargs).unwrap();
//! let v = evaluate(&instructions, "Sure, here:\nno commas");
//! assert_eq!(v.strict, [false, false]);
//! assert_eq!(v.loose, [true, true]);
//! ```
//!
//! Layout: one file per instruction family (`keywords`, `length`, `content`,
//! `format`, `combination`, `startend`, `change_case`, `punctuation`, `language`,
//! and for the added ids `copy`, `counting`, `words`, `format_words`);
//! the reference's text processing in `punkt` (NLTK sentence splitting),
//! `treebank` (NLTK `word_tokenize`), `pystr` (Python `str` semantics), `pyregex`
//! (Python regex arguments), `json_syntax` (`json.loads` acceptance) and
//! `sentences` (the added ids' regex sentence splitter);
//! `kwargs` parses arguments, `evaluation` grades strict and loose.
//!
//! Differences from the reference, all deliberate:
//! - language detection is deterministic (`whatlang`, see [`language`]);
//! - a missing or out-of-range argument is an error naming it, never a random draw;
//! - Python-only regex syntax (look-around, back-references) in an argument is an
//!   error naming the argument.

mod change_case;
mod combination;
mod content;
mod copy;
mod counting;
pub mod error;
pub mod evaluation;
pub mod extended;
mod format;
mod format_words;
pub mod ifbench;
pub mod instruction;
mod json_syntax;
mod keywords;
pub mod kwargs;
pub mod language;
mod length;
mod punctuation;
pub mod punkt;
pub mod pyregex;
pub mod pystr;
pub mod relation;
pub mod sentences;
mod startend;
pub mod treebank;
mod words;

use serde_json::Value;

pub use error::IfevalError;
pub use evaluation::{evaluate, grade, Blank, Verdicts};
pub use instruction::{Instruction, IDS};
pub use length::count_words;

/// Parses a row's `instruction_id_list` and `kwargs` (one object, or null, per
/// id); the first unknown id or bad argument fails the whole list.
pub fn parse_list(ids: &[Value], kwargs: &[Value]) -> Result<Vec<Instruction>, IfevalError> {
    parse_each(ids, kwargs)?.into_iter().collect()
}

/// Parses each instruction on its own: an unknown id or a bad argument is an
/// error for that entry only (NeMo Gym marks that instruction false and grades
/// the rest). Only ids and kwargs of different lengths fail the whole list.
pub fn parse_each(
    ids: &[Value],
    kwargs: &[Value],
) -> Result<Vec<Result<Instruction, IfevalError>>, IfevalError> {
    if ids.len() != kwargs.len() {
        return Err(IfevalError::LengthMismatch {
            ids: ids.len(),
            kwargs: kwargs.len(),
        });
    }
    let parse_one = |index: usize, id: &Value, kw: &Value| {
        let id = id
            .as_str()
            .ok_or_else(|| IfevalError::UnknownId(id.to_string()))?;
        let kw = match kw {
            Value::Null => None,
            Value::Object(m) => Some(m),
            _ => return Err(IfevalError::KwargsNotObject { index }),
        };
        kwargs::parse(id, kw)
    };
    Ok(ids
        .iter()
        .zip(kwargs)
        .enumerate()
        .map(|(index, (id, kw))| parse_one(index, id, kw))
        .collect())
}

/// Test helper: the strict verdict of one instruction on one response.
#[cfg(test)]
pub(crate) fn strict_verdict(id: &str, kwargs: Value, response: &str) -> bool {
    let instructions = parse_list(&[Value::from(id)], &[kwargs]).expect("valid instruction");
    evaluate(&instructions, response).strict[0]
}
