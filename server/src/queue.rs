//! The bridge from the async routes to the scoring threads, with admission control.
//!
//! The queue is bounded in **samples**: a request is admitted only if all its samples
//! fit in what is left of `--max-queue` (accepted but unfinished samples, whatever the
//! request), else it is refused at once with 429 and `Retry-After`. An admitted request
//! holds its share until its last sample is scored, so the work in the server never
//! exceeds the bound. A batch larger than the whole queue could never fit: 413.
//!
//! Admitted work runs on a blocking thread that hands its samples to **its
//! environment's own** [`ScoringPool`] (`--jobs` threads each, made on first use), and
//! returns rewards in input order. Separate pools are what keeps scheduling fair: a
//! math sample never waits in line behind a batch of code samples, since the kernel
//! shares the cores between the pools' threads, and a math sample needs a fraction of a
//! millisecond of them.
//!
//! A client that disconnects drops the receiving future: samples of its request that
//! have not started are then skipped, counted in `cascade_cancelled_samples_total`, and
//! its share is freed when the samples already running finish; no worker or permit
//! leaks.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use cascade_envs::scoring::PoolError;
use cascade_envs::{score_guarded, Environment, ResultLine, Sample, ScoringPool};
use serde_json::{Map, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::ceilings::Ceilings;
use crate::envs::EnvCache;
use crate::error::ApiError;

/// The scoring threads and the admission bound in front of them.
pub struct ScoringQueue {
    jobs: usize,
    /// One pool per environment, made on first use.
    pools: Mutex<HashMap<String, Arc<ScoringPool>>>,
    slots: Arc<Semaphore>,
    capacity: usize,
    /// Samples skipped because their client had gone.
    cancelled: Arc<AtomicU64>,
}

/// Samples of one admitted request: its share of the queue until dropped.
pub struct Admission {
    _permits: OwnedSemaphorePermit,
}

/// Set when the future waiting for a request's results is dropped (the client left).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl ScoringQueue {
    /// `jobs` scoring threads per environment (0 = one per core) behind a queue of
    /// `capacity` samples.
    pub fn new(jobs: usize, capacity: usize) -> Result<Self, PoolError> {
        // Made now only to check that `jobs` threads can be had at all.
        drop(ScoringPool::new(jobs)?);
        // Permits are taken in u32 batches, so the bound fits in one.
        let capacity = capacity.clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        Ok(Self {
            jobs,
            pools: Mutex::new(HashMap::new()),
            slots: Arc::new(Semaphore::new(capacity)),
            capacity,
            cancelled: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The admission bound, in samples.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Accepted samples not yet scored.
    pub fn depth(&self) -> usize {
        self.capacity - self.slots.available_permits()
    }

    /// Samples skipped so far because their client disconnected before they started.
    pub fn cancelled(&self) -> u64 {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Reserves room for `samples` samples, or refuses at once (429, or 413 for a batch
    /// that could never fit).
    pub fn admit(&self, samples: usize) -> Result<Admission, ApiError> {
        if samples > self.capacity {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "a batch of {samples} samples exceeds this server's --max-queue {}; split it",
                    self.capacity
                ),
            ));
        }
        // Zero samples still take a turn through the pool (building the env); count one.
        let wanted = u32::try_from(samples.max(1)).unwrap_or(u32::MAX);
        match self.slots.clone().try_acquire_many_owned(wanted) {
            Ok(permits) => Ok(Admission { _permits: permits }),
            Err(_) => Err(ApiError::queue_full(samples, self.capacity)),
        }
    }

    fn pool(&self, env: &str) -> Result<Arc<ScoringPool>, ApiError> {
        let mut pools = self.pools.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(pool) = pools.get(env) {
            return Ok(pool.clone());
        }
        let pool =
            Arc::new(ScoringPool::new(self.jobs).map_err(|e| ApiError::internal(e.to_string()))?);
        pools.insert(env.to_owned(), pool.clone());
        Ok(pool)
    }

    /// Runs `work` on `env`'s pool, holding `admission` until it is done.
    pub async fn run<R: Send + 'static>(
        &self,
        admission: Admission,
        env: &str,
        work: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, ApiError> {
        let pool = self.pool(env)?;
        let task = tokio::task::spawn_blocking(move || {
            let _admission = admission;
            pool.run(work)
        });
        task.await
            .map_err(|e| ApiError::internal(format!("a scoring task died: {e}")))
    }

    /// Scores `samples` with the environment `env` + `config` (built or cached on the
    /// scoring side), keeping input order; a sample past a [`Ceilings`] is refused, not
    /// run. `admission` is released when the last started sample is done.
    pub async fn score(
        &self,
        admission: Admission,
        envs: Arc<EnvCache>,
        (env, config): (String, Map<String, Value>),
        ceilings: Ceilings,
        samples: Vec<Sample>,
    ) -> Result<Vec<ResultLine>, ApiError> {
        let gone = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(gone.clone());
        let pool = self.pool(&env)?;
        let cancelled = self.cancelled.clone();
        let work = move || {
            let env: Arc<dyn Environment> = envs.get(&env, &config)?;
            let lines = pool.map(&samples, |sample| {
                if gone.load(Ordering::Relaxed) {
                    cancelled.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                let reward = ceilings
                    .refuse(sample)
                    .unwrap_or_else(|| score_guarded(env.as_ref(), sample));
                Some(ResultLine::new(sample, reward))
            });
            // Only a request whose client has gone skips samples; nobody reads this.
            lines
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| ApiError::internal("cancelled: the client disconnected"))
        };
        let task = tokio::task::spawn_blocking(move || {
            let _admission = admission;
            work()
        });
        task.await
            .map_err(|e| ApiError::internal(format!("a scoring task died: {e}")))?
    }
}
