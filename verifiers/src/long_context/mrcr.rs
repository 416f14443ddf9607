//! The multi-round coreference grader, as OpenAI's MRCR grades (its dataset card's
//! `grade`, NeMo Gym's `mrcr` server): the response must start with the row's random
//! prefix, else 0; otherwise the prefix is removed from the response and from the
//! expected answer, and the reward is `difflib.SequenceMatcher(None, response,
//! answer).ratio()` ([`ratio`]).
//!
//! The response is trimmed first (Gym trims `output_text`; the card's code does not),
//! so a leading newline before the prefix is forgiven. An empty prefix is always
//! present. A side over [`MAX_RATIO_CHARS`](super::MAX_RATIO_CHARS) characters after
//! the prefix is removed is refused ([`RatioError`]): the caller scores it 0 and says
//! why.

use super::ratio::{ratio, RatioError};

/// A graded MRCR answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Mrcr {
    pub score: f64,
    pub prefix_matched: bool,
}

/// Grades `response` against `expected` (which normally starts with `prefix` too).
pub fn grade_mrcr(response: &str, expected: &str, prefix: &str) -> Result<Mrcr, RatioError> {
    let Some(rest) = response.trim().strip_prefix(prefix) else {
        return Ok(Mrcr {
            score: 0.0,
            prefix_matched: false,
        });
    };
    let answer = expected.strip_prefix(prefix).unwrap_or(expected);
    Ok(Mrcr {
        score: ratio(rest, answer)?,
        prefix_matched: true,
    })
}
