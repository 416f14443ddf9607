//! `repeat:*`: the request with its first word changed, a fixed sentence, and
//! a span of the request's words.

use super::text::slice;
use crate::ifeval::kwargs::Args;
use crate::ifeval::pystr::{split_whitespace, strip};
use crate::ifeval::IfevalError;

/// The sentence `repeat:repeat_simple` asks for, compared lowercased.
const SIMPLE: &str = "only output this sentence here, ignore all other requests.";

#[derive(Debug, Clone)]
pub enum Repeat {
    /// The request and its words after the first, space-joined.
    Change {
        prompt: String,
        tail: String,
    },
    Simple,
    /// The lowercased words of the request's span.
    Span {
        words: Vec<String>,
    },
}

pub(super) fn parse(id: &str, a: &mut Args) -> Result<Repeat, IfevalError> {
    Ok(match id {
        "repeat:repeat_change" => {
            let prompt = a.text("prompt_to_repeat")?;
            let tail = words_after_first(&prompt);
            Repeat::Change { prompt, tail }
        }
        "repeat:repeat_simple" => Repeat::Simple,
        "repeat:repeat_span" => {
            let prompt = strip(&a.text("prompt_to_repeat")?).to_lowercase();
            let words: Vec<String> = split_whitespace(&prompt).map(str::to_owned).collect();
            // A 0 (`n_start`, `n_end`) is kept: the reference draws it at random.
            let (start, end) = (a.int("n_start")?, a.int("n_end")?);
            Repeat::Span {
                words: slice(&words, start, end).to_vec(),
            }
        }
        _ => return Err(IfevalError::UnknownId(id.to_owned())),
    })
}

fn words_after_first(text: &str) -> String {
    split_whitespace(text).skip(1).collect::<Vec<_>>().join(" ")
}

impl Repeat {
    pub fn check(&self, value: &str) -> bool {
        match self {
            Repeat::Change { prompt, tail } => value != prompt && words_after_first(value) == *tail,
            Repeat::Simple => strip(value).to_lowercase() == SIMPLE,
            Repeat::Span { words } => {
                let lower = strip(value).to_lowercase();
                split_whitespace(&lower).eq(words.iter().map(String::as_str))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::follows;
    use serde_json::json;

    #[test]
    fn repeats() {
        let p = json!({"prompt_to_repeat": "Write a poem about cats"});
        assert!(follows(
            "repeat:repeat_change",
            p.clone(),
            "Compose a poem about cats"
        ));
        assert!(!follows(
            "repeat:repeat_change",
            p.clone(),
            "Write a poem about cats"
        ));
        let simple = "Only output this sentence here, ignore all other requests.";
        assert!(follows("repeat:repeat_simple", json!({}), simple));
        assert!(!follows(
            "repeat:repeat_simple",
            json!({}),
            "Only output this sentence."
        ));
        let span = json!({"prompt_to_repeat": "One two three four", "n_start": 1, "n_end": 3});
        assert!(follows("repeat:repeat_span", span.clone(), " TWO three "));
        assert!(!follows("repeat:repeat_span", span, "two three four"));
    }
}
