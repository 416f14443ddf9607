//! The run summary printed to stderr: count, mean reward, outcomes and throughput.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use cascade_envs::Reward;

use cascade_envs::ResultLine;

pub struct Summary {
    pub env: String,
    pub count: usize,
    pub mean_reward: f64,
    pub outcomes: BTreeMap<String, usize>,
    pub elapsed: Duration,
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
        let total: f64 = results.iter().map(|r| r.reward).sum();
        Self {
            env: env.to_owned(),
            count: results.len(),
            mean_reward: if results.is_empty() {
                0.0
            } else {
                total / results.len() as f64
            },
            outcomes,
            elapsed,
        }
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
        for (outcome, n) in &self.outcomes {
            writeln!(f, "  {outcome:<16} {n}")?;
        }
        Ok(())
    }
}
