//! The `Verifier` trait: a pure check from a sample to a reward, and the plugin record
//! through which crates anywhere in the build register one.

use crate::{Reward, Sample};

/// A pure check. Implementations must be deterministic, bounded in time on any input,
/// and must not panic: a malformed sample is `Reward::error`, not an `Err`.
pub trait Verifier: Send + Sync {
    /// The registry name, e.g. `math`.
    fn name(&self) -> &str;
    /// Scores one sample (the response plus the sample's reference fields).
    fn verify(&self, sample: &Sample) -> Reward;
}

/// A verifier offered to the registry by any crate linked into the binary:
///
/// ```ignore
/// cascade_verifiers::inventory::submit! {
///     cascade_verifiers::VerifierPlugin {
///         name: "exact_match",
///         origin: env!("CARGO_PKG_NAME"),
///         description: "response equals the `answer` field",
///         make: || Box::new(ExactMatch),
///     }
/// }
/// ```
pub struct VerifierPlugin {
    pub name: &'static str,
    /// The crate that provides it, shown by `cascade envs`.
    pub origin: &'static str,
    pub description: &'static str,
    pub make: fn() -> Box<dyn Verifier>,
}

inventory::collect!(VerifierPlugin);

/// Re-exported so plugin crates need no direct dependency on `inventory`.
pub use inventory;
