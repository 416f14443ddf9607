//! Size and work limits that bound every step of the math verifier.
//!
//! The verifier never uses timeouts, threads or signals: instead each stage refuses
//! inputs beyond a fixed size, and arithmetic draws from a [`Budget`] of work units.
//! Running out of either is the verdict "undecidable within limits" (reward 0), so a
//! check finishes in bounded time on any input and is safe to call from any thread.
//!
//! Big powers have their own limits, in `power`: exponents are computed exactly up to
//! 4,096 bits (`2^{2^{4000}}` is compared with `4^{2^{3999}}` by prime exponents, never
//! built) and an integer is built only up to 65,536 bits, when a base is too large to
//! factor (a literal answer of up to [`MAX_NUMERAL_DIGITS`] digits). Real answers stay
//! far below both; the worst inputs they allow are in the bench's adversarial section
//! (`cargo bench -p cascade-verifiers --bench math`, figures in the README).

/// Longest response scanned for an answer, in bytes. Longer responses are scanned
/// only in their last `MAX_RESPONSE_BYTES` bytes (the answer is at the end).
pub const MAX_RESPONSE_BYTES: usize = 1 << 20;
/// Longest extracted answer (or gold answer) that is parsed, in bytes.
pub const MAX_ANSWER_BYTES: usize = 4096;
/// Deepest recursion of the parser (about six frames per nesting level of brackets,
/// fractions or powers, so roughly 25 levels).
pub const MAX_DEPTH: usize = 160;
/// Most tokens in one answer.
pub const MAX_TOKENS: usize = 2048;
/// Most bits in any exact integer (numerator or denominator) we build (≈ 4,900 digits,
/// enough for `1000!`; `2006!` is beyond it).
pub const MAX_BITS: u64 = 16_384;
/// Largest integer exponent applied to a sum (expansion of `(a+b)^n`).
pub const MAX_EXPAND_EXPONENT: u64 = 64;
/// Most terms in one polynomial.
pub const MAX_TERMS: usize = 256;
/// Largest `n` for `n!` (the bit limit usually stops it earlier).
pub const MAX_FACTORIAL: u64 = 5_000;
/// Most digits written in one numeral (before any arithmetic): as long as an answer
/// may be, so a 3,011-digit integer such as `2^{10000}` written out is compared.
pub const MAX_NUMERAL_DIGITS: usize = MAX_ANSWER_BYTES;
/// Most elements of a set, tuple or matrix.
pub const MAX_ELEMENTS: usize = 64;
/// Work units one check may spend. Charges are calibrated so that a unit is roughly
/// 20–60 ns of work on a 2020s server core, making the whole budget a few milliseconds.
pub const WORK_BUDGET: u64 = 120_000;

/// Why a check stopped before deciding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// The answer text is longer than [`MAX_ANSWER_BYTES`].
    AnswerTooLong,
    /// More than [`MAX_DEPTH`] nested levels.
    TooDeep,
    /// More than [`MAX_TOKENS`] tokens.
    TooManyTokens,
    /// A number would exceed [`MAX_BITS`] bits.
    NumberTooLarge,
    /// A polynomial would exceed [`MAX_TERMS`] terms.
    TooManyTerms,
    /// The work budget ran out.
    WorkExhausted,
}

impl LimitHit {
    /// A short, stable description used in `details.reason`.
    pub fn describe(self) -> &'static str {
        match self {
            LimitHit::AnswerTooLong => "answer longer than the parse limit",
            LimitHit::TooDeep => "nesting deeper than the limit",
            LimitHit::TooManyTokens => "more tokens than the limit",
            LimitHit::NumberTooLarge => "a number exceeds the size limit",
            LimitHit::TooManyTerms => "an expansion exceeds the term limit",
            LimitHit::WorkExhausted => "work budget exhausted",
        }
    }
}

/// A counter of work units, threaded through arithmetic. Not shared between checks.
#[derive(Debug, Clone)]
pub struct Budget {
    left: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self::new(WORK_BUDGET)
    }
}

impl Budget {
    pub fn new(units: u64) -> Self {
        Self { left: units }
    }

    /// Spends `units`, failing once the budget is gone.
    pub fn charge(&mut self, units: u64) -> Result<(), LimitHit> {
        if units > self.left {
            self.left = 0;
            return Err(LimitHit::WorkExhausted);
        }
        self.left -= units;
        Ok(())
    }

    /// Units still available.
    pub fn left(&self) -> u64 {
        self.left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_runs_out_and_stays_out() {
        let mut b = Budget::new(10);
        assert!(b.charge(6).is_ok());
        assert_eq!(b.charge(5), Err(LimitHit::WorkExhausted));
        assert_eq!(b.left(), 0);
        assert!(b.charge(1).is_err());
    }
}
