//! # cascade-sandboxes
//!
//! Runs untrusted programs (model outputs) inside wasmtime: one shared engine, cached
//! compiled runtimes, and a fresh store per execution with its own fuel, memory,
//! output and file limits.
//!
//! ## What this crate may not do
//! - It never judges outputs: comparison belongs to `cascade-verifiers`.
//! - It never lets a guest reach the host: no network, no host files beyond what a run
//!   is given, no host environment, clock or randomness the host did not decide.
