//! Rewards that are a reward model's score (`rlhf` envs, which declare their model
//! through `Environment::model_reward`): the model is loaded once per stage, on the
//! trainer's device, and scores a step's (prompt, response) sequences in batches of
//! the env's `batch`. Scoring runs on GRPO's reward thread, beside the reference
//! pass, so the model sits behind a mutex (tch tensors are `Send`, not `Sync`).

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

    /// Rewards of a step's rows: row `i` answers pick `picks[i / group_size]`
    /// (env, row) with `completions[i]`. Rows of model-scored envs are scored in
    /// batches after their prompt; rows of envs that judge groups (`genrm`) a group
    /// at a time, on their `decode`d text; the others by `check` (their
    /// environment); the groups and the checks in parallel.
    pub fn score_rows(
        &self,
        data: &[EnvData],
        picks: &[(usize, usize)],
        group_size: usize,
        completions: &[Vec<i64>],
        check: &(dyn Fn(usize, &[i64]) -> f64 + Sync),
        decode: &(dyn Fn(&[i64]) -> String + Sync),
    ) -> Vec<f64> {
        let env_of = |i: usize| picks[i / group_size].0;
        let by_group = |e: usize| data[e].env.group().is_some();
        let mut rewards: Vec<f64> = completions
            .par_iter()
            .enumerate()
            .map(|(i, ids)| match &self.per_env[env_of(i)] {
                Some(_) => 0.0,
                None if by_group(env_of(i)) => 0.0,
                None => check(i, ids),
            })
            .collect();
        let judged: Vec<(usize, Vec<f64>)> = (0..picks.len())
            .into_par_iter()
            .filter(|&g| by_group(picks[g].0))
            .filter_map(|g| {
                let (e, r) = picks[g];
                let texts: Vec<String> = completions[g * group_size..(g + 1) * group_size]
                    .iter()
                    .map(|ids| decode(ids))
                    .collect();
                data[e].score_group(r, &texts).map(|scores| (g, scores))
            })
            .collect();
        for (g, scores) in judged {
            rewards[g * group_size..(g + 1) * group_size].copy_from_slice(&scores);
        }
        for (env, loaded) in self.per_env.iter().enumerate() {
            let Some(loaded) = loaded else { continue };
            let rows: Vec<usize> = (0..completions.len())
                .filter(|&i| env_of(i) == env)
                .collect();
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
