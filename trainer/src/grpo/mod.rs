//! GRPO as the Cascade recipe uses it (`trainer/README.md`, "Published settings"):
//! group-relative advantages and a token-level clipped policy loss, each a small
//! separately tested function, and the truncated importance-sampling correction
//! ([`importance`]) that GRPO and MOPD share.
//! Rollout, reward collection and the optimizer step live in `crate::runner`.

pub mod advantages;
pub mod importance;
pub mod policy_loss;
pub mod step;

pub use advantages::{
    group_advantages, is_scored, AdvantageOptions, Baseline, GroupAdvantages, MIN_SCORED_PER_GROUP,
    UNSCORED,
};
pub use importance::ImportanceCorrection;
pub use policy_loss::{policy_loss, weighted_policy_loss, PolicyLossOptions};
