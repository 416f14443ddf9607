//! GRPO stages: each step samples and scores a group per drawn prompt (with `refill`,
//! more rounds until enough groups carry signal) and takes one GRPO update. A batch
//! that draws a multi-turn environment's rows samples conversations.

use std::collections::BTreeMap;

use serde_json::Value;

use super::data::EnvData;
use super::episodes::{any_multi_turn, episodes};
use super::model_rewards::ModelRewards;
use super::stage::{draw, line, sampling, AlgorithmStep, StepInput};
use super::RunError;
use crate::grpo::step::{
    grpo_update, sample_and_score_batch, sample_episodes, BatchScorer, GrpoConfig, ScoredGroups,
};
use crate::grpo::AdvantageOptions;
use crate::model::Transformer;
use crate::recipe::GrpoStage;
use crate::tokenizer::TextTokenizer;

/// A GRPO stage's step; `reference` is the stage's starting model when `kl > 0`;
/// `model_rewards` the reward models of its `rlhf` envs.
pub struct GrpoStep<'a> {
    pub stage: &'a GrpoStage,
    pub reference: Option<Transformer>,
    pub model_rewards: ModelRewards,
}

fn grpo_config(stage: &GrpoStage, tokenizer: &TextTokenizer, seed: i64) -> GrpoConfig {
    GrpoConfig {
        group_size: stage.rollout.group_size,
        sampling: sampling(&stage.rollout, tokenizer, seed),
        advantages: AdvantageOptions {
            baseline: stage.baseline,
            scale_by_std: stage.scale_by_std,
            drop_zero_variance: stage.filter_zero_variance || stage.refill,
            epsilon: 1e-6,
        },
        epsilon_low: stage.epsilon_low,
        epsilon_high: stage.epsilon_high,
        kl_coef: stage.kl,
        unfinished: stage.unfinished,
        micro_batch: stage.rollout.micro_batching(stage.common.prompts_per_step),
        max_grad_norm: stage.common.max_grad_norm,
        memory: stage.rollout.pass_memory(),
        importance: stage.importance_correction,
    }
}

impl GrpoStep<'_> {
    /// The step's sampled rounds: round 0 is the step as it always was; with `refill`,
    /// more rounds drawn on from the same stream until `prompts_per_step` groups
    /// carry signal or the rounds run out. Also returns round 0's picks.
    fn rounds(&self, input: &mut StepInput) -> (Vec<(usize, usize)>, Vec<ScoredGroups>) {
        let stage = self.stage;
        let per_step = stage.common.prompts_per_step;
        let data = input.data;
        let decode = |ids: &[i64]| input.tokenizer.decode(ids).unwrap_or_default();
        let extra = if stage.refill { stage.refill_rounds } else { 0 };
        let mut rounds = Vec::new();
        let mut first_picks = Vec::new();
        let mut with_signal = 0;
        for round in 0..=extra {
            let picks = draw(&mut input.rng, data, per_step);
            let prompts: Vec<Vec<i64>> = picks
                .iter()
                .map(|&(e, r)| data[e].prompts[r].clone())
                .collect();
            let cfg = grpo_config(
                stage,
                input.tokenizer,
                input.seed.wrapping_add(round as i64),
            );
            let scored = if any_multi_turn(data, &picks) {
                let mut episodes =
                    episodes(data, &picks, stage.rollout.group_size, input.tokenizer);
                sample_episodes(
                    input.policy,
                    self.reference.as_ref(),
                    &prompts,
                    &mut episodes,
                    stage.rollout.turn_limits(),
                    &decode,
                    &cfg,
                )
            } else {
                let group_size = stage.rollout.group_size;
                let check = |i: usize, ids: &[i64]| {
                    let (e, r) = picks[i / group_size];
                    data[e]
                        .reward(r, &decode(ids))
                        .unwrap_or(crate::grpo::UNSCORED)
                };
                // Only the reward models go to the reward threads (the step holds
                // the reference model, whose tensors are not `Sync`).
                let model_rewards = &self.model_rewards;
                let group = |g: usize, responses: &[Vec<i64>]| {
                    model_rewards.score_group(data, &picks, g, responses, &check, &decode)
                };
                let batch = |completions: &[Vec<i64>], wanted: &[bool]| {
                    model_rewards.score_rows(data, &picks, group_size, completions, wanted)
                };
                let scorer = BatchScorer {
                    early: model_rewards.scores_alone(&picks),
                    group: &group,
                    batch: &batch,
                };
                sample_and_score_batch(
                    input.policy,
                    self.reference.as_ref(),
                    &prompts,
                    &scorer,
                    &decode,
                    &cfg,
                )
            };
            if stage.refill {
                with_signal += scored
                    .groups_with_signal(&cfg)
                    .iter()
                    .filter(|s| **s)
                    .count();
            }
            rounds.push(scored);
            if round == 0 {
                first_picks = picks;
            }
            if with_signal >= per_step {
                break;
            }
        }
        (first_picks, rounds)
    }
}

