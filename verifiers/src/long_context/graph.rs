//! The graph-walk grader, as OpenAI's GraphWalks grades (NeMo Gym's `graphwalks`
//! server, ported from NeMo Skills): the node set of the response's `Final Answer:
//! [...]` line against the expected set, by F1.
//!
//! Reading the answer:
//! - only the **last non-empty line** of the (trimmed) response is read; a
//!   `Final Answer:` on an earlier line does not count, so a response whose last line
//!   is anything else has no answer (reward 0), however many answers came before;
//! - on that line, the first `Final Answer:` followed by optional spaces, `[`, and a
//!   last `]` (the regex `Final Answer:\s*\[(.*)\]`, case-sensitive, greedy);
//! - the text between the brackets is split on commas, each item trimmed, empty items
//!   dropped (`[]` and `[ , ]` are an explicit empty answer); quotes are kept, as in
//!   GraphWalks (`'a1'` is not `a1`); duplicates count once.
//!
//! Scoring: no answer line, 0; both sets empty, 1 (the model rightly named nothing:
//! Gym's rule; the dataset card's sample code gives 0 here); one set empty, 0;
//! otherwise `2PR / (P + R)`.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use regex::Regex;

/// What the last line of a response answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinalAnswer {
    /// No `Final Answer: [...]` on the last non-empty line.
    Missing,
    /// The listed nodes, in order, duplicates kept.
    Nodes(Vec<String>),
}

fn final_answer_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"Final Answer:\s*\[(.*)\]").expect("a valid regex"))
}

/// Reads the `Final Answer: [...]` of the response's last non-empty line.
pub fn parse_final_answer(response: &str) -> FinalAnswer {
    let Some(last) = response.trim().lines().rev().find(|l| !l.trim().is_empty()) else {
        return FinalAnswer::Missing;
    };
    match final_answer_re().captures(last) {
        None => FinalAnswer::Missing,
        Some(captures) => FinalAnswer::Nodes(
            captures[1]
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
    }
}

/// F1 of two node sets; 1 when both are empty (rules above).
pub fn set_f1(predicted: &BTreeSet<String>, expected: &BTreeSet<String>) -> f64 {
    if predicted.is_empty() && expected.is_empty() {
        return 1.0;
    }
    let overlap = predicted.intersection(expected).count();
    if overlap == 0 {
        return 0.0;
    }
    let precision = overlap as f64 / predicted.len() as f64;
    let recall = overlap as f64 / expected.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// The reward of `response` for a graph walk whose answer is `expected`: the F1 of
/// its final answer, 0 without one.
pub fn grade_graph(response: &str, expected: &BTreeSet<String>) -> (f64, FinalAnswer) {
    let answer = parse_final_answer(response);
    let score = match &answer {
        FinalAnswer::Missing => 0.0,
        FinalAnswer::Nodes(nodes) => set_f1(&nodes.iter().cloned().collect(), expected),
    };
    (score, answer)
}
