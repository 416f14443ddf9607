//! A GRPO step's rewards. Groups of checking envs are scored alone, as soon as their
//! responses end (each row by its environment; `genrm`-like envs judge the group
//! together). Rewards that are a reward model's score (`rlhf` envs, which declare
//! their model through `Environment::model_reward`) wait for the whole step: the
//! model is loaded once per stage, on the trainer's device, and scores the step's
//! (prompt, response) sequences in batches of the env's `batch`, on GRPO's reward
//! thread beside the reference pass, so it sits behind a mutex (tch tensors are
//! `Send`, not `Sync`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cascade_envs::rlhf::ModelReward;
use rayon::prelude::*;
use tch::Device;

use super::data::EnvData;
use super::RunError;
use crate::model::Transformer;
use crate::reward_model::{load_reward_model, score_all};

/// One env's reward model and how its scores become rewards.
struct LoadedRewardModel {
    model: Mutex<Transformer>,
    spec: ModelReward,
}

/// The reward models of a stage's envs, by env index (`None`: the env checks).
pub struct ModelRewards {
    per_env: Vec<Option<LoadedRewardModel>>,
}

impl ModelRewards {
    /// Loads the reward model of every env of `data` that declares one; `locate`
    /// turns its `reward_model` (an `rm` stage's name or a folder) into a folder.
    pub fn load(
        data: &[EnvData],
        locate: &dyn Fn(&str) -> PathBuf,
        tokenizer_dir: &Path,
        device: Device,
    ) -> Result<Self, RunError> {
        let mut per_env = Vec::with_capacity(data.len());
        for d in data {
            let Some(spec) = d.env.model_reward() else {
                per_env.push(None);
                continue;
            };
            let dir = locate(&spec.reward_model);
            let model =
                load_reward_model(&dir, tokenizer_dir, device).map_err(|e| RunError::Env {
                    name: d.env.name().to_owned(),
                    message: e.to_string(),
                })?;
            per_env.push(Some(LoadedRewardModel {
                model: Mutex::new(model),
                spec: spec.clone(),
            }));
        }
        Ok(Self { per_env })
    }

    /// Whether group `g` of a step drawing `picks` can be scored alone, as soon as
    /// its responses end: every group but those of reward-model envs, which are
    /// scored in batches of the whole step.
    pub fn scores_alone(&self, picks: &[(usize, usize)]) -> Vec<bool> {
        picks
            .iter()
            .map(|&(e, _)| self.per_env[e].is_none())
            .collect()
    }

    /// Rewards of group `g` (pick `picks[g]`), answered by `responses`: its
    /// environment's group judgement (`genrm`, on their `decode`d text), or each
    /// row's `check`, in parallel. Reward-model groups are scored by
    /// [`ModelRewards::score_rows`] instead (0 here).
    #[allow(clippy::too_many_arguments)]
    pub fn score_group(
        &self,
        data: &[EnvData],
        picks: &[(usize, usize)],
        g: usize,
        responses: &[Vec<i64>],
        check: &(dyn Fn(usize, &[i64]) -> f64 + Sync),
        decode: &(dyn Fn(&[i64]) -> String + Sync),
    ) -> Vec<f64> {
        let (e, r) = picks[g];
        if self.per_env[e].is_some() {
            return vec![0.0; responses.len()];
        }
        if data[e].env.group().is_some() {
            let texts: Vec<String> = responses.iter().map(|ids| decode(ids)).collect();
            if let Some(scores) = data[e].score_group(r, &texts) {
                return scores;
            }
        }
        let first = g * responses.len();
        score_distinct(responses, |k| check(first + k, &responses[k]))
    }

    /// Rewards of a step's `wanted` rows of reward-model envs (others: 0): row `i`
    /// answers pick `picks[i / group_size]` (env, row) with `completions[i]`,
    /// scored in batches after its prompt.
    pub fn score_rows(
        &self,
        data: &[EnvData],
        picks: &[(usize, usize)],
        group_size: usize,
        completions: &[Vec<i64>],
        wanted: &[bool],
    ) -> Vec<f64> {
        let mut rewards = vec![0.0; completions.len()];
        for (env, loaded) in self.per_env.iter().enumerate() {
            let Some(loaded) = loaded else { continue };
            let rows: Vec<usize> = (0..completions.len())
                .filter(|&i| wanted[i] && picks[i / group_size].0 == env)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let sequences: Vec<Vec<i64>> = rows
                .iter()
                .map(|&i| {
                    let (e, r) = picks[i / group_size];
                    let mut ids = data[e].prompts[r].clone();
                    ids.extend_from_slice(&completions[i]);
                    ids
                })
                .collect();
            let model = loaded.model.lock().unwrap_or_else(|p| p.into_inner());
            let scores = score_all(&model, &sequences, loaded.spec.batch);
            for (&i, score) in rows.iter().zip(scores) {
                let reward = loaded.spec.reward(score);
                // A non-finite score is the model's fault, not the sample's: show it,
                // and never train on it.
                rewards[i] = if reward.is_finite() {
                    reward
                } else {
                    eprintln!(
                        "[{}] row {i}: reward model scored {score}; reward 0",
                        data[env].domain
                    );
                    0.0
                };
            }
        }
        rewards
    }
}

/// Scores a group's responses to one row, each distinct response once (in parallel),
/// and gives repeats the score of their first occurrence. Exact because scores are
/// deterministic, and what a group that has converged needs: at an entropy of 0.04
/// nats a token (the main job's SWE RL), most of a group's diffs are the same text,
/// and each costs a sandboxed test run.
fn score_distinct(responses: &[Vec<i64>], score: impl Fn(usize) -> f64 + Sync) -> Vec<f64> {
    let first_of: Vec<usize> = responses
        .iter()
        .enumerate()
        .map(|(k, ids)| responses[..k].iter().position(|o| o == ids).unwrap_or(k))
        .collect();
    let distinct: Vec<usize> = (0..responses.len()).filter(|&k| first_of[k] == k).collect();
    let mut by_index = vec![0.0; responses.len()];
    let scores: Vec<f64> = distinct.par_iter().map(|&k| score(k)).collect();
    for (&k, score) in distinct.iter().zip(scores) {
        by_index[k] = score;
    }
    first_of.iter().map(|&f| by_index[f]).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::score_distinct;

    #[test]
    fn repeated_responses_are_scored_once_and_share_the_score() {
        let responses = vec![vec![1, 2], vec![3], vec![1, 2], vec![], vec![3], vec![1, 2]];
        let calls = AtomicUsize::new(0);
        let scores = score_distinct(&responses, |k| {
            calls.fetch_add(1, Ordering::SeqCst);
            responses[k].len() as f64 + k as f64 / 10.0
        });
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        assert_eq!(scores, [2.0, 1.1, 2.0, 0.3, 1.1, 2.0]);
    }
}
