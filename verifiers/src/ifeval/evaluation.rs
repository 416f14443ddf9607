//! Strict and loose grading, as in IFEval's `evaluation_lib.py`.
//!
//! Strict: the response is not blank and the check passes on it as is.
//! Loose: the check passes on any of eight variants: the response, without its
//! first line, without its last line, without both (the last three stripped), and
//! each of those four with every `*` removed.

use super::instruction::Instruction;
use super::pystr::strip;

/// Per-instruction verdicts, in the order of the instruction list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdicts {
    pub strict: Vec<bool>,
    pub loose: Vec<bool>,
}

/// The eight loose variants of a response, in the reference's order.
pub fn loose_variants(response: &str) -> [String; 8] {
    let lines: Vec<&str> = response.split('\n').collect();
    let n = lines.len();
    let join = |from: usize, to: usize| {
        if from >= to {
            String::new()
        } else {
            strip(&lines[from..to].join("\n")).to_owned()
        }
    };
    let remove_first = join(1, n);
    let remove_last = join(0, n.saturating_sub(1));
    let remove_both = join(1, n.saturating_sub(1));
    let unstar = |s: &str| s.replace('*', "");
    [
        response.to_owned(),
        unstar(response),
        remove_first.clone(),
        remove_last.clone(),
        remove_both.clone(),
        unstar(&remove_first),
        unstar(&remove_last),
        unstar(&remove_both),
    ]
}

/// Whether one variant follows one instruction: not blank, and the check passes.
fn follows(instruction: &Instruction, value: &str) -> bool {
    !strip(value).is_empty() && instruction.check(value)
}

/// Strict verdicts only.
pub fn strict(instructions: &[Instruction], response: &str) -> Vec<bool> {
    instructions.iter().map(|i| follows(i, response)).collect()
}

/// Strict and loose verdicts for every instruction.
pub fn evaluate(instructions: &[Instruction], response: &str) -> Verdicts {
    let strict = strict(instructions, response);
    let variants = loose_variants(response);
    let loose = instructions
        .iter()
        .zip(&strict)
        .map(|(i, &s)| s || variants[1..].iter().any(|v| follows(i, v)))
        .collect();
    Verdicts { strict, loose }
}
