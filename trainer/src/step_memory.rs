//! One GRPO or MOPD training step (forward, loss, backward, AdamW) on synthetic
//! responses of a given length, without sampling: its time, peak memory and MFU, under
//! each [`PassMemory`] setting and [`Precision`]. `cascade bench-model --train-step`
//! prints it; run each setting in its own process, since the peak resident set never
//! goes down.
//!
//! It answers "does a 16K-token response fit, and what does chunking and recomputing
//! buy": the rows are what a rollout would hand the trainer (a prompt, a response,
//! a ±1 advantage per row), and the loss is the GRPO policy loss of [`crate::grpo`] or
//! the MOPD loss of [`crate::mopd`] (a second random model of the same shape as the
//! teacher, its pass counted in the step). With a folder to save to, the weights
//! (rounded to the checkpoint dtype first, so the saved file is exactly the model that
//! stepped), the batch and the figures are written for `scripts/compare/`'s peer.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use serde_json::json;
use tch::{Device, Kind, Tensor};

use crate::device::Precision;
use crate::grpo::ImportanceCorrection;
use crate::grpo::{policy_loss, PolicyLossOptions};
use crate::logprobs::{backward_by_chunks, PassMemory, PromptPass, SamplingDistribution};
use crate::logprobs::{frozen_pass, token_logprobs, Activations, MicroBatching, SequenceBatch};
use crate::model::{ModelConfig, ModelError, Transformer};
use crate::mopd::mopd_loss;
use crate::optim::{AdamW, AdamWConfig};
use crate::throughput::forward_flops_per_token;

/// The shape of the step.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StepShape {
    pub rows: usize,
    pub prompt_len: usize,
    pub response_len: usize,
}

/// Which algorithm's step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepAlgorithm {
    Grpo,
    /// The teacher's frozen pass, then the student's MOPD loss.
    Mopd,
}

