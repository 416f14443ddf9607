//! Finding where a hunk applies: GNU `patch`'s search, in order of trust.
//!
//! 1. Exact context at the expected line, then at growing offsets (`+1, -1, +2, …`).
//! 2. With fuzz `f = 1..=max`: up to `f` outer context lines may differ, as
//!    `patch --fuzz`. Like GNU, a hunk with fewer leading than trailing context lines
//!    and starting at line 1 is anchored to the file start; one with fewer trailing
//!    lines that claims to reach the end of the file is anchored to the end.
//! 3. The same two steps comparing lines with whitespace runs collapsed, for patches
//!    whose only fault is indentation or trailing blanks.
//!
//! A fuzz level that would leave nothing to compare, or leave a pure insertion with
//! no context at all, is never used: it would match anywhere.

use super::lines::{normalise_ws, strip_cr, Line};
use super::model::{Hunk, HunkLine};

/// Where a hunk matched: `at` is the 0-based file line of its first old line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub at: usize,
    pub fuzz: usize,
    pub whitespace: bool,
}

/// The search limits for one hunk.
pub struct Search {
    /// 0-based line where the hunk should start, after earlier hunks' drift.
    pub guess: usize,
    /// The hunk may not start before this line (the end of the previous hunk).
    pub min_at: usize,
    pub max_fuzz: usize,
    pub whitespace_fallback: bool,
}

pub fn locate(file: &[Line], hunk: &Hunk, search: &Search) -> Option<Location> {
    let pattern: Vec<&str> = hunk.old_lines().map(strip_cr).collect();
    if pattern.is_empty() {
        let at = search
            .guess
            .clamp(search.min_at, file.len().max(search.min_at));
        return (at <= file.len()).then_some(Location {
            at,
            fuzz: 0,
            whitespace: false,
        });
    }
    let has_removals = hunk.lines.iter().any(|l| matches!(l, HunkLine::Remove(_)));
    let prefix = hunk.prefix_context();
    let suffix = hunk.suffix_context();
    let context = prefix.max(suffix);
    let file_exact: Vec<&str> = file.iter().map(|l| l.text.as_str()).collect();
    let mut file_ws: Option<Vec<String>> = None;
    let passes: &[bool] = if search.whitespace_fallback {
        &[false, true]
    } else {
        &[false]
    };
    for &whitespace in passes {
        let pattern_cmp: Vec<String> = pattern
            .iter()
            .map(|p| {
                if whitespace {
                    normalise_ws(p)
                } else {
                    (*p).to_owned()
                }
            })
            .collect();
        if whitespace && file_ws.is_none() {
            file_ws = Some(file_exact.iter().map(|l| normalise_ws(l)).collect());
        }
        let file_cmp: Vec<&str> = match (&file_ws, whitespace) {
            (Some(ws), true) => ws.iter().map(String::as_str).collect(),
            _ => file_exact.clone(),
        };
        for fuzz in 0..=search.max_fuzz {
            // GNU: the side with less context is fuzzed less (it was cut by a file end).
            let anchor_start = fuzz + prefix < context && hunk.old_start <= 1;
            let anchor_end = fuzz + suffix < context
                && hunk.old_start.saturating_sub(1) + pattern.len() >= file.len();
            let prefix_fuzz = (fuzz + prefix).saturating_sub(context).min(prefix);
            let suffix_fuzz = (fuzz + suffix).saturating_sub(context).min(suffix);
            // A hunk of context only counts its lines as both prefix and suffix.
            let kept = pattern.len().saturating_sub(prefix_fuzz + suffix_fuzz);
            let kept_context = (prefix - prefix_fuzz).min(kept) + (suffix - suffix_fuzz).min(kept);
            if kept == 0 || (!has_removals && kept_context == 0 && context > 0) {
                break;
            }
            let found = scan(
                &file_cmp,
                &pattern_cmp,
                prefix_fuzz,
                suffix_fuzz,
                search,
                anchor_start,
                anchor_end,
            );
            if let Some(at) = found {
                return Some(Location {
                    at,
                    fuzz,
                    whitespace,
                });
            }
        }
    }
    None
}

fn scan(
    file: &[&str],
    pattern: &[String],
    prefix_fuzz: usize,
    suffix_fuzz: usize,
    search: &Search,
    anchor_start: bool,
    anchor_end: bool,
) -> Option<usize> {
    if pattern.len() > file.len() {
        return None;
    }
    let last_start = file.len() - pattern.len();
    if search.min_at > last_start {
        return None;
    }
    let matches_at = |at: usize| {
        pattern[prefix_fuzz..pattern.len() - suffix_fuzz]
            .iter()
            .zip(&file[at + prefix_fuzz..])
            .all(|(p, f)| p == f)
    };
    if anchor_start {
        return (search.min_at == 0 && matches_at(0)).then_some(0);
    }
    if anchor_end {
        return matches_at(last_start).then_some(last_start);
    }
    let guess = search.guess.clamp(search.min_at, last_start);
    let reach = (guess - search.min_at).max(last_start - guess);
    for offset in 0..=reach {
        if guess + offset <= last_start && matches_at(guess + offset) {
            return Some(guess + offset);
        }
        if offset > 0 && offset <= guess - search.min_at && matches_at(guess - offset) {
            return Some(guess - offset);
        }
    }
    None
}
