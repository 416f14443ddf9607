//! One GRPO training step (forward, loss, backward, AdamW) on synthetic responses of a
//! given length, without sampling: its time, peak memory and MFU, under each
//! [`PassMemory`] setting. `cascade bench-model --train-step` prints it; run each
//! setting in its own process, since the peak resident set never goes down.
//!
//! It answers "does a 16K-token response fit, and what does chunking and recomputing
//! buy": the rows are what a rollout would hand the trainer (a prompt, a response,
//! a ±1 advantage per row), and the loss is the GRPO policy loss of [`crate::grpo`].

use std::time::Instant;

use serde::Serialize;
use tch::{Device, Kind, Tensor};

use crate::grpo::{policy_loss, PolicyLossOptions};
use crate::logprobs::{backward_by_chunks, PassMemory, PromptPass, SamplingDistribution};
use crate::logprobs::{Activations, SequenceBatch};
use crate::model::{ModelConfig, ModelError, Transformer};
use crate::optim::{AdamW, AdamWConfig};
use crate::throughput::forward_flops_per_token;

/// The shape of the step.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StepShape {
    pub rows: usize,
    pub prompt_len: usize,
    pub response_len: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepMemoryReport {
    pub device: String,
    pub params: i64,
    #[serde(flatten)]
    pub shape: StepShape,
    /// MiB of logits per chunk; `null` for the whole response at once.
    pub logit_chunk_mb: Option<usize>,
    pub activations: &'static str,
    pub seconds: f64,
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
    pub grad_norm: f64,
}

/// Runs one step of `shape` on a random model of `config`.
pub fn measure_step(
    config: ModelConfig,
    device: Device,
    shape: StepShape,
    memory: PassMemory,
    logit_chunk_mb: Option<usize>,
    peak_flops: f64,
) -> Result<StepMemoryReport, ModelError> {
    let vocab = config.vocab_size;
    let mut model = Transformer::random(config.clone(), device, Kind::Float, 0)?;
    model.set_trainable(true);
    let params: i64 = model.parameters().values().map(|t| t.numel() as i64).sum();
    let mut optimizer = AdamW::new(model.parameters(), AdamWConfig::default());
    let rows = shape.rows as i64;
    let prompt_ids = synthetic_ids(shape.rows, shape.prompt_len, vocab, 7, device);
    let completion_ids = synthetic_ids(shape.rows, shape.response_len, vocab, 13, device);
    let valid = |t: &Tensor| t.ones_like().to_kind(Kind::Bool);
    let (prompt_valid, completion_valid) = (valid(&prompt_ids), valid(&completion_ids));
    let batch = SequenceBatch {
        prompt_ids: &prompt_ids,
        prompt_valid: &prompt_valid,
        completion_ids: &completion_ids,
        completion_valid: &completion_valid,
    };
    let advantages = Tensor::from_slice(
        &(0..rows)
            .map(|r| if r % 2 == 0 { 1.0f32 } else { -1.0 })
            .collect::<Vec<_>>(),
    )
    .to_device(device);
    let tokens = (shape.rows * shape.response_len) as f64;
    let opts = PolicyLossOptions {
        epsilon_low: 0.2,
        epsilon_high: 0.28,
        kl_coef: 0.0,
        num_tokens: tokens,
    };
    let rss_before_step_mb = resident_mb("VmRSS");
    let start = Instant::now();
    optimizer.zero_grad();
    let mut loss_sum = 0.0;
    let dist = SamplingDistribution::MODEL;
    backward_by_chunks(&model, &batch, PromptPass::PerRow, dist, memory, |chunk| {
        let mask = chunk.columns(&completion_valid);
        let loss = policy_loss(&chunk.logp, None, None, &advantages, &mask, &opts);
        loss_sum += f64::try_from(&loss).unwrap_or(f64::NAN);
        loss
    });
    let grad_norm = optimizer.clip_grad_norm(1.0);
    optimizer.step(1e-6);
    if device.is_cuda() {
        tch::Cuda::synchronize(0);
    }
    let seconds = start.elapsed().as_secs_f64();
    let trained = (shape.rows * (shape.prompt_len + shape.response_len)) as f64;
    // Training is 3× the forward FLOPs at the mean causal context, as
    // `throughput::measure` counts it. Recomputing's extra forward pass is not
    // counted: MFU counts the model's FLOPs, so recomputing shows as a lower MFU.
    let mean_context = (shape.prompt_len + shape.response_len) as f64 / 2.0;
    let recompute = memory.activations == Activations::Recompute;
    let flops = 3.0 * trained * forward_flops_per_token(&config, mean_context);
    Ok(StepMemoryReport {
        device: format!("{device:?}"),
        params,
        shape,
        logit_chunk_mb,
        activations: if recompute { "recompute" } else { "keep" },
        seconds,
        training_tokens_per_s: trained / seconds,
        mfu: flops / seconds / peak_flops,
        peak_rss_mb: resident_mb("VmHWM"),
        rss_before_step_mb,
        whole_logits_mb: tokens * vocab as f64 * 4.0 / (1 << 20) as f64,
        loss: loss_sum,
        grad_norm,
    })
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
