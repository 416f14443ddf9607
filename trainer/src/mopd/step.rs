//! One MOPD step: the student samples `group_size` responses per prompt; each
//! domain's teacher scores its rows' sampled tokens (one teacher at a time, see the
//! module docs for the memory model); the student takes one AdamW step on the MOPD
//! loss, accumulated over micro-batches.
//!
//! Student and teacher log-probabilities are read at the sampling temperature (see
//! [`super::tempered`]), so on-policy importance ratios are 1 at any temperature.

use std::collections::BTreeMap;
use std::time::Instant;

use tch::{Kind, Tensor};

use super::loss::{mopd_advantage, mopd_loss_weighted};
use super::tempered::tempered;
use crate::grpo::importance::{ImportanceMetrics, MismatchFigures};
use crate::grpo::ImportanceCorrection;
use crate::logprobs::{
    backward_by_chunks, batch_lengths, bucketed_micro_batches, frozen_pass, token_logprobs_at,
    MicroBatching, OwnedSequenceBatch, PassMemory, PromptPass, SequenceBatch,
};
use crate::model::{ModelError, Transformer};
use crate::optim::AdamW;
use crate::sampling::multi_turn::{generate_episodes, Episode, TurnLimits};
use crate::sampling::{generate, Generation, SamplingParams};

#[derive(Debug, Clone)]
pub struct MopdConfig {
    pub group_size: usize,
    pub sampling: SamplingParams,
    /// How the training and teacher passes split the batch.
    pub micro_batch: MicroBatching,
    pub max_grad_norm: f64,
    /// The importance correction of the sampler's log-probs (the stage's
    /// `importance_correction`; by default Cascade's gate,
    /// [`ImportanceCorrection::CASCADE_MOPD`]).
    pub importance: ImportanceCorrection,
    /// What the training pass holds at once (see [`PassMemory`]).
    pub memory: PassMemory,
}

pub use super::pool::TeacherPool;

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct MopdStats {
    pub advantage_mean: f64,
    pub advantage_mean_by_domain: BTreeMap<String, f64>,
    /// Share of response tokens whose importance weight was gated to 0.
    pub truncated_share: f64,
    pub truncated_share_by_domain: BTreeMap<String, f64>,
    /// Mean importance weight `w_t` over response tokens: 1 when strictly on-policy.
    pub importance_weight_mean: f64,
    /// The train/sampler mismatch: mean k3 KL(π_sampler ‖ π_train) over response
    /// tokens (NeMo-RL's `gen_kl_error`; see [`crate::grpo::importance`]).
    pub sampler_kl_mean: f64,
    #[serde(flatten)]
    pub importance: ImportanceMetrics,
    pub response_len_mean: f64,
    pub entropy_mean: f64,
    pub grad_norm: f64,
    pub lr: f64,
    pub sampling_tokens_per_s: f64,
    pub training_tokens_per_s: f64,
    pub teacher_s: f64,
    pub step_s: f64,
}

/// Multi-turn MOPD: row `r` of the step (prompt by prompt, `group_size` rows each)
/// is the conversation `episodes[r]` drives, within `limits`.
pub struct Conversations<'a, 'e> {
    pub episodes: &'a mut [Box<dyn Episode + 'e>],
    pub limits: TurnLimits,
}

