//! # An out-of-tree verifier plugin
//!
//! Shows how a crate that is not part of cascade adds a verifier: implement
//! [`Verifier`] and submit a [`VerifierPlugin`]. Linking this crate into a binary is
//! all it takes; `cascade-envs`' registry then lists it and can score with it. Nothing
//! in cascade's own crates names this one.
//!
//! This example may not do I/O, like every verifier.

use cascade_verifiers::{inventory, Reward, Sample, Verifier, VerifierPlugin};

/// Reward 1 when the response has at most `max_words` whitespace-separated words.
pub struct WordBudget;

impl Verifier for WordBudget {
    fn name(&self) -> &str {
        "word_budget"
    }

    fn verify(&self, sample: &Sample) -> Reward {
        let budget = match sample.require("max_words").map(|v| v.as_u64()) {
            Ok(Some(n)) => n,
            Ok(None) => return Reward::error("field `max_words` must be a whole number"),
            Err(e) => return Reward::error(e.to_string()),
        };
        match sample.response() {
            Ok(text) => {
                let words = text.split_whitespace().count() as u64;
                Reward::pass_fail(words <= budget).with("words", words)
            }
            Err(e) => Reward::error(e.to_string()),
        }
    }
}

inventory::submit! {
    VerifierPlugin {
        name: "word_budget",
        origin: env!("CARGO_PKG_NAME"),
        description: "response has at most `max_words` words",
        make: || Box::new(WordBudget),
    }
}
