//! The update of a GRPO step: group advantages over a rollout's [`ScoredGroups`]
//! (unscored and, with `unfinished = "filter"`, unfinished responses left out of their
//! group's statistics), the loss mask, and one AdamW step on the token-level loss
//! accumulated over micro-batches and response chunks, with the importance correction
//! of the sampler's log-probs when the stage asks for one.

use std::time::Instant;

use tch::{Kind, Tensor};

use super::importance::{ImportanceMetrics, MismatchFigures};
use super::rollout::{reference_logprobs, ScoredGroups};
use super::step::{GrpoConfig, Rollout, StepStats, Unfinished};
use super::{
    group_advantages, is_scored, weighted_policy_loss, AdvantageOptions, GroupAdvantages,
    PolicyLossOptions, MIN_SCORED_PER_GROUP,
};
use crate::logprobs::{
    backward_by_chunks, bucketed_micro_batches, PromptPass, SamplingDistribution, SequenceBatch,
};
use crate::model::Transformer;
use crate::optim::AdamW;
use crate::sampling::Generation;

/// Group advantages of `scored` under `opts`: plain when every row is scored and
/// nothing is filtered, else over each group's included rows ([`included_rows`]).
pub(super) fn advantages(
    scored: &ScoredGroups,
    cfg: &GrpoConfig,
    opts: &AdvantageOptions,
) -> GroupAdvantages {
    let filter = cfg.unfinished == Unfinished::Filter;
    if !filter && scored.rewards.iter().all(|r| is_scored(*r)) {
        return group_advantages(&scored.rewards, cfg.group_size, opts);
    }
    let included = included_rows(&scored.rewards, &scored.generation.finished, cfg);
    scored_group_advantages(&scored.rewards, &included, cfg.group_size, opts)
}

/// The rows whose rewards enter their group's statistics and the loss: scored ones
/// (not [`UNSCORED`]), and with `unfinished = "filter"` finished ones.
fn included_rows(rewards: &[f64], finished: &[bool], cfg: &GrpoConfig) -> Vec<bool> {
    let filter = cfg.unfinished == Unfinished::Filter;
    rewards
        .iter()
        .enumerate()
        .map(|(i, r)| is_scored(*r) && (!filter || finished.get(i).copied().unwrap_or(false)))
        .collect()
}

/// [`finished_group_advantages`] over the `included` rows, a group with fewer than
/// [`MIN_SCORED_PER_GROUP`] scored responses dropped (advantages 0, not kept).
fn scored_group_advantages(
    rewards: &[f64],
    included: &[bool],
    group_size: usize,
    opts: &AdvantageOptions,
) -> GroupAdvantages {
    let size = group_size.max(1);
    let mut adv = finished_group_advantages(rewards, included, size, opts);
    for (g, group) in rewards.chunks(size).enumerate() {
        if group.iter().filter(|r| is_scored(**r)).count() < MIN_SCORED_PER_GROUP {
            adv.group_kept[g] = false;
            adv.advantages[g * size..g * size + group.len()].fill(0.0);
        }
    }
    adv
}