/// One MOPD step on `prompts`, each with its domain; with `conversations`, each row
/// is a multi-turn conversation and the loss covers the student's own tokens.
#[allow(clippy::too_many_arguments)]
pub fn mopd_step(
    student: &Transformer,
    teachers: &mut TeacherPool,
    optimizer: &mut AdamW,
    lr: f64,
    prompts: &[(String, Vec<i64>)],
    conversations: Option<Conversations>,
    decode: &(dyn Fn(&[i64]) -> String + Sync),
    cfg: &MopdConfig,
) -> Result<MopdStats, ModelError> {
    let start = Instant::now();
    let mut domains = Vec::new();
    let mut rows = Vec::new();
    for (domain, p) in prompts {
        for _ in 0..cfg.group_size {
            domains.push(domain.clone());
            rows.push(p.clone());
        }
    }
    let generation: Generation = match conversations {
        None => generate(student, &rows, &cfg.sampling, decode),
        Some(c) => generate_episodes(
            student,
            &rows,
            1,
            &cfg.sampling,
            c.limits,
            c.episodes,
            decode,
        ),
    };
    let sample_s = start.elapsed().as_secs_f64();
    let batch = SequenceBatch {
        prompt_ids: &generation.prompts.ids,
        prompt_valid: &generation.prompts.valid,
        completion_ids: &generation.completion_ids,
        completion_valid: &generation.completion_valid,
    };
    let teacher_start = Instant::now();
    let mut domain_rows: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (i, d) in domains.iter().enumerate() {
        domain_rows.entry(d.clone()).or_default().push(i as i64);
    }
    let teacher_logp = teacher_pass(teachers, &generation, &batch, &domain_rows, cfg)?;
    let teacher_s = teacher_start.elapsed().as_secs_f64();

    let num_tokens = trained_tokens(&generation, 0..rows.len());
    optimizer.zero_grad();
    let train_start = Instant::now();
    let mut pass = PassFigures {
        adv_sum: vec![0.0; rows.len()],
        gated: vec![0.0; rows.len()],
        ..Default::default()
    };
    if num_tokens > 0 {
        backward_pass(student, &generation, &batch, &teacher_logp, cfg, &mut pass);
    }
    let grad_norm = optimizer.clip_grad_norm(cfg.max_grad_norm);
    if num_tokens > 0 {
        optimizer.step(lr);
    }
    let times = StepTimes {
        sample_s,
        train_s: train_start.elapsed().as_secs_f64(),
        teacher_s,
        start,
    };
    let mut stats = summarise(&generation, &domain_rows, &pass, grad_norm, lr, times);
    stats.importance = ImportanceMetrics::of(&cfg.importance, &pass.mismatch);
    Ok(stats)
}

/// Teachers, one after another, each on its own domain's rows: the log-probabilities
/// of the sampled tokens, `[B, C]` in row order.
fn teacher_pass(
    teachers: &mut TeacherPool,
    generation: &Generation,
    batch: &SequenceBatch,
    domain_rows: &BTreeMap<String, Vec<i64>>,
    cfg: &MopdConfig,
) -> Result<Tensor, ModelError> {
    let device = generation.completion_ids.device();
    let teacher_logp = generation.sampling_logprobs.zeros_like();
    for (domain, idx) in domain_rows {
        let idx_t = Tensor::from_slice(idx).to_device(device);
        let lp = teachers.logprobs(
            domain,
            batch,
            &idx_t,
            cfg.micro_batch,
            cfg.sampling.temperature,
        )?;
        tch::no_grad(|| {
            let mut t = teacher_logp.shallow_clone();
            let _ = t.index_copy_(0, &idx_t, &lp);
        });
    }
    Ok(teacher_logp)
}

/// What the backward pass measured, per row where it says so.
#[derive(Default)]
struct PassFigures {
    /// Per row: the sum of its tokens' advantages.
    adv_sum: Vec<f64>,
    /// Per row: how many of its tokens' importance weights were gated to 0.
    gated: Vec<f64>,
    weight_sum: f64,
    entropy_sum: f64,
    train_tokens: f64,
    mismatch: MismatchFigures,
}

/// The MOPD loss of `batch`, backpropagated micro-batch by micro-batch, and within
/// one in chunks of the response (`cfg.memory`); gradients accumulate in the
/// student's parameters.
fn backward_pass(
    student: &Transformer,
    generation: &Generation,
    batch: &SequenceBatch,
    teacher_logp: &Tensor,
    cfg: &MopdConfig,
    figures: &mut PassFigures,
) {
    let n = generation.completion_ids.size()[0];
    let num_tokens = trained_tokens(generation, 0..n as usize) as f64;
    let dist = tempered(cfg.sampling.temperature);
    let device = generation.completion_ids.device();
    let keep = sequence_keep(student, generation, batch, cfg, figures);
    let parts = bucketed_micro_batches(&batch_lengths(batch), 1, cfg.micro_batch);
    let whole = parts.len() == 1;
    for rows in parts {
        // One micro-batch in order is the batch as it is; bucketed ones are trimmed.
        let part: OwnedSequenceBatch = match whole {
            true => batch.rows(0, n),
            false => batch.select_trimmed(&rows),
        };
        let width = part.completion_ids.size()[1];
        let idx = Tensor::from_slice(&rows).to_device(device);
        let pick = |t: &Tensor| t.index_select(0, &idx).narrow(1, 0, width);
        let sampling = pick(&generation.sampling_logprobs);
        let teacher = pick(teacher_logp);
        let keep = keep.as_ref().map(|k| k.index_select(0, &idx));
        // The student's own tokens: tool results in a conversation are not trained.
        let trained = pick(&generation.completion_trained);
        let pass = PromptPass::PerRow;
        backward_by_chunks(student, &part.view(), pass, dist, cfg.memory, |chunk| {
            let (sampling, teacher) = (chunk.columns(&sampling), chunk.columns(&teacher));
            let trained = chunk.columns(&trained);
            let mask = trained.to_kind(Kind::Float);
            figures.entropy_sum +=
                f64::try_from((&chunk.entropy * &mask).sum(Kind::Float)).unwrap_or(0.0);
            let weights = cfg
                .importance
                .token_weights(&chunk.logp, &sampling, keep.as_ref());
            tch::no_grad(|| {
                let taken = ChunkTokens {
                    logp: &chunk.logp,
                    sampling: &sampling,
                    teacher: &teacher,
                    weights: weights.as_ref(),
                    mask: &mask,
                };
                measure(&taken, &cfg.importance, &rows, figures)
            });
            mopd_loss_weighted(
                &chunk.logp,
                weights.as_ref(),
                &teacher,
                &trained,
                num_tokens,
            )
        });
        figures.train_tokens += part.valid_tokens();
    }
}