/// The mean sampled reward of each domain the step drew, over round 0 (the step's
/// prompts as drawn, before `refill` chose among rounds). A stage of several domains
/// shows which of them it learns: its `reward_mean` mixes them in proportions that
/// change from step to step with the draw.
fn reward_by_domain(
    data: &[EnvData],
    picks: &[(usize, usize)],
    rewards: &[f64],
    group_size: usize,
) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for (group, &(env, _)) in rewards.chunks(group_size.max(1)).zip(picks) {
        let sum = sums.entry(data[env].domain.as_str()).or_default();
        // Responses that could not be scored are no evidence either way.
        let scored = group.iter().filter(|r| crate::grpo::is_scored(**r));
        sum.0 += scored.clone().sum::<f64>();
        sum.1 += scored.count();
    }
    sums.into_iter()
        .map(|(domain, (sum, n))| (domain.to_owned(), sum / n.max(1) as f64))
        .collect()
}

impl AlgorithmStep for GrpoStep<'_> {
    fn step(&mut self, mut input: StepInput) -> Result<Value, RunError> {
        let stage = self.stage;
        let per_step = stage.common.prompts_per_step;
        let (picks, mut rounds) = self.rounds(&mut input);
        let by_domain = reward_by_domain(
            input.data,
            &picks,
            &rounds[0].rewards,
            stage.rollout.group_size,
        );
        let cfg = grpo_config(stage, input.tokenizer, input.seed);
        let refill_groups = (rounds.len() - 1) * per_step;
        let scored = if stage.refill {
            ScoredGroups::with_signal(rounds, per_step, &cfg)
        } else {
            rounds.swap_remove(0)
        };
        let mut stats = grpo_update(
            input.policy,
            input.optimizer,
            input.lr,
            scored,
            &cfg,
            input.start,
        );
        stats.refill_groups = refill_groups;
        let mut figures = line(&stats);
        figures["reward_mean_by_domain"] = serde_json::json!(by_domain);
        Ok(figures)
    }
}

#[cfg(test)]
mod tests {
    use super::super::data::tests::faulty_data;
    use super::*;

    #[test]
    fn each_drawn_domain_gets_the_mean_of_its_groups() {
        let data = [faulty_data("math"), faulty_data("code"), faulty_data("swe")];
        // Groups of two: math, code, math; swe was not drawn.
        let picks = [(0, 0), (1, 3), (0, 1)];
        let rewards = [1.0, 0.0, 0.5, 0.5, 1.0, 1.0];
        let by_domain = reward_by_domain(&data, &picks, &rewards, 2);
        let expected = BTreeMap::from([("code".to_owned(), 0.5), ("math".to_owned(), 0.75)]);
        assert_eq!(by_domain, expected);
    }
}
