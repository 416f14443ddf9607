//! `combination:*`: two different responses split by `******`, and repeating the
//! prompt before answering.

use super::pystr::strip;

/// `combination:two_responses`: exactly two non-blank pieces, different after
/// stripping; a blank piece in the middle fails.
pub fn two_responses(value: &str) -> bool {
    let pieces: Vec<&str> = value.split("******").collect();
    let mut valid = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if strip(piece).is_empty() {
            if i != 0 && i != pieces.len() - 1 {
                return false;
            }
        } else {
            valid.push(strip(piece));
        }
    }
    valid.len() == 2 && valid[0] != valid[1]
}

/// `combination:repeat_prompt`: the response starts with the prompt, both
/// stripped and lowercased (`prompt` is given already stripped and lowercased).
pub fn repeat_prompt(value: &str, prompt: &str) -> bool {
    strip(value).to_lowercase().starts_with(prompt)
}

#[cfg(test)]
mod tests {
    use crate::ifeval::strict_verdict as v;
    use serde_json::json;

    #[test]
    fn two_different_responses() {
        assert!(v("combination:two_responses", json!({}), "A\n******\nB"));
        assert!(!v("combination:two_responses", json!({}), "A\n******\n A "));
        assert!(!v(
            "combination:two_responses",
            json!({}),
            "A\n******\n\n******\nB"
        ));
    }

    #[test]
    fn repeat_prompt_ignores_case_and_outer_space() {
        let kw = json!({"prompt_to_repeat": " Write a poem. "});
        assert!(v(
            "combination:repeat_prompt",
            kw.clone(),
            "  WRITE A POEM. Roses..."
        ));
        assert!(!v("combination:repeat_prompt", kw, "Sure! Write a poem."));
    }
}
