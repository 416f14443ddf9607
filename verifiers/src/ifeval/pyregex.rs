//! Python `re` patterns run on the Rust `regex` engine.
//!
//! IFEval's keyword, forbidden-word, postscript and section-splitter arguments are
//! live Python regexes. This module rewrites the class escapes whose meaning differs
//! (`\w`, `\W`, `\s`, `\S`, `\Z`) into explicit Rust classes with Python's meaning, and
//! compiles with a size limit so a hostile pattern cannot blow up memory. Patterns
//! that need backtracking features Rust lacks (look-around, back-references) are
//! refused with the engine's message rather than silently approximated.
//!
//! Known, documented gap: `\b` keeps Rust's Unicode word definition, which counts
//! combining marks as word characters where Python does not.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use regex::{Regex, RegexBuilder};

/// Python's `\w` for `str` patterns: letters, numbers and underscore.
pub const WORD: &str = r"\p{L}\p{N}_";
/// Python's `\s` for `str` patterns: Unicode whitespace plus `\x1c`..`\x1f`.
pub const SPACE: &str = r"\s\x1C-\x1F";

/// Largest compiled program accepted for a user pattern (bytes).
const SIZE_LIMIT: usize = 1 << 20;

/// How a pattern is to be matched.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    pub ignore_case: bool,
    pub multi_line: bool,
}

/// Rewrites a Python pattern into Rust syntax with the same class meanings.
pub fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0usize;
    // Right after `[` or `[^`, a `]` is a literal in Python.
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let at_class_start = class_start;
        class_start = false;
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let inside = class_depth > 0;
                match (e, inside) {
                    ('w', false) => out.push_str(&format!("[{WORD}]")),
                    ('W', false) => out.push_str(&format!("[^{WORD}]")),
                    ('s', false) => out.push_str(&format!("[{SPACE}]")),
                    ('S', false) => out.push_str(&format!("[^{SPACE}]")),
                    ('w', true) => out.push_str(WORD),
                    ('W', true) => out.push_str(&format!("[^{WORD}]")),
                    ('s', true) => out.push_str(SPACE),
                    ('S', true) => out.push_str(&format!("[^{SPACE}]")),
                    ('Z', false) => out.push_str(r"\z"),
                    ('b', true) => out.push_str(r"\x08"),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' if class_depth == 0 => {
                class_depth = 1;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    out.push('^');
                }
                class_start = true;
            }
            // Python takes `[` inside a class literally; Rust would nest.
            '[' => out.push_str(r"\["),
            ']' if class_depth > 0 && at_class_start => out.push_str(r"\]"),
            ']' if class_depth > 0 => {
                class_depth = 0;
                out.push(']');
            }
            // Rust reads `&&`, `--` and `~~` in classes as set operations.
            '&' | '-' | '~' if class_depth > 0 && chars.peek() == Some(&c) => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Most compiled patterns kept for reuse; the cache is emptied when it fills.
const CACHE_CAPACITY: usize = 4096;

/// Longest pattern (bytes) the cache keeps, so it stays small.
const CACHE_MAX_PATTERN: usize = 1024;

type Cache = Mutex<HashMap<(String, bool, bool), Regex>>;

/// Translates and compiles a Python pattern. Compiled patterns are memoised:
/// training scores the same prompt's arguments once per rollout, and compiling a
/// Unicode-aware pattern costs far more than checking a response with it.
pub fn compile(pattern: &str, flags: Flags) -> Result<Regex, regex::Error> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    let key = (pattern.to_owned(), flags.ignore_case, flags.multi_line);
    if let Some(re) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(re);
    }
    let re = RegexBuilder::new(&translate(pattern))
        .case_insensitive(flags.ignore_case)
        .multi_line(flags.multi_line)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()?;
    if pattern.len() > CACHE_MAX_PATTERN {
        return Ok(re);
    }
    if let Ok(mut c) = cache.lock() {
        if c.len() >= CACHE_CAPACITY {
            c.clear();
        }
        c.insert(key, re.clone());
    }
    Ok(re)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_get_python_meaning() {
        let re = compile(r"^\w+$", Flags::default()).unwrap();
        // U+0301 (combining acute) is a mark: not `\w` in Python.
        assert!(!re.is_match("e\u{301}"));
        assert!(re.is_match("caf\u{e9}_2"));
        let space = compile(r"a\sb", Flags::default()).unwrap();
        assert!(space.is_match("a\u{1f}b"));
    }

    #[test]
    fn literal_brackets_and_set_operators_in_classes() {
        assert!(compile(r"[]a]", Flags::default()).unwrap().is_match("]"));
        assert!(compile(r"[a[]", Flags::default()).unwrap().is_match("["));
        assert!(compile(r"[a&&b]", Flags::default()).unwrap().is_match("&"));
    }

    #[test]
    fn look_around_is_refused_not_approximated() {
        assert!(compile(r"foo(?=bar)", Flags::default()).is_err());
    }
}
