//! Where guests run: a pool of worker threads with native stacks larger than the wasm
//! stack limit, so that deep guest recursion ends in a clean stack-overflow trap and
//! never in a host crash. One thread per core by default; runs beyond that wait.
//!
//! Sync ([`WorkerPool::run`]), batch ([`WorkerPool::run_batch`], all workers) and
//! async ([`WorkerPool::run_async`], for tokio callers; the guest never runs on the
//! async runtime's threads) entry points share it. All are safe to call from many
//! threads at once.

use std::sync::OnceLock;

use rayon::prelude::*;

use crate::engine::{MAX_CONCURRENT_INSTANCES, MAX_WASM_STACK};
use crate::error::SandboxError;
use crate::execution::Execution;
use crate::limits::Limits;
use crate::wasm_program::{Invocation, WasmProgram};

/// Native stack of a worker: the wasm stack limit plus room for the host's own frames.
const WORKER_STACK: usize = MAX_WASM_STACK + (64 << 20);

/// A set of worker threads that run guests.
pub struct WorkerPool {
    pool: rayon::ThreadPool,
}

/// One job of a batch.
pub struct Job<'a> {
    pub program: &'a WasmProgram,
    pub invocation: Invocation,
    pub limits: Limits,
}

impl WorkerPool {
    /// A pool with `threads` workers (at least one, at most the engine's instance slots).
    pub fn new(threads: usize) -> Result<Self, SandboxError> {
        let threads = threads.clamp(1, MAX_CONCURRENT_INSTANCES as usize);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(WORKER_STACK)
            .thread_name(|i| format!("cascade-sandbox-{i}"))
            .build()
            .map_err(SandboxError::setup)?;
        Ok(Self { pool })
    }

    /// The process-wide pool, one worker per available core.
    pub fn global() -> Result<&'static WorkerPool, SandboxError> {
        static GLOBAL: OnceLock<Result<WorkerPool, String>> = OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                WorkerPool::new(n).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| SandboxError::Setup(e.clone()))
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Runs one execution on a worker and waits for it.
    pub fn run(
        &self,
        program: &WasmProgram,
        invocation: &Invocation,
        limits: &Limits,
    ) -> Result<Execution, SandboxError> {
        self.pool.install(|| program.execute_here(invocation, limits))
    }

    /// Runs every job, spread over all workers; results in job order.
    pub fn run_batch(&self, jobs: &[Job<'_>]) -> Vec<Result<Execution, SandboxError>> {
        self.pool.install(|| {
            jobs.par_iter()
                .with_max_len(1)
                .map(|j| j.program.execute_here(&j.invocation, &j.limits))
                .collect()
        })
    }

    /// Runs one execution on a worker without blocking the async caller.
    pub async fn run_async(
        &self,
        program: WasmProgram,
        invocation: Invocation,
        limits: Limits,
    ) -> Result<Execution, SandboxError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.pool.spawn(move || {
            let _ = tx.send(program.execute_here(&invocation, &limits));
        });
        rx.await.map_err(|_| SandboxError::PoolGone)?
    }

    /// Runs `f` on a worker (with its large stack) and waits for it.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }
}
