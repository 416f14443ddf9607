//! Environments whose reward compares the responses to one prompt with each other
//! (GenRM's pairwise judge): a response's reward depends on its group, so these
//! score a group at once. Consumers call them through [`crate::scoring::guard_group`].

use cascade_verifiers::{Reward, Sample};

/// The group form of an [`crate::Environment`].
pub trait GroupEnvironment: Send + Sync {
    /// Rewards of `samples`, the answers to one row's prompt (each the row plus its
    /// `response`, as `Environment::score` takes them): one per sample, in order.
    /// Like `score`, it must not panic, and a sample it cannot score gets reward 0
    /// with the reason.
    fn score_group(&self, samples: &[Sample]) -> Vec<Reward>;

    /// As an eval set: the checkpoint (`base` or a stage's name) whose greedy
    /// responses the policy's are compared with, one pair per prompt (the win rate).
    fn baseline(&self) -> &str {
        "base"
    }
}