/// `seq-mask-tis`'s verdict per row `[B]`, from a no-grad pass of the student over
/// the whole batch (a row's geometric mean needs all its tokens before the first
/// chunk's backward); `None` for the token-level corrections.
fn sequence_keep(
    student: &Transformer,
    generation: &Generation,
    batch: &SequenceBatch,
    cfg: &MopdConfig,
    figures: &mut PassFigures,
) -> Option<Tensor> {
    if !cfg.importance.masks_sequences() {
        return None;
    }
    let dist = tempered(cfg.sampling.temperature);
    let train = frozen_pass(batch, cfg.micro_batch, student, |part| {
        token_logprobs_at(student, part, dist).0
    });
    let trained = &generation.completion_trained;
    let keep = cfg
        .importance
        .sequence_keep(&train, &generation.sampling_logprobs, trained)?;
    let in_loss = trained.any_dim(-1, false);
    figures.mismatch.add_sequences(&keep, &in_loss);
    Some(keep)
}

/// One chunk's log-probabilities `[b, c]` (student, sampler, teacher) and the tokens
/// trained.
struct ChunkTokens<'a> {
    logp: &'a Tensor,
    sampling: &'a Tensor,
    teacher: &'a Tensor,
    /// The importance weights (`None`: all 1).
    weights: Option<&'a Tensor>,
    mask: &'a Tensor,
}

/// A chunk's advantages and importance weights (its `k`-th row is the batch's row
/// `rows[k]`), added to the metrics.
fn measure(
    tokens: &ChunkTokens,
    correction: &ImportanceCorrection,
    rows: &[i64],
    figures: &mut PassFigures,
) {
    let per_row = |t: Tensor| -> Vec<f64> {
        let sum = (t * tokens.mask).sum_dim_intlist(-1, false, Kind::Float);
        Vec::try_from(sum.to_kind(Kind::Double)).unwrap_or_default()
    };
    let advantages = per_row(mopd_advantage(tokens.teacher, tokens.logp));
    for (&row, v) in rows.iter().zip(advantages) {
        figures.adv_sum[row as usize] += v;
    }
    let ones = tokens.mask.ones_like();
    let w = tokens.weights.unwrap_or(&ones);
    figures.weight_sum += f64::try_from((w * tokens.mask).sum(Kind::Double)).unwrap_or(f64::NAN);
    for (&row, v) in rows.iter().zip(per_row(w.eq(0.0).to_kind(Kind::Float))) {
        figures.gated[row as usize] += v;
    }
    let (logp, sampling) = (tokens.logp, tokens.sampling);
    figures
        .mismatch
        .add(correction, logp, sampling, tokens.weights, tokens.mask);
}

/// The student's own tokens in `rows` (what the loss covers).
fn trained_tokens(generation: &Generation, rows: impl IntoIterator<Item = usize>) -> usize {
    rows.into_iter().map(|r| generation.trained_tokens(r)).sum()
}

struct StepTimes {
    sample_s: f64,
    train_s: f64,
    teacher_s: f64,
    start: Instant,
}

