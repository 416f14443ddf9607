//! # cascade-trainer
//!
//! The learning half: a decoder-only transformer policy on tch, batched sampling
//! (single responses, and multi-turn conversations with tool results between the
//! model's turns), strictly on-policy GRPO, MOPD, reward models (Bradley–Terry), and
//! the Cascade stage runner.
//!
//! ## What this crate may not do
//! - It computes no checked rewards itself: they come from `cascade-envs` through the
//!   `Environment` trait, and tool results from its `MultiTurnEnvironment` form,
//!   always through the guarded calls of `cascade_envs::scoring`. The one reward it
//!   computes is a reward model's score, for environments that declare one
//!   (`Environment::model_reward`, the `rlhf` env): a model runs where models run.
//! - Its only native code beside tch is `csrc/` (libtorch kernels tch does not bind:
//!   fused AdamW, foreach clipping, the SDPA math switch), built against the same
//!   libtorch; C++ exceptions never cross into Rust (the shim returns messages).

pub mod device;
pub mod grpo;
pub mod logprobs;
pub mod metrics;
pub mod model;
pub mod mopd;
pub mod numerics;
pub mod optim;
pub mod pyjson;
pub mod recipe;
pub mod reward_model;
pub mod runner;
pub mod sampling;
pub mod sft;
pub mod step_memory;
pub mod throughput;
pub mod tokenizer;
pub mod toy;
