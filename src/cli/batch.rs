//! Scoring a batch of samples on N threads. Results come back in input order whatever
//! the parallelism, and a panicking environment costs one sample (reward 0 with the
//! panic message), never the batch.

use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Context;
use cascade_envs::{Environment, Reward};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value};

use super::jsonl::NumberedSample;

/// One output line, in the contract's field order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultLine {
    pub id: Value,
    pub reward: f64,
    pub details: Map<String, Value>,
}

impl ResultLine {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            // Only non-finite floats can fail here; keep the line, say why.
            format!(
                r#"{{"id":{},"reward":0.0,"details":{{"error":"unserialisable result: {e}"}}}}"#,
                self.id
            )
        })
    }
}

/// Scores every sample with `jobs` threads (0 = all cores).
pub fn score_all(
    env: &dyn Environment,
    samples: &[NumberedSample],
    jobs: usize,
) -> anyhow::Result<Vec<ResultLine>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        // Model programs recurse deeply (sandboxed interpreters, parsers): give workers room.
        .stack_size(64 << 20)
        .build()
        .context("cannot start the scoring threads")?;
    let progress = progress_bar(samples.len());
    let results = pool.install(|| {
        samples
            .par_iter()
            .map(|numbered| {
                let line = score_one(env, numbered);
                progress.inc(1);
                line
            })
            .collect()
    });
    progress.finish_and_clear();
    Ok(results)
}

fn score_one(env: &dyn Environment, numbered: &NumberedSample) -> ResultLine {
    let sample = &numbered.sample;
    let reward = match catch_unwind(AssertUnwindSafe(|| env.score(sample))) {
        Ok(reward) => reward,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Reward::error(format!("internal error while scoring: {message}"))
        }
    };
    let score = if reward.score.is_finite() {
        reward.score.clamp(0.0, 1.0)
    } else {
        0.0
    };
    ResultLine {
        id: sample.id_value(),
        reward: score,
        details: reward.details,
    }
}

fn progress_bar(len: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} {per_sec}",
    ) {
        bar.set_style(style);
    }
    bar
}
