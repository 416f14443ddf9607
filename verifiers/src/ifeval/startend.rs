//! `startend:*`: a fixed closing phrase, and a response wrapped in double quotes.

use super::pystr::strip;

/// `startend:end_checker`: whitespace then `"` stripped, lowercased, ends with the
/// phrase (`phrase` is given stripped and lowercased).
pub fn end_checker(value: &str, phrase: &str) -> bool {
    strip(value)
        .trim_matches('"')
        .to_lowercase()
        .ends_with(phrase)
}

/// `startend:quotation`: more than one character, starting and ending with `"`.
pub fn quotation(value: &str) -> bool {
    let v = strip(value);
    v.chars().count() > 1 && v.starts_with('"') && v.ends_with('"')
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn end_phrase_and_quotes() {
        let kw = json!({"end_phrase": "Any other questions?"});
        assert!(v(
            "startend:end_checker",
            kw.clone(),
            "Done. any other questions?\"  \n"
        ));
        assert!(!v("startend:end_checker", kw, "Any other questions? Yes."));
        assert!(v("startend:quotation", json!({}), " \"quoted\" "));
        assert!(!v("startend:quotation", json!({}), "\""));
    }
}
