//! IFEval's 25 instruction checks, graded strict and loose, with the reference's
//! verdicts on every deterministic check (Google's `instruction_following_eval`,
//! as shipped in `lm-eval`).
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
//! `format`, `combination`, `startend`, `change_case`, `punctuation`, `language`);
//! the reference's text processing in `punkt` (NLTK sentence splitting),
//! `treebank` (NLTK `word_tokenize`), `pystr` (Python `str` semantics), `pyregex`
//! (Python regex arguments) and `json_syntax` (`json.loads` acceptance);
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
pub mod error;
pub mod evaluation;
mod format;
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
mod startend;
pub mod treebank;

use serde_json::Value;

pub use error::IfevalError;
pub use evaluation::{evaluate, Verdicts};
pub use instruction::{Instruction, IDS};
pub use length::count_words;

/// Parses a row's `instruction_id_list` and `kwargs` (one object, or null, per id).
pub fn parse_list(ids: &[Value], kwargs: &[Value]) -> Result<Vec<Instruction>, IfevalError> {
    if ids.len() != kwargs.len() {
        return Err(IfevalError::LengthMismatch {
            ids: ids.len(),
            kwargs: kwargs.len(),
        });
    }
    ids.iter()
        .zip(kwargs)
        .enumerate()
        .map(|(index, (id, kw))| {
            let id = id
                .as_str()
                .ok_or_else(|| IfevalError::UnknownId(id.to_string()))?;
            let kw = match kw {
                Value::Null => None,
                Value::Object(m) => Some(m),
                _ => return Err(IfevalError::KwargsNotObject { index }),
            };
            kwargs::parse(id, kw)
        })
        .collect()
}

/// Test helper: the strict verdict of one instruction on one response.
#[cfg(test)]
pub(crate) fn strict_verdict(id: &str, kwargs: Value, response: &str) -> bool {
    let instructions = parse_list(&[Value::from(id)], &[kwargs]).expect("valid instruction");
    evaluate(&instructions, response).strict[0]
}
