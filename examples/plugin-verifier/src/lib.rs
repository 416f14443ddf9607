//! # An out-of-tree verifier plugin
//!
//! Shows how a crate that is not part of cascade adds a verifier: implement
//! [`Verifier`] and submit a [`VerifierPlugin`]. Linking this crate into a binary is
//! all it takes; `cascade-envs`' registry then lists it and can score with it. Nothing
//! in cascade's own crates names this one.
//!
//! This example may not do I/O, like every verifier.

use cascade_verifiers::{inventory, Reward, Sample, Verifier, VerifierPlugin};

/// Reward 1 when the trimmed response equals the sample's `answer` field,
/// ignoring ASCII case.
pub struct CaseInsensitiveMatch;

impl Verifier for CaseInsensitiveMatch {
    fn name(&self) -> &str {
        "exact_match_nocase"
    }

    fn verify(&self, sample: &Sample) -> Reward {
        let (response, answer) = match (sample.response(), sample.str_field("answer")) {
            (Ok(r), Ok(a)) => (r, a),
            (Err(e), _) | (_, Err(e)) => return Reward::error(e.to_string()),
        };
        Reward::pass_fail(response.trim().eq_ignore_ascii_case(answer.trim()))
            .with("expected", answer)
    }
}

inventory::submit! {
    VerifierPlugin {
        name: "exact_match_nocase",
        origin: env!("CARGO_PKG_NAME"),
        description: "trimmed response equals `answer`, ignoring ASCII case",
        make: || Box::new(CaseInsensitiveMatch),
    }
}