/// Everything that sets up one measured step.
#[derive(Debug, Clone, Copy)]
pub struct StepSpec {
    pub shape: StepShape,
    pub algorithm: StepAlgorithm,
    pub memory: PassMemory,
    /// MiB of logits per chunk, for the report (`None`: the whole response at once).
    pub logit_chunk_mb: Option<usize>,
    pub precision: Precision,
    pub peak_flops: f64,
    /// The attention paths (`None`: the device's default).
    pub attention: Option<crate::model::KernelPaths>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepMemoryReport {
    pub device: String,
    pub params: i64,
    #[serde(flatten)]
    pub shape: StepShape,
    pub algorithm: StepAlgorithm,
    /// MiB of logits per chunk; `null` for the whole response at once.
    pub logit_chunk_mb: Option<usize>,
    pub activations: &'static str,
    /// Whether the passes ran under bf16 autocast.
    pub bf16: bool,
    /// libtorch's intra-op threads.
    pub threads: i32,
    /// The attention paths the passes took.
    pub attention: crate::model::KernelPaths,
    pub seconds: f64,
    /// With MOPD: the seconds of the teacher's pass, within `seconds`.
    pub teacher_seconds: f64,
    pub training_tokens_per_s: f64,
    pub mfu: f64,
    /// Peak resident set of the process (`VmHWM`), MiB; on CUDA the host side only.
    pub peak_rss_mb: f64,
    /// Resident set after loading the model and optimizer, before the step, MiB.
    pub rss_before_step_mb: f64,
    /// `[rows × response_len × vocab]` float32 logits, MiB: one copy of what the
    /// unchunked path materialises (it holds about three: logits, log-softmax, grad).
    pub whole_logits_mb: f64,
    pub loss: f64,
    /// The global gradient norm before clipping.
    pub grad_norm: f64,
    /// The mean log-probability of the response tokens under the policy.
    pub mean_logp: f64,
}

/// The synthetic batch of a step.
struct StepBatch {
    prompt_ids: Tensor,
    prompt_valid: Tensor,
    completion_ids: Tensor,
    completion_valid: Tensor,
    /// `[rows]`: +1 and −1 by turns.
    advantages: Tensor,
}

impl StepBatch {
    fn new(shape: StepShape, vocab: i64, device: Device) -> Self {
        let prompt_ids = synthetic_ids(shape.rows, shape.prompt_len, vocab, 7, device);
        let completion_ids = synthetic_ids(shape.rows, shape.response_len, vocab, 13, device);
        let valid = |t: &Tensor| t.ones_like().to_kind(Kind::Bool);
        let signs: Vec<f32> = (0..shape.rows)
            .map(|r| if r % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        Self {
            prompt_valid: valid(&prompt_ids),
            completion_valid: valid(&completion_ids),
            prompt_ids,
            completion_ids,
            advantages: Tensor::from_slice(&signs).to_device(device),
        }
    }

    fn view(&self) -> SequenceBatch<'_> {
        SequenceBatch {
            prompt_ids: &self.prompt_ids,
            prompt_valid: &self.prompt_valid,
            completion_ids: &self.completion_ids,
            completion_valid: &self.completion_valid,
        }
    }
}

/// GRPO's clip range, as the recipes default it.
const GRPO_LOSS: PolicyLossOptions = PolicyLossOptions {
    epsilon_low: 0.2,
    epsilon_high: 0.28,
    kl_coef: 0.0,
    num_tokens: 0.0,
};

/// Runs one step of `spec` on a random model of `config`; with `save`, writes the
/// model, the batch and the report there (see the module docs).
pub fn measure_step(
    config: ModelConfig,
    device: Device,
    spec: StepSpec,
    save: Option<&Path>,
) -> Result<StepMemoryReport, ModelError> {
    let vocab = config.vocab_size;
    let mut model = Transformer::random(config.clone(), device, Kind::Float, 0)?;
    model.round_to_saved_dtype();
    model.set_precision(spec.precision);
    model.set_trainable(true);
    if let Some(paths) = spec.attention {
        model.set_kernel_paths(paths);
    }
    let teacher = match spec.algorithm {
        StepAlgorithm::Grpo => None,
        StepAlgorithm::Mopd => {
            let mut t = Transformer::random(config.clone(), device, Kind::Float, 1)?;
            t.set_precision(spec.precision);
            t.set_kernel_paths(model.kernel_paths());
            Some(t)
        }
    };
    let params: i64 = model.parameters().values().map(|t| t.numel() as i64).sum();
    let mut optimizer = AdamW::new(model.parameters(), AdamWConfig::default());
    let batch = StepBatch::new(spec.shape, vocab, device);
    let rss_before_step_mb = resident_mb("VmRSS");
    if device.is_cuda() {
        tch::Cuda::synchronize(0);
    }
    let start = Instant::now();
    optimizer.zero_grad();
    let (outcome, teacher_seconds) = match &teacher {
        None => (grpo_backward(&model, &batch, spec), 0.0),
        Some(teacher) => {
            let teacher_start = Instant::now();
            let teacher_logp = teacher_logprobs(teacher, &batch);
            let teacher_s = teacher_start.elapsed().as_secs_f64();
            (
                mopd_backward(&model, &batch, &teacher_logp, spec),
                teacher_s,
            )
        }
    };
    let grad_norm = optimizer.clip_grad_norm(1.0);
    optimizer.step(1e-6);
    if device.is_cuda() {
        tch::Cuda::synchronize(0);
    }
    let seconds = start.elapsed().as_secs_f64();
    let report = step_report(
        &config,
        device,
        spec,
        params,
        seconds,
        teacher_seconds,
        rss_before_step_mb,
        outcome,
        grad_norm,
    );
    if let Some(dir) = save {
        save_step(dir, &model, &batch, &report)?;
    }
    Ok(report)
}

/// What the loss pass summed: the loss and the response tokens' log-probabilities.
#[derive(Default)]
struct LossOutcome {
    loss: f64,
    logp_sum: f64,
}

impl LossOutcome {
    fn add(&mut self, loss: &Tensor, logp: &Tensor, mask: &Tensor) {
        self.loss += f64::try_from(loss).unwrap_or(f64::NAN);
        let taken = (logp.detach() * mask.to_kind(Kind::Float)).sum(Kind::Double);
        self.logp_sum += f64::try_from(taken).unwrap_or(f64::NAN);
    }
}

fn response_tokens(spec: &StepSpec) -> f64 {
    (spec.shape.rows * spec.shape.response_len) as f64
}

/// GRPO's loss over the batch (one micro-batch), backpropagated chunk by chunk.
fn grpo_backward(model: &Transformer, batch: &StepBatch, spec: StepSpec) -> LossOutcome {
    let opts = PolicyLossOptions {
        num_tokens: response_tokens(&spec),
        ..GRPO_LOSS
    };
    let mut outcome = LossOutcome::default();
    let dist = SamplingDistribution::MODEL;
    let view = batch.view();
    backward_by_chunks(
        model,
        &view,
        PromptPass::PerRow,
        dist,
        spec.memory,
        |chunk| {
            let mask = chunk.columns(&batch.completion_valid);
            let loss = policy_loss(&chunk.logp, None, None, &batch.advantages, &mask, &opts);
            outcome.add(&loss, &chunk.logp, &mask);
            loss
        },
    );
    outcome
}

/// The teacher's log-probabilities of the response tokens, `[rows, C]`.
fn teacher_logprobs(teacher: &Transformer, batch: &StepBatch) -> Tensor {
    let rows = MicroBatching::Rows(batch.prompt_ids.size()[0] as usize);
    frozen_pass(&batch.view(), rows, teacher, |part| {
        token_logprobs(teacher, part).0
    })
}

/// MOPD's loss over the batch, on-policy (the sampler's log-probabilities are the
/// student's own, detached, so every importance weight is 1).
fn mopd_backward(
    model: &Transformer,
    batch: &StepBatch,
    teacher_logp: &Tensor,
    spec: StepSpec,
) -> LossOutcome {
    let mut outcome = LossOutcome::default();
    let dist = SamplingDistribution::MODEL;
    let view = batch.view();
    let tokens = response_tokens(&spec);
    backward_by_chunks(
        model,
        &view,
        PromptPass::PerRow,
        dist,
        spec.memory,
        |chunk| {
            let mask = chunk.columns(&batch.completion_valid);
            let teacher = chunk.columns(teacher_logp);
            let sampling = chunk.logp.detach();
            let loss = mopd_loss(
                &chunk.logp,
                &sampling,
                &teacher,
                &mask,
                ImportanceCorrection::CASCADE_MOPD,
                tokens,
            );
            outcome.add(&loss, &chunk.logp, &mask);
            loss
        },
    );
    outcome
}

#[allow(clippy::too_many_arguments)]
fn step_report(
    config: &ModelConfig,
    device: Device,
    spec: StepSpec,
    params: i64,
    seconds: f64,
    teacher_seconds: f64,
    rss_before_step_mb: f64,
    outcome: LossOutcome,
    grad_norm: f64,
) -> StepMemoryReport {
    let shape = spec.shape;
    let trained = (shape.rows * (shape.prompt_len + shape.response_len)) as f64;
    // Training is 3× the forward FLOPs at the mean causal context, as
    // `throughput::measure` counts it; an MOPD teacher's pass adds 1×. Recomputing's
    // extra forward pass is not counted: MFU counts the model's FLOPs, so recomputing
    // shows as a lower MFU.
    let mean_context = (shape.prompt_len + shape.response_len) as f64 / 2.0;
    let passes = match spec.algorithm {
        StepAlgorithm::Grpo => 3.0,
        StepAlgorithm::Mopd => 4.0,
    };
    let flops = passes * trained * forward_flops_per_token(config, mean_context);
    let recompute = spec.memory.activations == Activations::Recompute;
    StepMemoryReport {
        device: format!("{device:?}"),
        params,
        shape,
        algorithm: spec.algorithm,
        logit_chunk_mb: spec.logit_chunk_mb,
        activations: if recompute { "recompute" } else { "keep" },
        bf16: spec.precision.autocasts_on(device),
        threads: tch::get_num_threads(),
        attention: spec
            .attention
            .unwrap_or_else(|| crate::model::KernelPaths::for_device(device)),
        seconds,
        teacher_seconds,
        training_tokens_per_s: trained / seconds,
        mfu: flops / seconds / spec.peak_flops,
        peak_rss_mb: resident_mb("VmHWM"),
        rss_before_step_mb,
        whole_logits_mb: response_tokens(&spec) * config.vocab_size as f64 * 4.0 / (1 << 20) as f64,
        loss: outcome.loss,
        grad_norm,
        mean_logp: outcome.logp_sum / response_tokens(&spec).max(1.0),
    }
}

/// Writes `dir/model` (the weights as they were before the step), `dir/step.json`
/// (the batch and the loss settings) and `dir/cascade.json` (the report).
fn save_step(
    dir: &Path,
    stepped: &Transformer,
    batch: &StepBatch,
    report: &StepMemoryReport,
) -> Result<(), ModelError> {
    // The optimizer has moved the weights: rebuild the same random init (seed 0,
    // rounded as before the step) for the peer to start from.
    let mut initial =
        Transformer::random(stepped.config.clone(), stepped.device(), Kind::Float, 0)?;
    initial.round_to_saved_dtype();
    initial.save(&dir.join("model"), usize::MAX)?;
    let ids = |t: &Tensor| Vec::<Vec<i64>>::try_from(t.to_device(Device::Cpu)).unwrap_or_default();
    let mask = Vec::<Vec<i64>>::try_from(
        batch
            .completion_valid
            .to_kind(Kind::Int64)
            .to_device(Device::Cpu),
    )
    .unwrap_or_default();
    let advantages = Vec::<f64>::try_from(
        batch
            .advantages
            .to_kind(Kind::Double)
            .to_device(Device::Cpu),
    )
    .unwrap_or_default();
    let step = json!({
        "prompt_ids": ids(&batch.prompt_ids),
        "completion_ids": ids(&batch.completion_ids),
        "completion_mask": mask,
        "advantages": advantages,
        "epsilon_low": GRPO_LOSS.epsilon_low,
        "epsilon_high": GRPO_LOSS.epsilon_high,
        // The loss's denominator: every response token (the synthetic mask is all
        // ones, so this is also the mask's sum, TRL's "dapo" normaliser).
        "num_tokens": (report.shape.rows * report.shape.response_len) as f64,
        "max_grad_norm": 1.0,
        "lr": 1e-6,
        "temperature": 1.0,
    });
    let write = |name: &str, value: &serde_json::Value| {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string() + "\n")
            .map_err(|source| ModelError::Io { path, source })
    };
    write("step.json", &step)?;
    write(
        "cascade.json",
        &serde_json::to_value(report).unwrap_or_default(),
    )
}

