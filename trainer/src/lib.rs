//! # cascade-trainer
//!
//! The learning half: a decoder-only transformer policy on tch, batched sampling,
//! strictly on-policy GRPO, MOPD, and the Cascade stage runner.
//!
//! ## What this crate may not do
//! - It computes no rewards itself: rewards come from `cascade-envs` through the
//!   `Environment` trait.