/// One AdamW step on `scored`, the token-level loss accumulated over micro-batches.
/// `start` is when the step began (for its total time).
pub fn grpo_update(
    policy: &Transformer,
    optimizer: &mut AdamW,
    lr: f64,
    scored: ScoredGroups,
    cfg: &GrpoConfig,
    start: Instant,
) -> StepStats {
    let train_start = Instant::now();
    let generation = &scored.generation;
    let adv = advantages(&scored, cfg, &cfg.advantages);
    let device = policy.device();
    let (loss_mask, num_tokens) = loss_mask(generation, &adv, &scored.rewards, cfg);
    let advantages = Tensor::from_slice(&adv.advantages)
        .to_kind(Kind::Float)
        .to_device(device);
    let loss_opts = PolicyLossOptions {
        epsilon_low: cfg.epsilon_low,
        epsilon_high: cfg.epsilon_high,
        kl_coef: cfg.kl_coef,
        num_tokens: num_tokens as f64,
    };
    let batch = SequenceBatch {
        prompt_ids: &generation.prompts.ids,
        prompt_valid: &generation.prompts.valid,
        completion_ids: &generation.completion_ids,
        completion_valid: &generation.completion_valid,
    };
    optimizer.zero_grad();
    let pass = if num_tokens > 0 {
        let mut figures = PassFigures::default();
        let loss = LossInputs {
            advantages: &advantages,
            mask: &loss_mask,
            keep: sequence_keep(policy, generation, &loss_mask, cfg, &mut figures),
            opts: &loss_opts,
        };
        backward_pass(policy, &batch, &scored, &loss, cfg, figures)
    } else {
        PassFigures::default()
    };
    let grad_norm = optimizer.clip_grad_norm(cfg.max_grad_norm);
    if num_tokens > 0 {
        optimizer.step(lr);
    }
    let train_s = train_start.elapsed().as_secs_f64() + scored.reference_s;
    let mut stats = stats(
        generation,
        &scored.rewards,
        &adv,
        StepTimes {
            sample_s: scored.sample_s,
            train_s,
            reward_wait_s: scored.reward_wait_s,
            total_s: start.elapsed().as_secs_f64(),
        },
        pass.entropy_sum / num_tokens.max(1) as f64,
        grad_norm,
        lr,
        pass.train_tokens,
    );
    stats.logprob_drift_max = pass.drift_max;
    stats.sampler_kl_mean = pass.mismatch.kl_mean();
    if !cfg.importance.is_off() {
        stats.importance_weight_mean = Some(pass.mismatch.weight_mean());
        stats.importance_masked_share = Some(pass.mismatch.masked_share());
    }
    stats.importance = ImportanceMetrics::of(&cfg.importance, &pass.mismatch);
    stats.reward_early_groups = scored.early_groups;
    stats.kl_mean = scored.ref_logp.as_ref().map(|r| {
        k3_kl_mean(
            r,
            &generation.sampling_logprobs,
            &generation.completion_trained,
        )
    });
    stats.rollout = Rollout {
        prompts: scored.prompts,
        completions: scored.generation.completions,
        rewards: scored.rewards,
    };
    stats
}

/// The mean k3 KL estimate `exp(δ) − δ − 1`, `δ = log π_ref − log π` (clamped as in
/// the loss), over the `mask`ed tokens; 0 when none are.
fn k3_kl_mean(ref_logp: &Tensor, logp: &Tensor, mask: &Tensor) -> f64 {
    use crate::grpo::policy_loss::{KL_DELTA_CLAMP, KL_VALUE_CLAMP};
    let delta = (ref_logp - logp).clamp(-KL_DELTA_CLAMP, KL_DELTA_CLAMP);
    let k3 = (delta.exp() - &delta - 1.0).clamp(-KL_VALUE_CLAMP, KL_VALUE_CLAMP);
    let mask = mask.to_kind(Kind::Bool);
    let kept = k3.where_self(&mask, &k3.zeros_like()).sum(Kind::Double);
    let count = mask.sum(Kind::Double).clamp_min(1.0);
    f64::try_from(kept / count).unwrap_or(f64::NAN)
}

/// What the backward pass measured on the way.
#[derive(Default)]
struct PassFigures {
    entropy_sum: f64,
    drift_max: f64,
    train_tokens: f64,
    mismatch: MismatchFigures,
}

/// `seq-mask-tis`'s verdict per row `[B]`, from a no-grad pass of the policy over the
/// whole batch (a row's geometric mean needs all its tokens before the first chunk's
/// backward; NeMo-RL reads it from the same kind of pass, `prev_logprobs`); `None`
/// for the token-level corrections, which need no extra pass.
fn sequence_keep(
    policy: &Transformer,
    generation: &Generation,
    loss_mask: &Tensor,
    cfg: &GrpoConfig,
    figures: &mut PassFigures,
) -> Option<Tensor> {
    if !cfg.importance.masks_sequences() {
        return None;
    }
    let dist = SamplingDistribution::of(&cfg.sampling);
    let train = reference_logprobs(policy, generation, dist, cfg.micro_batch);
    let sampled = &generation.sampling_logprobs;
    let keep = cfg.importance.sequence_keep(&train, sampled, loss_mask)?;
    let in_loss = loss_mask.any_dim(-1, false);
    figures.mismatch.add_sequences(&keep, &in_loss);
    Some(keep)
}

