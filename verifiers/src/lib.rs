//! # cascade-verifiers
//!
//! Pure checks that turn a model response into a reward: math answer equivalence,
//! instruction-following rules, program-output comparison, unified-diff parsing and
//! application to in-memory files, and test-log parsing.
//!
//! Also home of the vocabulary every other crate shares: a [`Sample`] (one JSONL line),
//! a [`Reward`] (score plus JSON details) and the [`Verifier`] trait.
//!
//! ```
//! use cascade_verifiers::{Reward, Sample};
//! let sample = Sample::from_json_line(r#"{"id":"a","response":"42"}"#).unwrap();
//! assert_eq!(sample.id(), Some("a"));
//! let reward = Reward::pass_fail(sample.response().unwrap() == "42");
//! assert_eq!(reward.score, 1.0);
//! ```
//!
//! ## What this crate may not do
//! - No I/O: no files, no network, no processes, no clocks, no threads of its own.
//!   Callers (environments, sandboxes) bring the data in and take the verdict out.
//! - No unbounded work: every check has a size or work limit on any input, so a check
//!   is safe to call in a training loop without a timeout. Exceeding a limit is a
//!   verdict ("undecidable within limits"), never a hang or a panic.
//! - No randomness except from explicit, fixed seeds: the same input gives the same
//!   reward byte for byte on every machine.

pub mod exact_match;
pub mod final_answer;
pub mod ifeval;
pub mod long_context;
pub mod math;
pub mod mcqa;
pub mod output;
pub mod patch;
pub mod reward;
pub mod sample;
pub mod seeded;
pub mod structured_output;
pub mod testlog;
pub mod tool_call;
pub mod verifier;
pub mod workplace;

pub use reward::{Reward, ScoringFailure};
pub use sample::{AnswerError, FieldError, Sample};
pub use verifier::{inventory, Verifier, VerifierPlugin};
