//! Group advantages: `Â_i = (r_i − baseline_i) / (std(r_1..G) + ε)`, the same value for
//! every token of response `i`.
//!
//! `std` is the sample standard deviation (n − 1), as TRL and NeMo-RL compute it.
//! Zero-variance groups carry no signal; with `drop_zero_variance` they are reported
//! as filtered (Cascade's dynamic filtering), else their advantages are all 0.

/// The reward of a response that could not be scored (a scorer panic or limit, a
/// plugin crash, no judge: `Reward::failed`). NaN, so that it can never pass for a
/// score: GRPO leaves such a response out of its group's statistics, its advantage and
/// the loss, and drops a group left with fewer than [`MIN_SCORED_PER_GROUP`] scored
/// responses. Scoring it 0 would be a false negative that moves every advantage of
/// its group.
pub const UNSCORED: f64 = f64::NAN;

/// The fewest scored responses a group needs to carry a learning signal.
pub const MIN_SCORED_PER_GROUP: usize = 2;

/// Whether `reward` is a score (not [`UNSCORED`]).
pub fn is_scored(reward: f64) -> bool {
    !reward.is_nan()
}

/// What a response is compared against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    /// The group mean, including the response itself (GRPO, Cascade).
    #[default]
    Mean,
    /// The mean of the other responses of the group (RLOO, NeMo-RL's default).
    LeaveOneOut,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdvantageOptions {
    pub baseline: Baseline,
    /// Divide by the group's standard deviation (Dr. GRPO turns this off).
    pub scale_by_std: bool,
    /// Mark groups whose rewards are all equal as filtered.
    pub drop_zero_variance: bool,
    pub epsilon: f64,
}

impl Default for AdvantageOptions {
    fn default() -> Self {
        Self {
            baseline: Baseline::Mean,
            scale_by_std: true,
            drop_zero_variance: false,
            epsilon: 1e-6,
        }
    }
}

/// Per response its advantage; per group whether it was kept.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupAdvantages {
    pub advantages: Vec<f64>,
    pub group_kept: Vec<bool>,
}

impl GroupAdvantages {
    /// Whether response `i` (of groups of `group_size`) takes part in the loss.
    pub fn kept(&self, i: usize, group_size: usize) -> bool {
        self.group_kept[i / group_size]
    }

    /// Share of groups that were filtered out.
    pub fn filtered_share(&self) -> f64 {
        if self.group_kept.is_empty() {
            return 0.0;
        }
        let dropped = self.group_kept.iter().filter(|k| !**k).count();
        dropped as f64 / self.group_kept.len() as f64
    }
}

/// Advantages for `rewards` laid out as consecutive groups of `group_size`.
/// A trailing partial group is treated as its own group.
pub fn group_advantages(
    rewards: &[f64],
    group_size: usize,
    opts: &AdvantageOptions,
) -> GroupAdvantages {
    let mut advantages = Vec::with_capacity(rewards.len());
    let mut group_kept = Vec::new();
    for group in rewards.chunks(group_size.max(1)) {
        let n = group.len() as f64;
        let sum: f64 = group.iter().sum();
        let mean = sum / n;
        let var = if group.len() > 1 {
            group.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let std = var.sqrt();
        let zero_variance = group.iter().all(|r| *r == group[0]);
        group_kept.push(!(zero_variance && opts.drop_zero_variance));
        for &r in group {
            if zero_variance {
                advantages.push(0.0);
                continue;
            }
            let baseline = match opts.baseline {
                Baseline::Mean => mean,
                Baseline::LeaveOneOut => (sum - r) / (n - 1.0),
            };
            let centred = r - baseline;
            advantages.push(if opts.scale_by_std {
                centred / (std + opts.epsilon)
            } else {
                centred
            });
        }
    }
    GroupAdvantages {
        advantages,
        group_kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-9, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn hand_computed_group() {
        // rewards 1,0,0,1: mean 0.5, sample std sqrt(1/3) = 0.57735.
        let g = group_advantages(
            &[1.0, 0.0, 0.0, 1.0],
            4,
            &AdvantageOptions {
                epsilon: 0.0,
                ..Default::default()
            },
        );
        let a = 0.5 / (1.0f64 / 3.0).sqrt();
        close(&g.advantages, &[a, -a, -a, a]);
        assert_eq!(g.group_kept, vec![true]);
    }

    #[test]
    fn all_equal_groups_are_zero_or_filtered() {
        let opts = AdvantageOptions::default();
        let g = group_advantages(&[1.0, 1.0, 0.0, 1.0], 2, &opts);
        // Second group: mean 0.5, sample std √0.5.
        let a = 0.5 / (0.5f64.sqrt() + 1e-6);
        close(&g.advantages, &[0.0, 0.0, -a, a]);
        assert_eq!(g.group_kept, vec![true, true]);
        let g = group_advantages(
            &[1.0, 1.0, 0.0, 1.0],
            2,
            &AdvantageOptions {
                drop_zero_variance: true,
                ..opts
            },
        );
        assert_eq!(g.group_kept, vec![false, true]);
        assert_eq!(g.filtered_share(), 0.5);
        assert!(!g.kept(1, 2) && g.kept(2, 2));
    }

    #[test]
    fn leave_one_out_and_unscaled() {
        let opts = AdvantageOptions {
            baseline: Baseline::LeaveOneOut,
            scale_by_std: false,
            ..Default::default()
        };
        // r = 3, 0, 0: baselines 0, 1.5, 1.5.
        let g = group_advantages(&[3.0, 0.0, 0.0], 3, &opts);
        close(&g.advantages, &[3.0, -1.5, -1.5]);
        let opts = AdvantageOptions {
            scale_by_std: false,
            ..Default::default()
        };
        close(
            &group_advantages(&[3.0, 0.0, 0.0], 3, &opts).advantages,
            &[2.0, -1.0, -1.0],
        );
    }
}