/// The tokens the loss covers, `[B, C]`, and how many there are: the model's own
/// tokens of the rows kept (tool results in a multi-turn response are attended to
/// but not trained; filtered groups, responses that could not be scored and, with
/// `unfinished = "filter"`, unfinished responses are left out).
fn loss_mask(
    generation: &Generation,
    adv: &GroupAdvantages,
    rewards: &[f64],
    cfg: &GrpoConfig,
) -> (Tensor, usize) {
    let num_rows = rewards.len();
    let included = included_rows(rewards, &generation.finished, cfg);
    let keep: Vec<bool> = (0..num_rows)
        .map(|i| adv.kept(i, cfg.group_size) && included[i])
        .collect();
    let keep_t = Tensor::from_slice(&keep).to_device(generation.completion_ids.device());
    let mask = generation
        .completion_trained
        .logical_and(&keep_t.unsqueeze(-1));
    let num_tokens = (0..num_rows)
        .filter(|&i| keep[i])
        .map(|i| generation.trained_tokens(i))
        .sum();
    (mask, num_tokens)
}

/// What the loss weighs each row's tokens by.
struct LossInputs<'a> {
    /// `[B]` per-row advantages.
    advantages: &'a Tensor,
    /// `[B, C]` the tokens the loss covers.
    mask: &'a Tensor,
    /// `[B]` `seq-mask-tis`'s kept sequences (see [`sequence_keep`]).
    keep: Option<Tensor>,
    opts: &'a PolicyLossOptions,
}

/// The loss of `batch` (rows of `scored`, masked by `loss.mask`), backpropagated
/// micro-batch by micro-batch, and within one in chunks of the response
/// (`cfg.memory`); gradients accumulate in the policy's parameters.
fn backward_pass(
    policy: &Transformer,
    batch: &SequenceBatch,
    scored: &ScoredGroups,
    loss: &LossInputs,
    cfg: &GrpoConfig,
    mut figures: PassFigures,
) -> PassFigures {
    let (prompts, micro_batches) = micro_batch_plan(scored, cfg);
    // The distribution the tokens were drawn from: training differentiates it, so the
    // update is on-policy at any temperature and top-p (ratio 1, drift = rounding).
    let dist = SamplingDistribution::of(&cfg.sampling);
    let device = policy.device();
    for rows in micro_batches {
        let part = batch.select_trimmed(&rows);
        let width = part.completion_ids.size()[1];
        let idx = Tensor::from_slice(&rows).to_device(device);
        let pick = |t: &Tensor| t.index_select(0, &idx).narrow(1, 0, width);
        let mask = pick(loss.mask);
        let sampled = pick(&scored.generation.sampling_logprobs);
        let reference = scored.ref_logp.as_ref().map(pick);
        let keep = loss.keep.as_ref().map(|k| k.index_select(0, &idx));
        let advantages = loss.advantages.index_select(0, &idx);
        backward_by_chunks(policy, &part.view(), prompts, dist, cfg.memory, |chunk| {
            let mask = chunk.columns(&mask);
            let valid = mask.to_kind(Kind::Float);
            figures.entropy_sum +=
                f64::try_from((&chunk.entropy * &valid).sum(Kind::Float)).unwrap_or(0.0);
            let drift = ((chunk.logp.detach() - chunk.columns(&sampled)).abs() * &valid).max();
            figures.drift_max = figures
                .drift_max
                .max(f64::try_from(drift).unwrap_or(f64::NAN));
            let reference = reference.as_ref().map(|r| chunk.columns(r));
            let sampled = chunk.columns(&sampled);
            let weights = cfg
                .importance
                .token_weights(&chunk.logp, &sampled, keep.as_ref());
            let w = weights.as_ref();
            let mismatch = &mut figures.mismatch;
            mismatch.add(&cfg.importance, &chunk.logp, &sampled, w, &valid);
            weighted_policy_loss(
                &chunk.logp,
                None,
                reference.as_ref(),
                &advantages,
                &mask,
                w,
                loss.opts,
            )
        });
        figures.train_tokens += part.valid_tokens();
    }
    figures
}

