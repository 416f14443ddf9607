//! GRPO as the Cascade recipe uses it (`trainer/README.md`, "Published settings"):
//! group-relative advantages and a token-level clipped policy loss, each a small
//! separately tested function, and the truncated importance-sampling correction
//! ([`importance`]) that GRPO and MOPD share.
//! A step is a rollout source ([`rollout`]: the sampled, scored groups with their
//! sampling log-probs) and an update ([`update`]); [`step`] holds their settings and
//! figures. The stage loop around them lives in `crate::runner`.

pub mod advantages;
pub mod importance;
pub mod policy_loss;
pub mod rollout;
pub mod step;
pub mod update;

pub use advantages::{
    group_advantages, is_scored, AdvantageOptions, Baseline, GroupAdvantages, MIN_SCORED_PER_GROUP,
    UNSCORED,
};
pub use importance::ImportanceCorrection;
pub use policy_loss::{policy_loss, weighted_policy_loss, PolicyLossOptions};
