//! The rollout source of a GRPO step: what produces the step's groups (`group_size`
//! responses per prompt, in order), their rewards and the log-probs each token was
//! sampled at ([`ScoredGroups`], which is all the update reads). Today the local
//! sampler, single-turn ([`sample_and_score_batch`], each group scored on a separate
//! thread as soon as its responses end, while the rest of the batch samples and the
//! reference model's log-probs run) or multi-turn ([`sample_episodes`]); an external
//! engine would be another producer of the same [`ScoredGroups`]. Dynamic sampling's
//! merge of several rounds ([`ScoredGroups::with_signal`]) lives here too.

use std::time::Instant;

use rayon::prelude::*;
use tch::Tensor;

use super::step::{GrpoConfig, Unfinished};
use super::update::advantages;
use super::AdvantageOptions;
use crate::logprobs::{
    frozen_pass, token_logprobs_at, MicroBatching, SamplingDistribution, SequenceBatch,
};
use crate::model::Transformer;
use crate::sampling::multi_turn::{generate_episodes, Episode, TurnLimits};
use crate::sampling::{generate_groups_reporting, Generation};

/// Scores row `i` of the batch given its response ids; must be thread-safe.
pub type ScoreFn<'a> = dyn Fn(usize, &[i64]) -> f64 + Sync + 'a;

/// One step's responses and rewards, before the update: rows are `group_size`
/// responses per prompt, in order, all sampled from the current policy.
pub struct ScoredGroups {
    /// One entry per group (per prompt).
    pub prompts: Vec<Vec<i64>>,
    pub generation: Generation,
    pub rewards: Vec<f64>,
    /// The reference model's log-probs of the sampled tokens (when `kl_coef > 0`).
    pub ref_logp: Option<Tensor>,
    pub sample_s: f64,
    /// Time spent on the reference pass (counted as training time).
    pub reference_s: f64,
    pub reward_wait_s: f64,
    /// Groups whose rewards were computed while the rest of the batch was sampled.
    pub early_groups: usize,
}

/// Samples a group per prompt and scores it, each group as soon as its responses
/// have ended (in parallel with the rest of the sampling, then with the reference
/// model's log-probs).
pub fn sample_and_score(
    policy: &Transformer,
    reference: Option<&Transformer>,
    prompts: &[Vec<i64>],
    score: &ScoreFn,
    decode: &(dyn Fn(&[i64]) -> String + Sync),
    cfg: &GrpoConfig,
) -> ScoredGroups {
    let size = cfg.group_size.max(1);
    let group = |g: usize, responses: &[Vec<i64>]| {
        responses
            .par_iter()
            .enumerate()
            .map(|(k, ids)| score(g * size + k, ids))
            .collect::<Vec<f64>>()
    };
    let batch = |completions: &[Vec<i64>], wanted: &[bool]| {
        completions
            .par_iter()
            .enumerate()
            .map(|(i, ids)| if wanted[i] { score(i, ids) } else { 0.0 })
            .collect::<Vec<f64>>()
    };
    let scorer = BatchScorer {
        early: vec![true; prompts.len()],
        group: &group,
        batch: &batch,
    };
    sample_and_score_batch(policy, reference, prompts, &scorer, decode, cfg)
}

/// Group `g`'s rewards from its responses' ids.
pub type GroupScoreFn<'a> = dyn Fn(usize, &[Vec<i64>]) -> Vec<f64> + Sync + 'a;

/// The rewards of a batch's `wanted` rows (the others' are ignored), from all the
/// responses at once (reward models score them in batches).
pub type BatchScoreFn<'a> = dyn Fn(&[Vec<i64>], &[bool]) -> Vec<f64> + Sync + 'a;

/// How a batch's responses are scored.
pub struct BatchScorer<'a> {
    /// Per group: scored alone by `group` as soon as its responses have all ended,
    /// while the rest of the batch is still sampled. The others (rewards that need
    /// the whole batch, such as a reward model's batched pass) are scored by `batch`
    /// after sampling. Either way a row gets the same reward.
    pub early: Vec<bool>,
    pub group: &'a GroupScoreFn<'a>,
    pub batch: &'a BatchScoreFn<'a>,
}

