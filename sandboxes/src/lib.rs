//! # cascade-sandboxes
//!
//! Runs untrusted programs (model outputs) inside wasmtime: one shared engine, cached
//! compiled runtimes, and a fresh store per execution with its own fuel, memory,
//! output and file limits.
//!
//! ```no_run
//! use cascade_sandboxes::{Limits, Python, PythonRuntime};
//! let python = Python::load(PythonRuntime::default()).unwrap();
//! let run = python.run_source("print(input()[::-1])", b"abc\n", &Limits::default()).unwrap();
//! assert!(run.status.success());
//! assert_eq!(run.stdout, b"cba\n");
//! ```
//!
//! Pieces, one per file: [`engine`] (the shared engine and its settings),
//! [`module_cache`] (compiled modules on disk), [`wasm_program`] (one execution in a
//! fresh store), [`virtual_time`] (clocks and sleep as fuel), [`pool`] (big-stack
//! worker threads; sync, batch and async entry points), [`python`] (CPython for WASI),
//! [`door`] and [`resident`] (a guest kept alive across calls, asking the host only
//! through its door: plugins) and [`clang`] (C and C++ compiled natively to wasm32-wasi, the compiler confined).
//!
//! ## Limits
//! CPU is fuel, converted from seconds at [`FUEL_PER_SECOND`], so verdicts do not
//! depend on machine load; an epoch deadline is only a backstop. Memory is capped by a
//! resource limiter, stdout/stderr by capped buffers, open files by a cap on the WASI
//! resource table (a guest holding more is stopped). Guests see no host files except
//! what a run mounts, no network (WASI p1 has no sockets), no host environment, a
//! virtual clock and a seeded random source.
//!
//! ## What this crate may not do
//! - It never judges outputs: comparison belongs to `cascade-verifiers`.
//! - It never lets a guest reach the host: no network, no host files beyond what a run
//!   is given, no host environment, clock or randomness the host did not decide. The
//!   door ([`door`]) carries bytes only, and only for runs given a door host.

pub mod clang;
pub mod door;
pub mod engine;
pub mod error;
pub mod execution;
mod guest_state;
pub mod host_calls;
pub mod limits;
pub mod link;
pub mod module_cache;
pub mod pool;
pub mod python;
pub mod resident;
pub mod virtual_time;
pub mod wasm_program;

pub use clang::{CLanguage, Clang, CompileError, CompilerLimits};
pub use engine::InstanceMemory;
pub use error::SandboxError;
pub use execution::{Execution, Status};
pub use limits::{Limits, FUEL_PER_SECOND};
pub use pool::{Job, WorkerPool};
pub use python::{Python, PythonRuntime};
pub use resident::{HostApi, Resident, ResidentError, ResidentLimits, ResidentPool};
pub use wasm_program::{Entry, Invocation, Mount, WasmProgram};