/// How the training pass splits `scored`: the rows of each micro-batch, and how their
/// prompts run (micro-batches of whole groups let each prompt run once for its group).
fn micro_batch_plan(scored: &ScoredGroups, cfg: &GrpoConfig) -> (PromptPass, Vec<Vec<i64>>) {
    let n = scored.rewards.len();
    let group = cfg.group_size.max(1);
    let lengths: Vec<usize> = (0..n)
        .map(|r| scored.generation.completions[r].len() + scored.prompts[r / group].len())
        .collect();
    let (prompts, unit) = match cfg.micro_batch.keeps_units(&lengths, group) {
        true => (PromptPass::SharedByGroup(group as i64), group),
        false => (PromptPass::PerRow, 1),
    };
    (
        prompts,
        bucketed_micro_batches(&lengths, unit, cfg.micro_batch),
    )
}

/// Group advantages when unfinished responses are filtered: each group's mean and
/// standard deviation are taken over its finished responses only, since the filtered
/// ones take no part in the loss and must not shift the baseline of those that do.
/// Unfinished responses get advantage 0; a group with no finished response is dropped.
fn finished_group_advantages(
    rewards: &[f64],
    finished: &[bool],
    group_size: usize,
    opts: &AdvantageOptions,
) -> GroupAdvantages {
    let size = group_size.max(1);
    let mut advantages = vec![0.0; rewards.len()];
    let mut group_kept = Vec::new();
    for (g, group) in rewards.chunks(size).enumerate() {
        let members: Vec<usize> = (g * size..g * size + group.len())
            .filter(|&i| finished.get(i).copied().unwrap_or(false))
            .collect();
        let kept_rewards: Vec<f64> = members.iter().map(|&i| rewards[i]).collect();
        let sub = group_advantages(&kept_rewards, members.len().max(1), opts);
        for (&i, a) in members.iter().zip(&sub.advantages) {
            advantages[i] = *a;
        }
        group_kept.push(sub.group_kept.first().copied().unwrap_or(false));
    }
    GroupAdvantages {
        advantages,
        group_kept,
    }
}

struct StepTimes {
    sample_s: f64,
    train_s: f64,
    reward_wait_s: f64,
    total_s: f64,
}

