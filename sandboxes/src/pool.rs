//! Where guests run: a pool of worker threads with native stacks larger than the wasm
//! stack limit, so that deep guest recursion ends in a clean stack-overflow trap and
//! never in a host crash. One thread per core by default; runs beyond that wait.
//!
//! Workers run at a lower scheduling priority ([`GUEST_NICENESS`]): a guest is batch
//! work measured in fuel, not time, while the cheap in-process checks that share the
//! cores (a math sample costs a fraction of a millisecond) answer clients waiting on
//! them. Without it, a server's math p99 doubled to tripled while code ran beside it.
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

/// How much lower than normal the workers' priority is (Linux `nice`). At 5 a guest
/// still gets about a quarter of a core that a normal thread also wants, so even then
/// it runs far inside the wall-clock backstop ([`crate::limits::WALL_BACKSTOP_FACTOR`]
/// times its time limit); verdicts are fuel and do not move.
pub const GUEST_NICENESS: i32 = 5;

/// A set of worker threads that run guests.
pub struct WorkerPool {
    pool: rayon::ThreadPool,
}

/// Lowers the calling thread's priority by [`GUEST_NICENESS`]. Threads it starts
/// (a linked peer, pipe readers) inherit it. Lowering needs no privilege; where it
/// fails nothing is lost but the latency of the checks beside the guests.
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on the calling thread (Linux keeps nice per thread,
    // and `who = 0` is the caller).
    unsafe {
        let now = libc::getpriority(libc::PRIO_PROCESS, 0);
        libc::setpriority(libc::PRIO_PROCESS, 0, now + GUEST_NICENESS);
    }
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
            .start_handler(|_| lower_this_threads_priority())
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn this_threads_niceness() -> i32 {
        // SAFETY: a plain system call about the calling thread.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[test]
    fn workers_run_below_the_priority_of_the_thread_that_made_them() {
        let caller = std::thread::spawn(|| {
            let mine = this_threads_niceness();
            let pool = WorkerPool::new(1).unwrap();
            (mine, pool.install(this_threads_niceness))
        });
        let (mine, worker) = caller.join().unwrap();
        assert_eq!(worker, (mine + GUEST_NICENESS).min(19));
    }
}
