//! Wraps a bare [`Verifier`] as an [`Environment`], so every verifier plugin can be
//! scored with `cascade score` and trained on without writing an environment.

use cascade_verifiers::{FieldError, Reward, Sample, Verifier};

use crate::environment::{ChatMessage, Environment};

/// An environment whose prompt is the row's `prompt` field and whose reward is the
/// verifier's verdict.
pub struct VerifierEnv {
    verifier: Box<dyn Verifier>,
}

impl VerifierEnv {
    pub fn new(verifier: Box<dyn Verifier>) -> Self {
        Self { verifier }
    }
}

impl Environment for VerifierEnv {
    fn name(&self) -> &str {
        self.verifier.name()
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        Ok(vec![ChatMessage::user(row.str_field("prompt")?)])
    }

    fn score(&self, sample: &Sample) -> Reward {
        if let Err(e) = sample.validate_common() {
            return Reward::error(e.to_string());
        }
        self.verifier.verify(sample)
    }
}
