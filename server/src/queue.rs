//! The bridge from the async routes to the scoring threads, with admission control.
//!
//! The queue is bounded in **samples**: a request is admitted only if all its samples
//! fit in what is left of `--max-queue` (accepted but unfinished samples, whatever the
//! request), else it is refused at once with 429 and `Retry-After`. An admitted request
//! holds its share until its last sample is scored, so the work in the server never
//! exceeds the bound. A batch larger than the whole queue could never fit: 413.
//!
//! Admitted work runs on a blocking thread that hands its samples to the one
//! [`ScoringPool`]; it always runs to the end and returns rewards in input order. A
//! client that disconnects drops only the receiving future: its work finishes into a
//! closed channel and frees its share, so no worker or permit leaks.

use std::sync::Arc;

use axum::http::StatusCode;
use cascade_envs::scoring::PoolError;
use cascade_envs::{score_guarded, Environment, ResultLine, Sample, ScoringPool};
use serde_json::{Map, Value};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::envs::EnvCache;
use crate::error::ApiError;

/// The scoring threads and the admission bound in front of them.
pub struct ScoringQueue {
    pool: Arc<ScoringPool>,
    slots: Arc<Semaphore>,
    capacity: usize,
}

/// Samples of one admitted request: its share of the queue until dropped.
pub struct Admission {
    _permits: OwnedSemaphorePermit,
}

impl ScoringQueue {
    /// `jobs` scoring threads (0 = one per core) behind a queue of `capacity` samples.
    pub fn new(jobs: usize, capacity: usize) -> Result<Self, PoolError> {
        // Permits are taken in u32 batches, so the bound fits in one.
        let capacity = capacity.clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        Ok(Self {
            pool: Arc::new(ScoringPool::new(jobs)?),
            slots: Arc::new(Semaphore::new(capacity)),
            capacity,
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

    /// Scores `samples` with the environment `env` + `config` (built or cached on the
    /// scoring side), keeping input order. `admission` is released when the last
    /// sample is done, whether or not anyone still waits for the answer.
    pub async fn score(
        &self,
        admission: Admission,
        envs: Arc<EnvCache>,
        env: String,
        config: Map<String, Value>,
        samples: Vec<Sample>,
    ) -> Result<Vec<ResultLine>, ApiError> {
        let pool = self.pool.clone();
        let task = tokio::task::spawn_blocking(move || {
            let _admission = admission;
            let env: Arc<dyn Environment> = envs.get(&env, &config)?;
            Ok(pool.map(&samples, |sample| {
                ResultLine::new(sample, score_guarded(env.as_ref(), sample))
            }))
        });
        task.await
            .map_err(|e| ApiError::internal(format!("a scoring task died: {e}")))?
    }
}