#[allow(clippy::too_many_arguments)]
fn stats(
    generation: &Generation,
    rewards: &[f64],
    adv: &super::GroupAdvantages,
    t: StepTimes,
    entropy_mean: f64,
    grad_norm: f64,
    lr: f64,
    train_tokens: f64,
) -> StepStats {
    let n = rewards.len().max(1) as f64;
    let tokens = generation.num_tokens() as f64;
    let scored: Vec<f64> = rewards.iter().copied().filter(|r| is_scored(*r)).collect();
    StepStats {
        reward_mean: scored.iter().sum::<f64>() / scored.len().max(1) as f64,
        reward_max: scored.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        unscored: rewards.len() - scored.len(),
        filtered_share: adv.filtered_share(),
        response_len_mean: tokens / n,
        turns_mean: generation.turns.iter().sum::<usize>() as f64 / n,
        entropy_mean,
        grad_norm,
        logprob_drift_max: 0.0,
        sampler_kl_mean: 0.0,
        importance_weight_mean: None,
        importance_masked_share: None,
        importance: ImportanceMetrics::default(),
        lr,
        refill_groups: 0,
        kl_mean: None,
        sampling_tokens_per_s: tokens / t.sample_s.max(1e-9),
        training_tokens_per_s: train_tokens / t.train_s.max(1e-9),
        reward_wait_s: t.reward_wait_s,
        reward_early_groups: 0,
        step_s: t.total_s,
        rollout: Rollout::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grpo::rollout::sample_and_score;
    use crate::grpo::ImportanceCorrection;
    use crate::logprobs::MicroBatching;
    use crate::toy::bench::ToyTask;

    /// The training pass's own log-probs of `scored`'s tokens, `[B, C]`, taken over the
    /// same micro-batches and chunks as [`backward_pass`] (so bit for bit the same).
    fn training_logprobs(policy: &Transformer, scored: &ScoredGroups, cfg: &GrpoConfig) -> Tensor {
        let generation = &scored.generation;
        let batch = SequenceBatch {
            prompt_ids: &generation.prompts.ids,
            prompt_valid: &generation.prompts.valid,
            completion_ids: &generation.completion_ids,
            completion_valid: &generation.completion_valid,
        };
        let out = generation.sampling_logprobs.zeros_like();
        let dist = SamplingDistribution::of(&cfg.sampling);
        let (prompts, parts) = micro_batch_plan(scored, cfg);
        for rows in parts {
            let part = batch.select_trimmed(&rows);
            let idx = Tensor::from_slice(&rows);
            backward_by_chunks(policy, &part.view(), prompts, dist, cfg.memory, |chunk| {
                tch::no_grad(|| {
                    let mut cols = out.narrow(1, chunk.start, chunk.len);
                    let _ = cols.index_copy_(0, &idx, &chunk.logp.detach());
                });
                (&chunk.logp * 0.0).sum(Kind::Float)
            });
        }
        out
    }

    /// A toy model's weights and one batch it sampled, made once per test: both come
    /// from libtorch's global random stream, which tests running beside it also draw
    /// from, so every update of a test starts from these copies.
    struct Fixture {
        task: ToyTask,
        weights: Vec<Tensor>,
        scored: ScoredGroups,
        cfg: GrpoConfig,
    }

    impl Fixture {
        fn new() -> Self {
            crate::numerics::pin_for_tests();
            let task = ToyTask::new().expect("toy task");
            let model = task.new_model(2).expect("model");
            let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
            let mut cfg = task.grpo.clone();
            cfg.group_size = 4;
            cfg.micro_batch = MicroBatching::Rows(8);
            let prompts: Vec<Vec<i64>> = ["1+2=", "3+4="]
                .iter()
                .map(|p| task.tokenizer.encode(p).expect("encode"))
                .collect();
            let score = |i: usize, _: &[i64]| (i % 2) as f64;
            let scored = sample_and_score(&model, None, &prompts, &score, &decode, &cfg);
            let weights = model
                .parameters()
                .values()
                .map(|p| p.detach().copy())
                .collect();
            Self {
                task,
                weights,
                scored,
                cfg,
            }
        }

        /// The model, fresh from the fixture's weights.
        fn model(&self) -> Transformer {
            let model = self.task.new_model(2).expect("model");
            tch::no_grad(|| {
                for (p, w) in model.parameters().values().zip(&self.weights) {
                    p.shallow_clone().copy_(w);
                }
            });
            model
        }

        /// The fixture's batch, copied.
        fn scored(&self) -> ScoredGroups {
            let s = &self.scored;
            let rows: Vec<i64> = (0..s.rewards.len() as i64).collect();
            let size = self.cfg.group_size;
            let row_prompts: Vec<Vec<i64>> = rows
                .iter()
                .map(|&r| s.prompts[r as usize / size].clone())
                .collect();
            let parts = [(&s.generation, rows)];
            ScoredGroups {
                prompts: s.prompts.clone(),
                generation: Generation::select_rows(&parts, &row_prompts, self.cfg.sampling.pad_id),
                rewards: s.rewards.clone(),
                ref_logp: None,
                sample_s: 0.0,
                reference_s: 0.0,
                reward_wait_s: 0.0,
                early_groups: 0,
            }
        }

        /// One update with `importance`; `sampler` rewrites the recorded sampling
        /// log-probs first. Returns the stats and the updated weights.
        fn update(
            &self,
            importance: ImportanceCorrection,
            sampler: impl Fn(&Transformer, &ScoredGroups, &GrpoConfig) -> Option<Tensor>,
        ) -> (StepStats, Vec<Tensor>) {
            let model = self.model();
            let cfg = GrpoConfig {
                importance,
                ..self.cfg.clone()
            };
            let mut scored = self.scored();
            if let Some(logp) = sampler(&model, &scored, &cfg) {
                scored.generation.sampling_logprobs = logp;
            }
            let mut optimizer = AdamW::new(model.parameters(), Default::default());
            let stats = grpo_update(&model, &mut optimizer, 1e-3, scored, &cfg, Instant::now());
            let weights = model
                .parameters()
                .values()
                .map(|p| p.detach().copy())
                .collect();
            (stats, weights)
        }
    }

    /// Sampler log-probs equal to the trainer's: every kind's weights are exactly 1
    /// and nothing is masked, so the update is bit for bit today's uncorrected step.
    #[test]
    fn sampler_logprobs_equal_to_the_trainers_give_exactly_the_uncorrected_step() {
        let fixture = Fixture::new();
        let (today, today_weights) = fixture.update(ImportanceCorrection::Off, |_, _, _| None);
        assert!(today.importance_weight_mean.is_none(), "{today:?}");
        assert!(today.grad_norm > 0.0);
        let kinds = [
            ImportanceCorrection::Tis { min: 0.0, max: 2.0 },
            ImportanceCorrection::Icepop { min: 0.5, max: 5.0 },
            ImportanceCorrection::SeqMaskTis {
                min: 0.999,
                max: 1.002,
            },
        ];
        for kind in kinds {
            let equal = |m: &Transformer, s: &ScoredGroups, c: &GrpoConfig| {
                Some(training_logprobs(m, s, c))
            };
            let (stats, weights) = fixture.update(kind, equal);
            assert_eq!(stats.importance_weight_mean, Some(1.0), "{kind:?}");
            assert_eq!(stats.importance_masked_share, Some(0.0), "{kind:?}");
            assert_eq!(stats.sampler_kl_mean, 0.0, "{kind:?}");
            assert_eq!(stats.logprob_drift_max, 0.0, "{kind:?}");
            let shares = [
                stats.importance.importance_out_of_bounds_share,
                stats.importance.importance_masked_sequence_share,
            ];
            assert!(shares.iter().flatten().all(|s| *s == 0.0), "{kind:?}");
            assert_eq!(stats.grad_norm, today.grad_norm, "{kind:?}");
            for (a, b) in weights.iter().zip(&today_weights) {
                assert!(a.equal(b), "{kind:?}: the update differs");
            }
        }
    }

    /// A sampler far off on one row (its tokens' ratio e^−3 ≈ 0.05): ICE-POP masks that
    /// row's tokens, `seq-mask-tis` the row, and the metrics say how much.
    #[test]
    fn a_mismatched_row_is_masked_and_reported() {
        let shifted = |m: &Transformer, s: &ScoredGroups, c: &GrpoConfig| {
            let logp = training_logprobs(m, s, c);
            let _ = logp.get(0).g_add_scalar_(3.0);
            Some(logp)
        };
        let row_share = |stats: &StepStats, s: f64| {
            let n = stats.rollout.completions[0].len() as f64;
            let total: usize = stats.rollout.completions.iter().map(Vec::len).sum();
            assert!(
                (s - n / total as f64).abs() < 1e-9,
                "{s} vs {n}/{total}: {stats:?}"
            );
        };
        let fixture = Fixture::new();
        let icepop = ImportanceCorrection::Icepop { min: 0.5, max: 5.0 };
        let (icepop, _) = fixture.update(icepop, shifted);
        row_share(&icepop, icepop.importance_masked_share.expect("on"));
        row_share(
            &icepop,
            icepop
                .importance
                .importance_out_of_bounds_share
                .expect("on"),
        );
        let want_kl = (-3.0f64).exp() - 1.0 + 3.0;
        let kl_share = icepop.sampler_kl_mean / want_kl; // float32 sums: to 1e-7
        assert!((kl_share - 1.0 / 8.0).abs() < 1e-6, "{icepop:?}");
        let seq = ImportanceCorrection::SeqMaskTis {
            min: 0.999,
            max: 1.002,
        };
        let (masked, _) = fixture.update(seq, shifted);
        row_share(&masked, masked.importance_masked_share.expect("on"));
        assert_eq!(
            masked.importance.importance_masked_sequence_share,
            Some(1.0 / 8.0)
        );
    }

    #[test]
    fn filtered_responses_are_left_out_of_group_statistics() {
        crate::numerics::pin_for_tests();
        // Group 1: rewards 1, 0, (0 unfinished), 1 → stats over 1, 0, 1: mean 2/3,
        // sample std √(((1/3)² + (2/3)² + (1/3)²)/2) = √(1/3).
        // Group 2: only one finished response → zero variance, advantage 0.
        let rewards = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5];
        let finished = [true, true, false, true, false, true, false, false];
        let opts = AdvantageOptions {
            epsilon: 0.0,
            ..Default::default()
        };
        let g = finished_group_advantages(&rewards, &finished, 4, &opts);
        let std = (1.0f64 / 3.0).sqrt();
        let want = [
            (1.0 / 3.0) / std,
            -(2.0 / 3.0) / std,
            0.0,
            (1.0 / 3.0) / std,
            0.0,
            0.0,
            0.0,
            0.0,
        ];
        for (a, w) in g.advantages.iter().zip(want) {
            assert!((a - w).abs() < 1e-9, "{:?}", g.advantages);
        }
        assert_eq!(g.group_kept, vec![true, true]);
        // Unfiltered, the unfinished 0 would have pulled the mean down to 1/2.
        let all = group_advantages(&rewards[..4], 4, &opts);
        assert!((all.advantages[0] - g.advantages[0]).abs() > 0.1);
        // A group with nothing finished is dropped.
        let g = finished_group_advantages(&[1.0, 0.0], &[false, false], 2, &opts);
        assert_eq!((g.advantages, g.group_kept), (vec![0.0, 0.0], vec![false]));
    }

    #[test]
    fn unscored_responses_are_left_out_and_thin_groups_dropped() {
        use super::super::UNSCORED;
        let opts = AdvantageOptions {
            epsilon: 0.0,
            ..Default::default()
        };
        // Group 1: 1, 0, (unscored), 1 → as if the group were 1, 0, 1; scored 0 it
        // would have pulled the mean down and moved every advantage.
        // Group 2: one scored response of four → dropped.
        let rewards = [1.0, 0.0, UNSCORED, 1.0, UNSCORED, 1.0, UNSCORED, UNSCORED];
        let included: Vec<bool> = rewards.iter().map(|r| is_scored(*r)).collect();
        let g = scored_group_advantages(&rewards, &included, 4, &opts);
        let alone = group_advantages(&[1.0, 0.0, 1.0], 3, &opts);
        assert_eq!(
            g.advantages[..4],
            [
                alone.advantages[0],
                alone.advantages[1],
                0.0,
                alone.advantages[2]
            ]
        );
        assert_eq!(g.advantages[4..], [0.0; 4]);
        assert_eq!(g.group_kept, vec![true, false]);
        let as_zero = group_advantages(&[1.0, 0.0, 0.0, 1.0], 4, &opts);
        assert!((as_zero.advantages[0] - g.advantages[0]).abs() > 0.1);
        assert!(g.advantages.iter().all(|a| a.is_finite()));
    }
}
