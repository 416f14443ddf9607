//! The run summary printed to stderr: count, mean reward, outcomes and throughput.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use cascade_envs::{Registry, Reward};

use cascade_envs::ResultLine;

pub struct Summary {
    pub env: String,
    pub count: usize,
    /// Over the scored samples: those that could not be scored are counted in
    /// `failed`, never as zeros.
    pub mean_reward: f64,
    /// Samples that could not be scored (`"reward": null`, `details.failed`).
    pub failed: usize,
    pub outcomes: BTreeMap<String, usize>,
    pub elapsed: Duration,
    /// `plugin NAME: KIND PATH sha256 HEX` for the scored plugin and those it uses.
    pub plugins: Vec<String>,
}

impl Summary {
    pub fn new(env: &str, results: &[ResultLine], elapsed: Duration) -> Self {
        let mut outcomes = BTreeMap::new();
        for r in results {
            let reward = Reward {
                score: r.reward,
                details: r.details.clone(),
            };
            *outcomes.entry(reward.outcome()).or_insert(0) += 1;
        }
        let scored: Vec<f64> = results.iter().filter_map(ResultLine::scored).collect();
        let total: f64 = scored.iter().sum();
        Self {
            env: env.to_owned(),
            count: results.len(),
            mean_reward: if scored.is_empty() {
                0.0
            } else {
                total / scored.len() as f64
            },
            failed: results.len() - scored.len(),
            outcomes,
            elapsed,
            plugins: Vec::new(),
        }
    }

    /// Names the plugin scored (and every plugin it uses) with its sha256, so that a
    /// changed plugin is visible in the summary.
    pub fn with_plugins(mut self, registry: &Registry) -> Self {
        let mut pending = vec![self.env.clone()];
        while let Some(name) = pending.pop() {
            let Some(listing) = registry.listing(&name) else {
                continue;
            };
            if let (Some(path), Some(sha)) = (&listing.path, &listing.sha256) {
                let line = format!(
                    "plugin {name}: {} {} sha256 {sha}",
                    listing.kind,
                    path.display()
                );
                if !self.plugins.contains(&line) {
                    self.plugins.push(line);
                    pending.extend(listing.uses.iter().cloned());
                }
            }
        }
        self
    }

    pub fn throughput(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.count as f64 / secs
        } else {
            0.0
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "env {}: {} samples, mean reward {:.4}, {:.2}s ({:.1} samples/s)",
            self.env,
            self.count,
            self.mean_reward,
            self.elapsed.as_secs_f64(),
            self.throughput()
        )?;
        for line in &self.plugins {
            writeln!(f, "  {line}")?;
        }
        if self.failed > 0 {
            // Apart from the zeros: the mean above is over the scored samples only.
            writeln!(
                f,
                "  {} could not be scored (reward null, left out of the mean)",
                self.failed
            )?;
        }
        for (outcome, n) in &self.outcomes {
            writeln!(f, "  {outcome:<16} {n}")?;
        }
        Ok(())
    }
}
