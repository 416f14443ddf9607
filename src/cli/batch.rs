//! Scoring a batch of samples on N threads through the environments' one guarded
//! scoring path (`cascade_envs::scoring`): results come back in input order whatever
//! the parallelism, and a panicking environment costs one sample (reward 0 with the
//! panic message), never the batch.

use std::io::IsTerminal;

use anyhow::Context;
use cascade_envs::{score_guarded, Environment, ResultLine, ScoringPool};
use indicatif::{ProgressBar, ProgressStyle};

use super::input::NumberedSample;

/// Scores every sample with `jobs` threads (0 = all cores).
pub fn score_all(
    env: &dyn Environment,
    samples: &[NumberedSample],
    jobs: usize,
) -> anyhow::Result<Vec<ResultLine>> {
    let pool = ScoringPool::new(jobs).context("cannot start the scoring threads")?;
    let progress = progress_bar(samples.len());
    let results = pool.map(samples, |numbered| {
        let reward = score_guarded(env, &numbered.sample);
        progress.inc(1);
        ResultLine::new(&numbered.sample, reward)
    });
    progress.finish_and_clear();
    Ok(results)
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
