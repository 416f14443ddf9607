//! `detectable_content:*`: square-bracket placeholders and a postscript marker.

use std::sync::OnceLock;

use regex::Regex;

/// `detectable_content:number_placeholders`: non-greedy `[…]` spans on one line.
pub fn number_placeholders(value: &str, minimum: u64) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| Regex::new(r"\[.*?\]").expect("static pattern"));
    re.find_iter(value).count() as u64 >= minimum
}

/// `detectable_content:postscript`: the marker pattern (built by the parser from
/// `postscript_marker`) found anywhere in the lowercased text.
pub fn postscript(value: &str, marker: &Regex) -> bool {
    marker.is_match(&value.to_lowercase())
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn placeholders_at_least() {
        let p = |n: u64| {
            v(
                "detectable_content:number_placeholders",
                json!({"num_placeholders": n}),
                "[a] and [b]\n[c\n]",
            )
        };
        assert!(p(2) && !p(3));
    }

    #[test]
    fn postscript_markers() {
        let p = |marker: &str, text: &str| {
            v(
                "detectable_content:postscript",
                json!({"postscript_marker": marker}),
                text,
            )
        };
        assert!(p("P.S.", "Hi.\np. s. later"));
        assert!(p("P.P.S", "Hi.\nP.P.S more"));
        assert!(!p("P.S.", "Hi. PS no dots"));
        assert!(p("Note:", "Body\nNOTE: lowercased before matching"));
    }
}