/// [`sample_and_score`] with a [`BatchScorer`]: early groups are scored on a
/// separate thread from the moment they end, the rest on another while the
/// reference log-probs are computed. The rewards are those of scoring after
/// sampling, in the same order: only the time they take overlaps.
pub fn sample_and_score_batch(
    policy: &Transformer,
    reference: Option<&Transformer>,
    prompts: &[Vec<i64>],
    scorer: &BatchScorer,
    decode: &(dyn Fn(&[i64]) -> String + Sync),
    cfg: &GrpoConfig,
) -> ScoredGroups {
    let start = Instant::now();
    let size = cfg.group_size.max(1);
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<Vec<i64>>)>();
        let group = scorer.group;
        let worker = s.spawn(move || {
            rx.into_iter()
                .map(|(g, responses)| (g, group(g, &responses)))
                .collect::<Vec<_>>()
        });
        let mut sent = vec![false; prompts.len()];
        let generation = {
            let mut report = |g: usize, responses: Vec<Vec<i64>>| {
                if scorer.early.get(g).copied().unwrap_or(false) {
                    sent[g] = true;
                    let _ = tx.send((g, responses));
                }
            };
            let any_early = scorer.early.iter().any(|e| *e);
            let report = any_early.then_some(&mut report as &mut dyn FnMut(usize, Vec<Vec<i64>>));
            generate_groups_reporting(policy, prompts, size, &cfg.sampling, decode, report)
        };
        let sample_s = start.elapsed().as_secs_f64();
        let early_groups = sent.iter().filter(|s| **s).count();
        // The early groups that ended on the last step go now.
        for (g, early) in scorer.early.iter().enumerate() {
            if *early && !sent[g] {
                let rows = g * size..(g + 1) * size;
                let _ = tx.send((g, generation.completions[rows].to_vec()));
            }
        }
        drop(tx);
        let wanted: Vec<bool> = (0..generation.completions.len())
            .map(|i| !scorer.early.get(i / size).copied().unwrap_or(false))
            .collect();
        let rewards = move |completions: &[Vec<i64>]| {
            let mut rewards = (scorer.batch)(completions, &wanted);
            rewards.resize(completions.len(), 0.0);
            // Scoring is guarded per sample (a faulty environment costs its sample),
            // so a panic here is a trainer bug: raise it, never train on missing rewards.
            let early = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (g, group_rewards) in early {
                for (k, r) in group_rewards.into_iter().enumerate().take(size) {
                    if let Some(slot) = rewards.get_mut(g * size + k) {
                        *slot = r;
                    }
                }
            }
            rewards
        };
        let mut scored = scored_groups(prompts, generation, sample_s, reference, rewards, cfg);
        scored.early_groups = early_groups;
        scored
    })
}

