//! # cascade-datasets
//!
//! Loaders for the common public layouts of each domain (MATH, GSM8K, AIME-style
//! JSONL; IFEval's `input_data.jsonl`; HumanEval/MBPP, LiveCodeBench, APPS; SWE-bench
//! JSONL), each turning a public row into the row layout its environment reads
//! (`../shared/SPEC.md`). The bundled samples live beside this crate in
//! `datasets/<domain>/`, written by the team.
//!
//! NeMo Gym rows need no loader: `mcqa`, `structured_output`, `tool_call` (BFCL
//! `ground_truth`, xlam_fc `expected_answers`, single_step `expected_action`) and
//! `workplace` read Gym's layout unchanged; [`workplace_gen`] writes new workplace rows and
//! [`long_context_gen`] long-context rows sized in tokens of a tokenizer it is handed (it
//! links no tokenizer itself).
//!
//! Every command reads a dataset through [`rows::RowSource`]: JSON Lines, a parquet file
//! (verl's RL layout, whose rows the environments read as they are) or a Hugging Face
//! dataset folder of parquet shards, rows in order with their 1-based positions.
//!
//! ## What this crate may not do
//! - It downloads nothing: users point it at files they have.
//! - It never drops or reorders rows: a row it cannot convert is an error naming the
//!   file and line.

pub mod code;
pub mod error;
pub mod ifeval;
pub mod ifeval_gen;
pub mod jsonl;
pub mod long_context_gen;
pub mod math;
pub mod preference;
pub mod rows;
pub mod swe;
pub mod workplace_gen;

pub use error::{LoadError, RowError};

/// The folder holding the bundled samples (`datasets/` in the source tree).
pub fn bundled_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}