/// What prefilling one long prompt into the KV cache took.
#[derive(Debug, Clone, Serialize)]
pub struct PrefillReport {
    pub device: String,
    pub rows: usize,
    pub prompt_len: usize,
    /// Positions per forward pass; the whole prompt when it is that long or shorter.
    pub prefill_chunk: usize,
    pub seconds: f64,
    pub peak_rss_mb: f64,
    pub rss_before_mb: f64,
    /// The KV cache it filled, MiB (float32).
    pub kv_cache_mb: f64,
}

/// Prefills `rows` random prompts of `prompt_len` tokens into a fresh KV cache of a
/// random model of `config`, `chunk` positions per pass (as sampling does with
/// `sampling::PREFILL_CHUNK`; `prompt_len` for the single pass sampling made before
/// chunking).
pub fn measure_prefill(
    config: ModelConfig,
    device: Device,
    rows: usize,
    prompt_len: usize,
    chunk: usize,
) -> Result<PrefillReport, ModelError> {
    let vocab = config.vocab_size;
    let kv_per_token = 2.0 * (config.num_layers * config.num_kv_heads * config.head_dim) as f64;
    let model = Transformer::random(config, device, Kind::Float, 0)?;
    let ids = synthetic_ids(rows, prompt_len, vocab, 7, device);
    let valid = ids.ones_like().to_kind(Kind::Bool);
    let rss_before_mb = resident_mb("VmRSS");
    let start = Instant::now();
    let mut cache = model.new_cache();
    let last = tch::no_grad(|| {
        crate::sampling::prefill_last_hidden(&model, &ids, &valid, &mut cache, chunk as i64)
    });
    let _ = f64::try_from(last.sum(Kind::Float));
    Ok(PrefillReport {
        device: format!("{device:?}"),
        rows,
        prompt_len,
        prefill_chunk: chunk.min(prompt_len),
        seconds: start.elapsed().as_secs_f64(),
        peak_rss_mb: resident_mb("VmHWM"),
        rss_before_mb,
        kv_cache_mb: kv_per_token * (rows * prompt_len) as f64 * 4.0 / (1 << 20) as f64,
    })
}

/// `[rows, len]` token ids spread over the vocabulary (a fixed stride, so runs are
/// reproducible; `salt` tells prompts from responses).
fn synthetic_ids(rows: usize, len: usize, vocab: i64, salt: i64, device: Device) -> Tensor {
    (Tensor::arange((rows * len) as i64, (Kind::Int64, device)) * 104_729 + salt)
        .remainder(vocab)
        .view([rows as i64, len as i64])
}

/// A `/proc/self/status` memory field in MiB (0 where there is none, e.g. not Linux).
fn resident_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_resident_set() {
        assert!(resident_mb("VmRSS") > 1.0);
        assert!(resident_mb("VmHWM") >= resident_mb("VmRSS") * 0.5);
        assert_eq!(resident_mb("NoSuchField"), 0.0);
    }
}
