//! `punctuation:*`: no comma (IFEval), no dot and no exclamation mark (NeMo Gym's
//! `verifiable_instructions`).

/// No ASCII comma anywhere.
pub fn no_comma(value: &str) -> bool {
    !value.contains(',')
}

/// `punctuation:punctuation_dot`: no `.` anywhere.
pub fn no_dot(value: &str) -> bool {
    !value.contains('.')
}

/// `punctuation:punctuation_exclamation`: no `!` anywhere.
pub fn no_exclamation(value: &str) -> bool {
    !value.contains('!')
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

    #[test]
    fn dots_and_exclamation_marks() {
        assert!(v("punctuation:punctuation_dot", json!({}), "No dots here!"));
        assert!(!v("punctuation:punctuation_dot", json!({}), "e.g"));
        assert!(v("punctuation:punctuation_exclamation", json!({}), "Calm."));
        assert!(!v("punctuation:punctuation_exclamation", json!({}), "Wow!"));
    }
}
