//! The echo rule: a long-context answer pays for an answer, not for a copy of the
//! context.
//!
//! RULER's `string_match_all` (and the Jaccard index over numbers or names, when the
//! haystack holds no other number or name) pays 1.0 to a response that pastes the
//! whole prompt back, since the prompt contains the needle. So a response is refused
//! (reward 0, `verdict: too_long`) when it is longer, in characters, than
//! [`ECHO_FLOOR_CHARS`] + [`ECHO_FACTOR`] × the expected answer's length: an answer
//! that names the expected strings with a sentence around them fits many times over,
//! while any context worth the name (thousands of tokens) does not. The bound is on
//! the graded text (the final answer, after any thinking).
//!
//! Per grader, the expected answer's length is: the expected strings plus a
//! two-character separator each (retrieval), the expected answer text (MRCR). Graph
//! walks are not bounded by length (a model may reason before its last line): only
//! the last line's `Final Answer: [...]` is read, and an echo's last line is the
//! question, not an answer; listing every node is paid by F1's precision.

/// Characters any answer may have, however short the expected answer.
pub const ECHO_FLOOR_CHARS: usize = 512;
/// Characters an answer may have per character of the expected answer.
pub const ECHO_FACTOR: usize = 4;

/// The most characters an answer to an expected answer of `expected_chars` may have.
pub fn answer_budget(expected_chars: usize) -> usize {
    expected_chars
        .saturating_mul(ECHO_FACTOR)
        .saturating_add(ECHO_FLOOR_CHARS)
}

/// Why `response` is refused as an echo, or `None` when it is within the budget of
/// an expected answer of `expected_chars` characters. Counting stops at the budget,
/// so a huge response costs no more than a small one.
pub fn echo_refusal(response: &str, expected_chars: usize) -> Option<String> {
    let budget = answer_budget(expected_chars);
    let over = response.chars().nth(budget).is_some();
    over.then(|| {
        format!(
            "the answer is over {budget} characters ({ECHO_FLOOR_CHARS} + {ECHO_FACTOR} per \
             character of the expected answer): a copy of the context is not an answer"
        )
    })
}

/// The expected answer's length for a retrieval task: each expected string and a
/// two-character separator (`, `).
pub fn retrieval_chars<'a>(expected: impl IntoIterator<Item = &'a String>) -> usize {
    expected.into_iter().map(|s| s.chars().count() + 2).sum()
}
