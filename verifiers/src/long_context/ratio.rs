//! Python's `difflib.SequenceMatcher(None, a, b).ratio()` over characters (Unicode
//! scalar values, as Python iterates a `str`), ported step for step so MRCR rewards
//! equal the official grader's: the `b2j` index with the autojunk heuristic (when `b`
//! has 200 items or more, a character occurring more than `len(b) // 100 + 1` times is
//! "popular" and left out of the index), `find_longest_match` with its extension over
//! popular characters, and the recursive matching blocks. No `isjunk` function (MRCR
//! passes `None`), so only popular characters are left out.
//!
//! Bounded: each side may hold at most [`MAX_RATIO_CHARS`] characters and the search at
//! most [`MAX_RATIO_STEPS`] inner steps; beyond either the ratio is refused
//! ([`RatioError`]), never computed slowly.

use std::collections::HashMap;

use thiserror::Error;

/// The most characters either side may have.
pub const MAX_RATIO_CHARS: usize = 16_384;

/// The most inner-loop steps (one per `(i, j)` pair visited) one ratio may take:
/// well under a second.
pub const MAX_RATIO_STEPS: u64 = 50_000_000;

/// Why a ratio was not computed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RatioError {
    #[error("{side} is {chars} characters, over the {MAX_RATIO_CHARS}-character limit of the similarity ratio")]
    TooLong { side: &'static str, chars: usize },
    #[error("the similarity ratio needs more than {MAX_RATIO_STEPS} steps on these texts")]
    TooMuchWork,
}

/// `SequenceMatcher(None, a, b).ratio()`: `2 * M / (len(a) + len(b))` where `M` is the
/// number of matched characters; 1.0 when both are empty (Python's rule).
pub fn ratio(a: &str, b: &str) -> Result<f64, RatioError> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    for (side, chars) in [("the response", a.len()), ("the expected answer", b.len())] {
        if chars > MAX_RATIO_CHARS {
            return Err(RatioError::TooLong { side, chars });
        }
    }
    let total = a.len() + b.len();
    if total == 0 {
        return Ok(1.0);
    }
    let matched = Matcher::new(&a, &b).matched()?;
    Ok(2.0 * matched as f64 / total as f64)
}

/// One `SequenceMatcher`: the two sequences, `b`'s index and the match-length rows.
struct Matcher<'s> {
    a: &'s [char],
    b: &'s [char],
    /// `b2j`: for each non-popular character of `b`, its positions, ascending.
    b2j: HashMap<char, Vec<usize>>,
    /// Python's `j2len` and `newj2len` dicts as arrays: `len[j + 1]` is the length of
    /// the match ending at `b[j]`; zero outside `touched`, so each row resets cheaply.
    rows: [Vec<usize>; 2],
    touched: [Vec<usize>; 2],
    steps: u64,
}

impl<'s> Matcher<'s> {
    /// `__chain_b`: index `b`, then drop popular characters (autojunk).
    fn new(a: &'s [char], b: &'s [char]) -> Self {
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (j, &c) in b.iter().enumerate() {
            b2j.entry(c).or_default().push(j);
        }
        let n = b.len();
        if n >= 200 {
            let ntest = n / 100 + 1;
            b2j.retain(|_, positions| positions.len() <= ntest);
        }
        Self {
            a,
            b,
            b2j,
            rows: [vec![0; n + 1], vec![0; n + 1]],
            touched: [Vec::new(), Vec::new()],
            steps: 0,
        }
    }

    /// The total size of `get_matching_blocks()` (the order blocks are found in does
    /// not change their sum: the sub-ranges are disjoint).
    fn matched(&mut self) -> Result<usize, RatioError> {
        let mut queue = vec![(0, self.a.len(), 0, self.b.len())];
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.longest_match(alo, ahi, blo, bhi)?;
            if k == 0 {
                continue;
            }
            total += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
        Ok(total)
    }

    /// `find_longest_match(alo, ahi, blo, bhi)`: the earliest longest block of indexed
    /// characters, then widened over equal characters on both sides (which is how
    /// popular characters join a match).
    fn longest_match(
        &mut self,
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> Result<(usize, usize, usize), RatioError> {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0);
        let (mut prev, mut next) = (0, 1);
        for (i, c) in a.iter().enumerate().take(ahi).skip(alo) {
            for &j in self.b2j.get(c).map_or(&[][..], Vec::as_slice) {
                self.steps += 1;
                if self.steps > MAX_RATIO_STEPS {
                    self.clear(prev);
                    self.clear(next);
                    return Err(RatioError::TooMuchWork);
                }
                if j < blo {
                    continue;
                }
                if j >= bhi {
                    break;
                }
                let k = self.rows[prev][j] + 1;
                self.rows[next][j + 1] = k;
                self.touched[next].push(j + 1);
                if k > bestsize {
                    (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
                }
            }
            self.clear(prev);
            (prev, next) = (next, prev);
        }
        self.clear(prev);
        // No `isjunk`, so `bjunk` is empty: only the first two of Python's four
        // widening loops can move.
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            (besti, bestj, bestsize) = (besti - 1, bestj - 1, bestsize + 1);
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        Ok((besti, bestj, bestsize))
    }

    /// Zeroes the touched cells of one row.
    fn clear(&mut self, row: usize) {
        for j in self.touched[row].drain(..) {
            self.rows[row][j] = 0;
        }
    }
}