/// Samples a group of conversations per prompt, row `r` driven by `episodes[r]`
/// (multi-turn: tool results between the model's turns, within `limits`); the
/// rewards are the episodes' own, given as their conversations ended.
#[allow(clippy::too_many_arguments)]
pub fn sample_episodes(
    policy: &Transformer,
    reference: Option<&Transformer>,
    prompts: &[Vec<i64>],
    episodes: &mut [Box<dyn Episode + '_>],
    limits: TurnLimits,
    decode: &(dyn Fn(&[i64]) -> String + Sync),
    cfg: &GrpoConfig,
) -> ScoredGroups {
    let start = Instant::now();
    let generation = generate_episodes(
        policy,
        prompts,
        cfg.group_size,
        &cfg.sampling,
        limits,
        episodes,
        decode,
    );
    let sample_s = start.elapsed().as_secs_f64();
    let rewards: Vec<f64> = episodes.iter().map(|e| e.reward()).collect();
    scored_groups(
        prompts,
        generation,
        sample_s,
        reference,
        move |_: &[Vec<i64>]| rewards,
        cfg,
    )
}

/// A sampled batch with its rewards (`rewards` of the responses, on a separate
/// thread while the reference model's log-probs are computed), unfinished responses
/// treated as `cfg` says.
fn scored_groups(
    prompts: &[Vec<i64>],
    generation: Generation,
    sample_s: f64,
    reference: Option<&Transformer>,
    rewards: impl FnOnce(&[Vec<i64>]) -> Vec<f64> + Send,
    cfg: &GrpoConfig,
) -> ScoredGroups {
    let num_rows = prompts.len() * cfg.group_size;
    let score_start = Instant::now();
    let (mut rewards, ref_logp, reward_wait_s) = std::thread::scope(|s| {
        let completions = &generation.completions;
        let scoring = s.spawn(move || rewards(completions));
        let ref_logp = match reference {
            Some(reference) if cfg.kl_coef > 0.0 => Some(reference_logprobs(
                reference,
                &generation,
                SamplingDistribution::of(&cfg.sampling),
                cfg.micro_batch,
            )),
            _ => None,
        };
        let wait = Instant::now();
        // Scoring is guarded per sample (a faulty environment costs its sample), so
        // a panic here is a trainer bug: raise it, never train on missing rewards.
        let rewards = scoring
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (rewards, ref_logp, wait.elapsed().as_secs_f64())
    });
    rewards.resize(num_rows, 0.0);
    if cfg.unfinished == Unfinished::Zero {
        for (r, done) in rewards.iter_mut().zip(&generation.finished) {
            if !done {
                *r = 0.0;
            }
        }
    }
    ScoredGroups {
        prompts: prompts.to_vec(),
        generation,
        rewards,
        ref_logp,
        sample_s,
        reference_s: score_start.elapsed().as_secs_f64() - reward_wait_s,
        reward_wait_s,
        early_groups: 0,
    }
}

impl ScoredGroups {
    /// Per group: whether it carries a learning signal (its rewards differ; with
    /// `unfinished = "filter"`, those of its finished responses).
    pub fn groups_with_signal(&self, cfg: &GrpoConfig) -> Vec<bool> {
        let opts = AdvantageOptions {
            drop_zero_variance: true,
            ..cfg.advantages
        };
        advantages(self, cfg, &opts).group_kept
    }

    /// Dynamic sampling's batch: the groups with signal of `rounds` (all sampled from
    /// the same policy), in order, at most `max_groups` of them. With no signal
    /// anywhere, the first round as it was (its update is then zero).
    pub fn with_signal(rounds: Vec<ScoredGroups>, max_groups: usize, cfg: &GrpoConfig) -> Self {
        let g = cfg.group_size.max(1);
        let mut picked: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut total = 0;
        for (k, round) in rounds.iter().enumerate() {
            let groups: Vec<usize> = round
                .groups_with_signal(cfg)
                .iter()
                .enumerate()
                .filter(|(_, s)| **s)
                .map(|(i, _)| i)
                .take(max_groups - total)
                .collect();
            total += groups.len();
            picked.push((k, groups));
        }
        let mut rounds = rounds;
        if total == 0 {
            return rounds.swap_remove(0);
        }
        let mut prompts = Vec::new();
        let mut rewards = Vec::new();
        let mut parts = Vec::new();
        for (k, groups) in &picked {
            let round = &rounds[*k];
            let rows: Vec<i64> = groups
                .iter()
                .flat_map(|&i| (i * g..(i + 1) * g).map(|r| r as i64))
                .collect();
            prompts.extend(groups.iter().map(|&i| round.prompts[i].clone()));
            rewards.extend(rows.iter().map(|&r| round.rewards[r as usize]));
            parts.push((&round.generation, rows));
        }
        let row_prompts: Vec<Vec<i64>> = prompts
            .iter()
            .flat_map(|p| std::iter::repeat_n(p.clone(), g))
            .collect();
        let generation = Generation::select_rows(&parts, &row_prompts, cfg.sampling.pad_id);
        let ref_logp = rounds[0].ref_logp.as_ref().map(|_| {
            let pieces: Vec<(&Tensor, &[i64])> = picked
                .iter()
                .zip(&parts)
                .filter_map(|((k, _), (_, rows))| {
                    rounds[*k].ref_logp.as_ref().map(|t| (t, rows.as_slice()))
                })
                .collect();
            crate::sampling::select_padded_rows(&pieces)
        });
        let sum = |f: fn(&ScoredGroups) -> f64| rounds.iter().map(f).sum::<f64>();
        ScoredGroups {
            prompts,
            rewards,
            ref_logp,
            sample_s: sum(|r| r.sample_s),
            reference_s: sum(|r| r.reference_s),
            reward_wait_s: sum(|r| r.reward_wait_s),
            early_groups: rounds.iter().map(|r| r.early_groups).sum(),
            generation,
        }
    }
}

/// Log-probabilities of the sampled tokens under a frozen model read at the sampling
/// distribution `dist` (so the KL compares like with like), `[B, C]`, computed
/// micro-batch by micro-batch without gradients.
pub fn reference_logprobs(
    model: &Transformer,
    generation: &Generation,
    dist: SamplingDistribution,
    micro_batch: MicroBatching,
) -> Tensor {
    let batch = SequenceBatch {
        prompt_ids: &generation.prompts.ids,
        prompt_valid: &generation.prompts.valid,
        completion_ids: &generation.completion_ids,
        completion_valid: &generation.completion_valid,
    };
    frozen_pass(&batch, micro_batch, model, |part| {
        token_logprobs_at(model, part, dist).0
    })
}

#[cfg(test)]
mod tests {
    use super::super::update::grpo_update;
    use super::*;
    use crate::optim::AdamW;
    use crate::toy::bench::ToyTask;
    use tch::Kind;

    /// Dynamic sampling's batch: two rounds, whose groups with signal (rewards that
    /// differ) are gathered in order, re-padded, and still trained strictly on-policy.
    #[test]
    fn refilled_groups_keep_their_rows_and_stay_on_policy() {
        crate::numerics::pin_for_tests();
        let task = ToyTask::new().expect("toy task");
        let model = task.new_model(2).expect("model");
        let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
        let mut cfg = task.grpo.clone();
        cfg.group_size = 4;
        cfg.micro_batch = MicroBatching::Rows(8);
        let encode = |ps: &[&str]| -> Vec<Vec<i64>> {
            ps.iter()
                .map(|p| task.tokenizer.encode(p).expect("encode"))
                .collect()
        };
        // Round 0: group 0 all-equal (no signal), group 1 with signal.
        let flat = |i: usize, _: &[i64]| if i < 4 { 1.0 } else { (i % 2) as f64 };
        let first = sample_and_score(
            &model,
            None,
            &encode(&["1+2=", "3+4="]),
            &flat,
            &decode,
            &cfg,
        );
        assert_eq!(first.groups_with_signal(&cfg), vec![false, true]);
        // Round 1: both groups with signal; only the first is needed.
        cfg.sampling.seed = 1;
        let signal = |i: usize, _: &[i64]| (i % 2) as f64;
        let second = sample_and_score(
            &model,
            None,
            &encode(&["5+6=", "7+8="]),
            &signal,
            &decode,
            &cfg,
        );
        let expect_rows: Vec<Vec<i64>> = first.generation.completions[4..8]
            .iter()
            .chain(&second.generation.completions[0..4])
            .cloned()
            .collect();
        let expect_logp: Vec<f64> = [(&first, 4..8), (&second, 0..4)]
            .iter()
            .flat_map(|(r, rows)| {
                rows.clone().flat_map(|i| {
                    let n = r.generation.completions[i].len() as i64;
                    let lp = r.generation.sampling_logprobs.get(i as i64).narrow(0, 0, n);
                    Vec::<f64>::try_from(lp.to_kind(Kind::Double)).unwrap_or_default()
                })
            })
            .collect();
        let merged = ScoredGroups::with_signal(vec![first, second], 2, &cfg);
        assert_eq!(merged.prompts, encode(&["3+4=", "5+6="]));
        assert_eq!(merged.generation.completions, expect_rows);
        assert_eq!(merged.rewards, vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
        assert_eq!(merged.groups_with_signal(&cfg), vec![true, true]);
        let valid = merged.generation.completion_valid.to_kind(Kind::Bool);
        let got: Vec<f64> = Vec::try_from(
            merged
                .generation
                .sampling_logprobs
                .masked_select(&valid)
                .to_kind(Kind::Double),
        )
        .unwrap_or_default();
        assert_eq!(got, expect_logp);
        let mut optimizer = AdamW::new(model.parameters(), Default::default());
        let stats = grpo_update(&model, &mut optimizer, 1e-3, merged, &cfg, Instant::now());
        assert!(stats.logprob_drift_max < 1e-4, "{stats:?}");
        assert!(stats.grad_norm > 0.0);
    }

    /// Scoring is guarded per sample, so a panic while scoring is a trainer bug: it is
    /// raised with its own message, never turned into a step of zero rewards.
    #[test]
    #[should_panic(expected = "a trainer bug while scoring")]
    fn a_panic_while_scoring_is_raised_not_read_as_zero_rewards() {
        crate::numerics::pin_for_tests();
        let task = ToyTask::new().expect("toy task");
        let model = task.new_model(2).expect("model");
        let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
        let prompts = vec![task.tokenizer.encode("1+2=").expect("encode")];
        let score = |_: usize, _: &[i64]| -> f64 { panic!("a trainer bug while scoring") };
        let _ = sample_and_score(&model, None, &prompts, &score, &decode, &task.grpo);
    }
}
