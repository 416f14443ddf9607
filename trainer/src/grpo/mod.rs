//! GRPO as the Cascade recipe uses it (`trainer/README.md`, "Published settings"):
//! group-relative advantages and a token-level clipped policy loss, each a small
//! separately tested function.
//! Rollout, reward collection and the optimizer step live in `crate::runner`.

pub mod advantages;
pub mod policy_loss;
pub mod step;

pub use advantages::{
    group_advantages, is_scored, AdvantageOptions, Baseline, GroupAdvantages, MIN_SCORED_PER_GROUP,
    UNSCORED,
};
pub use policy_loss::{policy_loss, PolicyLossOptions};
