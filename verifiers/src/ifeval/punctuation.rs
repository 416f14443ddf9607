//! `punctuation:no_comma`.

/// No ASCII comma anywhere.
pub fn no_comma(value: &str) -> bool {
    !value.contains(',')
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn any_comma_fails_and_blank_fails() {
        assert!(v("punctuation:no_comma", json!({}), "no commas here"));
        assert!(!v("punctuation:no_comma", json!({}), "one, comma"));
        assert!(!v("punctuation:no_comma", json!({}), "  \n "));
    }
}