/// The step's figures: means per response token, overall and per domain.
fn summarise(
    generation: &Generation,
    domain_rows: &BTreeMap<String, Vec<i64>>,
    pass: &PassFigures,
    grad_norm: f64,
    lr: f64,
    t: StepTimes,
) -> MopdStats {
    let rows = generation.completions.len();
    let num_tokens = trained_tokens(generation, 0..rows);
    let tokens = num_tokens.max(1) as f64;
    let mut by_domain = BTreeMap::new();
    let mut truncated_by_domain = BTreeMap::new();
    for (domain, idx) in domain_rows {
        let toks = trained_tokens(generation, idx.iter().map(|&i| i as usize));
        let toks = toks.max(1) as f64;
        let sum: f64 = idx.iter().map(|&i| pass.adv_sum[i as usize]).sum();
        by_domain.insert(domain.clone(), sum / toks);
        let cut: f64 = idx.iter().map(|&i| pass.gated[i as usize]).sum();
        truncated_by_domain.insert(domain.clone(), cut / toks);
    }
    MopdStats {
        advantage_mean: pass.adv_sum.iter().sum::<f64>() / tokens,
        advantage_mean_by_domain: by_domain,
        truncated_share: pass.gated.iter().sum::<f64>() / tokens,
        truncated_share_by_domain: truncated_by_domain,
        importance_weight_mean: pass.weight_sum / tokens,
        sampler_kl_mean: pass.mismatch.kl_mean(),
        importance: ImportanceMetrics::default(),
        response_len_mean: num_tokens as f64 / rows.max(1) as f64,
        entropy_mean: pass.entropy_sum / tokens,
        grad_norm,
        lr,
        sampling_tokens_per_s: num_tokens as f64 / t.sample_s.max(1e-9),
        training_tokens_per_s: pass.train_tokens / t.train_s.max(1e-9),
        teacher_s: t.teacher_s,
        step_s: t.start.elapsed().as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toy::addition::Problem;
    use crate::toy::bench::ToyTask;
    use cascade_verifiers::seeded::SplitMix64;
    use std::path::PathBuf;
    use tch::Device;

    /// A teacher identical to the student, sampled at temperature 0.4: every advantage is 0,
    /// and every importance weight is exactly 1 (read untempered, their mean is 0.85).
    #[test]
    fn same_model_at_temperature_0_4_gives_zero_advantage_and_unit_weights() {
        crate::numerics::pin_for_tests();
        let task = ToyTask::new().expect("toy task");
        // The 100-step warmed toy model: confident enough that T = 0.7 matters.
        let warm = crate::toy::assets_dir().with_file_name("toy-qwen2-warm");
        let student = Transformer::load(&warm, Device::Cpu, Kind::Float).expect("model");
        let teacher = Transformer::load(&warm, Device::Cpu, Kind::Float).expect("model");
        let key = PathBuf::from("t");
        let mut pool = TeacherPool::new(
            BTreeMap::from([("addition".to_owned(), key.clone())]),
            true,
            Device::Cpu,
        );
        pool.insert_loaded(&key, teacher);
        let mut student = student;
        student.set_trainable(true);
        let mut optimizer = AdamW::new(student.parameters(), Default::default());
        let mut rng = SplitMix64::new(0);
        let prompts: Vec<(String, Vec<i64>)> = (0..4)
            .map(|_| {
                let p = Problem::random(&mut rng).prompt();
                (
                    "addition".to_owned(),
                    task.tokenizer.encode(&p).expect("encode"),
                )
            })
            .collect();
        let mut sampling = task.grpo.sampling.clone();
        sampling.temperature = 0.4;
        let cfg = MopdConfig {
            group_size: 4,
            sampling,
            micro_batch: MicroBatching::Rows(8),
            max_grad_norm: 1.0,
            importance: ImportanceCorrection::CASCADE_MOPD,
            memory: Default::default(),
        };
        let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
        let stats = mopd_step(
            &student,
            &mut pool,
            &mut optimizer,
            1e-4,
            &prompts,
            None,
            &decode,
            &cfg,
        )
        .expect("step");
        assert!(stats.advantage_mean.abs() < 1e-5, "{stats:?}");
        assert_eq!(stats.truncated_share, 0.0, "{stats:?}");
        assert!(
            (stats.importance_weight_mean - 1.0).abs() < 1e-5,
            "{stats:?}"
        );
        assert_eq!(stats.truncated_share_by_domain["addition"], 0.0);
        assert!(stats.advantage_mean_by_domain["addition"].abs() < 1e-5);
    }
}
