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
