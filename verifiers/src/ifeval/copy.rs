//! `copy:*` and `new:copy_span_idx`: repeating the request (whole, several times,
//! or a character span of it) and repeating a phrase with one word changed.
//!
//! Comparisons are the reference's: both sides stripped (Python whitespace) and
//! lowercased, then equal.

use regex::Regex;

use super::pystr::{split_whitespace, strip};

/// Python's `s.strip().lower()`.
pub fn normalize(s: &str) -> String {
    strip(s).to_lowercase()
}

/// `copy:copy` and `copy:copying_simple`: the response is the request itself
/// (`prompt` given normalized).
pub fn copy(value: &str, prompt: &str) -> bool {
    normalize(value) == prompt
}

/// `copy:copying_multiple`: exactly `n` pieces split on `******`, each the request.
pub fn copying_multiple(value: &str, prompt: &str, n: u64) -> bool {
    let pieces: Vec<&str> = value.split("******").collect();
    pieces.len() as u64 == n && pieces.iter().all(|p| normalize(p) == prompt)
}

/// Python's `s[start:end]` over code points: negative indices count from the
/// end, and both are clamped to the string.
pub fn py_slice(s: &str, start: i64, end: i64) -> String {
    let len = s.chars().count() as i64;
    let clamp = |i: i64| if i < 0 { (i + len).max(0) } else { i.min(len) };
    let (start, end) = (clamp(start), clamp(end));
    if start >= end {
        return String::new();
    }
    s.chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect()
}

/// The phrase instruction's arguments: the phrase's words and the pattern
/// `FIRST .*? LAST` that finds its repetitions (first and last word taken as
/// regex text, as the reference does).
#[derive(Debug, Clone)]
pub struct Phrase {
    pub words: Vec<String>,
    pub finder: Regex,
    pub times: u64,
}

/// `copy:repeat_phrase`: exactly `times` matches of the finder; each match has
/// the phrase's word count and differs from it in at most one word; and, as in
/// the reference, the last match differs in exactly one word.
pub fn repeat_phrase(value: &str, phrase: &Phrase) -> bool {
    let found: Vec<&str> = phrase.finder.find_iter(value).map(|m| m.as_str()).collect();
    if found.len() as u64 != phrase.times {
        return false;
    }
    let mut differences = 0;
    for m in found {
        let words: Vec<&str> = split_whitespace(m).collect();
        if words.len() != phrase.words.len() {
            return false;
        }
        differences = words
            .iter()
            .zip(&phrase.words)
            .filter(|(a, b)| *a != b)
            .count();
        if differences > 1 {
            return false;
        }
    }
    differences == 1
}

#[cfg(test)]
mod tests {
    use super::py_slice;
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn copy_ignores_case_and_outer_space_only() {
        let kw = json!({"prompt_to_repeat": "Write a Poem."});
        for id in ["copy:copy", "copy:copying_simple"] {
            assert!(v(id, kw.clone(), "  write a poem.\n"));
            assert!(!v(id, kw.clone(), "Write a poem"));
            assert!(!v(id, kw.clone(), "Write a poem. Sure!"));
        }
    }

    #[test]
    fn copying_multiple_needs_exactly_n_copies() {
        let kw = json!({"prompt_to_repeat": "Say hi", "N": 2});
        let id = "copy:copying_multiple";
        assert!(v(id, kw.clone(), "say hi\n******\nSAY HI"));
        assert!(!v(id, kw.clone(), "say hi ****** say hi ****** say hi"));
        assert!(!v(id, kw.clone(), "say hi *** say hi"));
        assert!(!v(id, kw, "say hi ****** hi"));
    }

    #[test]
    fn span_is_a_python_slice_of_code_points() {
        assert_eq!(py_slice("héllo world", 1, 4), "éll");
        assert_eq!(py_slice("hello", -3, 99), "llo");
        assert_eq!(py_slice("hello", 4, 2), "");
        let kw = json!({"prompt_to_repeat": "The quick brown fox", "n_start": 4, "n_end": 9});
        assert!(v("new:copy_span_idx", kw.clone(), " QUICK "));
        assert!(!v("new:copy_span_idx", kw, "quick brown"));
    }

    #[test]
    fn repeat_phrase_counts_matches_and_changed_words() {
        let kw = json!({"phrase": "The early bird catches the worm", "small_n": 2});
        let id = "copy:repeat_phrase";
        let ok = "The early cat catches the worm. And The early bird eats the worm.";
        assert!(v(id, kw.clone(), ok));
        // The last repetition must change exactly one word.
        let same = "The early cat catches the worm. The early bird catches the worm.";
        assert!(!v(id, kw.clone(), same));
        let two_changes = "The late cat catches the worm. The early bird eats the worm.";
        assert!(!v(id, kw.clone(), two_changes));
        assert!(!v(id, kw.clone(), "The early cat catches the worm."));
        // Case matters: the finder is case-sensitive.
        assert!(!v(
            id,
            kw,
            "the early cat catches the worm. the early dog catches the worm."
        ));
    }
}
