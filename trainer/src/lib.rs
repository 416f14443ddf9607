//! # cascade-trainer
//!
//! The learning half: a decoder-only transformer policy on tch, batched sampling
//! (single responses, and multi-turn conversations with tool results between the
//! model's turns), strictly on-policy GRPO, MOPD, and the Cascade stage runner.
//!
//! ## What this crate may not do
//! - It computes no rewards itself: rewards come from `cascade-envs` through the
//!   `Environment` trait, and tool results from its `MultiTurnEnvironment` form,
//!   always through the guarded calls of `cascade_envs::scoring`.

pub mod device;
pub mod grpo;
pub mod logprobs;
pub mod metrics;
pub mod model;
pub mod mopd;
pub mod optim;
pub mod recipe;
pub mod runner;
pub mod sampling;
pub mod sft;
pub mod step_memory;
pub mod throughput;
pub mod tokenizer;
pub mod toy;
