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
use crate::link::{Link, Side};
use crate::wasm_program::{Invocation, WasmProgram};

/// Native stack of a worker: the wasm stack limit plus room for the host's own frames.
pub(crate) const WORKER_STACK: usize = MAX_WASM_STACK + (64 << 20);

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
    /// A pool with `threads` workers (at least one, at most half the engine's instance
    /// slots: a linked run holds two instances).
    pub fn new(threads: usize) -> Result<Self, SandboxError> {
        let threads = threads.clamp(1, MAX_CONCURRENT_INSTANCES as usize / 2);
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
        self.pool
            .install(|| program.execute_here(invocation, limits))
    }

    /// Runs `driver` and `peer` at the same time, each one's stdout joined to the other's
    /// stdin (see [`crate::link`]), and waits for both. The driver runs on a worker, the
    /// peer on its own big-stack thread started only once the driver has its worker: a
    /// caller waiting for a worker (rayon lets a waiting caller take on more work) holds
    /// no instance, so live instances stay within two per worker.
    pub fn run_linked(
        &self,
        driver: &Job<'_>,
        peer: &Job<'_>,
    ) -> Result<(Execution, Execution), SandboxError> {
        self.pool.install(|| {
            let link = Link::new(
                driver.invocation.stdin.clone(),
                peer.invocation.stdin.clone(),
            );
            std::thread::scope(|scope| {
                let peer_run = std::thread::Builder::new()
                    .name("cascade-sandbox-peer".into())
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, || {
                        peer.program.execute_linked(
                            &peer.invocation,
                            &peer.limits,
                            &link,
                            Side::Peer,
                        )
                    })
                    .map_err(SandboxError::setup)?;
                let driver_run = driver.program.execute_linked(
                    &driver.invocation,
                    &driver.limits,
                    &link,
                    Side::Driver,
                );
                let peer_run = peer_run.join().map_err(|_| SandboxError::PoolGone)?;
                Ok((driver_run?, peer_run?))
            })
        })
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
