//! `detectable_format:*`: bullet lists, fixed answers, highlighted spans, numbered
//! sections, JSON output and a `<<title>>`.

use std::sync::OnceLock;

use regex::Regex;

use super::json_syntax;
use super::pyregex::SPACE;
use super::pystr::strip;

fn cached(cell: &'static OnceLock<Regex>, pattern: impl FnOnce() -> String) -> &'static Regex {
    cell.get_or_init(|| Regex::new(&pattern()).expect("static pattern"))
}

/// `detectable_format:number_bullet_lists`: lines opening with `*` (not `**`) or
/// `-`, counted by two independent multi-line searches as in the reference.
pub fn number_bullet_lists(value: &str, expected: u64) -> bool {
    static STAR: OnceLock<Regex> = OnceLock::new();
    static DASH: OnceLock<Regex> = OnceLock::new();
    let star = cached(&STAR, || format!(r"(?m)^[{SPACE}]*\*[^*].*$"));
    let dash = cached(&DASH, || format!(r"(?m)^[{SPACE}]*-.*$"));
    (star.find_iter(value).count() + dash.find_iter(value).count()) as u64 == expected
}

const CONSTRAINED_OPTIONS: [&str; 3] = [
    "My answer is yes.",
    "My answer is no.",
    "My answer is maybe.",
];

/// `detectable_format:constrained_response`: contains one of the fixed answers.
pub fn constrained_response(value: &str) -> bool {
    let value = strip(value);
    CONSTRAINED_OPTIONS.iter().any(|o| value.contains(o))
}

/// `detectable_format:number_highlighted_sections`: non-blank `*x*` spans plus
/// non-blank `**x**` spans, each on one line.
pub fn number_highlighted_sections(value: &str, minimum: u64) -> bool {
    static SINGLE: OnceLock<Regex> = OnceLock::new();
    static DOUBLE: OnceLock<Regex> = OnceLock::new();
    let single = cached(&SINGLE, || r"\*[^\n*]*\*".to_owned());
    let double = cached(&DOUBLE, || r"\*\*[^\n*]*\*\*".to_owned());
    let singles = single
        .find_iter(value)
        .filter(|m| !strip(m.as_str().trim_matches('*')).is_empty())
        .count();
    let doubles = double
        .find_iter(value)
        .filter(|m| {
            let inner = m.as_str();
            let inner = inner.strip_prefix("**").unwrap_or(inner);
            let inner = inner.strip_suffix("**").unwrap_or(inner);
            !strip(inner).is_empty()
        })
        .count();
    (singles + doubles) as u64 >= minimum
}

/// `detectable_format:multiple_sections`: matches of the splitter pattern (built by
/// the parser: `\s?SPLITTER\s?\d+\s?`), i.e. pieces after `re.split` minus one.
pub fn multiple_sections(value: &str, splitter: &Regex, minimum: u64) -> bool {
    splitter.find_iter(value).count() as u64 >= minimum
}

/// `detectable_format:json_format`: after removing a Markdown fence, the text is
/// JSON as Python's `json.loads` reads it.
pub fn json_format(value: &str) -> bool {
    let mut v = strip(value);
    for prefix in ["```json", "```Json", "```JSON", "```"] {
        v = v.strip_prefix(prefix).unwrap_or(v);
    }
    v = v.strip_suffix("```").unwrap_or(v);
    json_syntax::is_valid(strip(v))
}

/// `detectable_format:title`: a non-blank `<<…>>` on one line.
pub fn title(value: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = cached(&RE, || r"<<[^\n]+>>".to_owned());
    re.find_iter(value).any(|m| {
        let inner = m.as_str().trim_start_matches('<').trim_end_matches('>');
        !strip(inner).is_empty()
    })
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn bullets_are_counted_exactly() {
        let b = |n: u64, text: &str| {
            v(
                "detectable_format:number_bullet_lists",
                json!({"num_bullets": n}),
                text,
            )
        };
        assert!(b(3, "* a\n  * b\n- c\n**bold**"));
        assert!(!b(2, "* a\n  * b\n- c"));
        assert!(!b(4, "* a\n  * b\n- c"));
    }

    #[test]
    fn highlights_sections_title_json_constrained() {
        assert!(v(
            "detectable_format:number_highlighted_sections",
            json!({"num_highlights": 2}),
            "*a* and **b**"
        ));
        assert!(!v(
            "detectable_format:number_highlighted_sections",
            json!({"num_highlights": 1}),
            "* * and ** **"
        ));
        let s = |n: u64, text: &str| {
            v(
                "detectable_format:multiple_sections",
                json!({"section_spliter": "SECTION", "num_sections": n}),
                text,
            )
        };
        assert!(s(2, "SECTION 1\na\nSECTION 2\nb") && !s(3, "SECTION 1\na\nSECTION 2\nb"));
        assert!(!s(1, "section 1 is lowercase"));
        assert!(v("detectable_format:title", json!({}), "<<Title>>\nbody"));
        assert!(!v("detectable_format:title", json!({}), "<<  >> body"));
        assert!(v(
            "detectable_format:json_format",
            json!({}),
            "```json\n{\"a\": [1, 2]}\n```"
        ));
        assert!(!v("detectable_format:json_format", json!({}), "{'a': 1}"));
        assert!(v(
            "detectable_format:constrained_response",
            json!({}),
            "Hmm. My answer is maybe."
        ));
        assert!(!v(
            "detectable_format:constrained_response",
            json!({}),
            "My answer is Yes."
        ));
    }
}
