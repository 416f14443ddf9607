//! Sampling and training throughput of a model shape on a device, with model FLOPs
//! utilisation: the figures `cascade bench-model` prints (e.g. a random model shaped
//! like Qwen2.5-0.5B on a GPU, in bf16 autocast).
//!
//! FLOPs are counted the usual way: 2·N per generated token, 6·N per trained token
//! (N = parameters outside the embedding table, plus the LM head), plus attention's
//! 2·layers·T·d (×3 for training) per token.

use std::time::Instant;

use serde::Serialize;
use tch::{Device, Kind};

use crate::device::Precision;
use crate::logprobs::{token_logprobs, SequenceBatch};
use crate::model::sdpa::SdpaChoices;
use crate::model::{KernelPaths, ModelConfig, ModelError, Transformer};
use crate::optim::{AdamW, AdamWConfig, UpdateKernel};
use crate::sampling::multi_turn::{generate_episodes, Episode, TurnLimits};
use crate::sampling::{generate, Generation, SamplingParams};

/// The shape of Qwen2.5-0.5B (its published config.json), with random weights.
pub const QWEN25_05B_CONFIG: &str = r#"{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2",
 "vocab_size":151936,"hidden_size":896,"intermediate_size":4864,"num_hidden_layers":24,
 "num_attention_heads":14,"num_key_value_heads":2,"rms_norm_eps":1e-6,"rope_theta":1000000.0,
 "tie_word_embeddings":true,"torch_dtype":"bfloat16","eos_token_id":151643,
 "max_position_embeddings":32768}"#;

#[derive(Debug, Clone, Serialize)]
pub struct ThroughputReport {
    pub device: String,
    /// Whether the passes ran under bf16 autocast.
    pub bf16: bool,
    pub params: i64,
    pub batch: usize,
    pub prompt_len: usize,
    pub new_tokens: usize,
    pub sampling_tokens_per_s: f64,
    pub training_tokens_per_s: f64,
    pub sampling_mfu: f64,
    pub training_mfu: f64,
    /// Wall time of one decoding step (the whole batch), averaged over the run.
    pub decode_ms_per_step: f64,
    /// The attention paths and the SDPA kernel each kind of call took.
    pub attention: KernelPaths,
    pub sdpa: SdpaChoices,
    pub optimizer: UpdateKernel,
    pub finished_check_every: usize,
}

/// What [`measure`] runs with, beyond the shape: the defaults follow the device;
/// benchmarks set the older paths to compare in one run.
#[derive(Debug, Clone, Copy)]
pub struct ThroughputPaths {
    pub attention: Option<KernelPaths>,
    pub optimizer: Option<UpdateKernel>,
    /// 0 = the device's default.
    pub finished_check_every: usize,
}

/// Matmul FLOPs per token for a forward pass at context length `t`.
pub(crate) fn forward_flops_per_token(c: &ModelConfig, t: f64) -> f64 {
    let (h, i) = (c.hidden_size as f64, c.intermediate_size as f64);
    let (q, kv) = (
        (c.num_heads * c.head_dim) as f64,
        (c.num_kv_heads * c.head_dim) as f64,
    );
    let per_layer = h * q + 2.0 * h * kv + q * h + 3.0 * h * i;
    let head = h * c.vocab_size as f64;
    2.0 * (c.num_layers as f64 * per_layer + head) + 2.0 * c.num_layers as f64 * t * q
}

/// The batch [`measure`] samples and trains on.
#[derive(Debug, Clone, Copy)]
pub struct ThroughputShape {
    pub batch: usize,
    pub prompt_len: usize,
    pub new_tokens: usize,
    pub repeats: usize,
}

/// Measures `repeats` generation and training passes after one warm-up pass, the
/// model computing at `precision`.
pub fn measure(
    config: ModelConfig,
    device: Device,
    precision: Precision,
    shape: ThroughputShape,
    peak_flops: f64,
    paths: ThroughputPaths,
) -> Result<ThroughputReport, ModelError> {
    let ThroughputShape {
        batch,
        prompt_len,
        new_tokens,
        repeats,
    } = shape;
    let vocab = config.vocab_size;
    let mut model = Transformer::random(config.clone(), device, Kind::Float, 0)?;
    model.set_precision(precision);
    if let Some(attention) = paths.attention {
        model.set_kernel_paths(attention);
    }
    // Trainable while sampling too, as the runner's policy is: autocast caches its bf16
    // casts of trainable weights for the whole generation, instead of casting every
    // weight at every decoding step.
    model.set_trainable(true);
    let params: i64 = model.parameters().values().map(|t| t.numel() as i64).sum();
    let prompts = synthetic_prompts(batch, prompt_len, vocab);
    let params_s = SamplingParams {
        max_new_tokens: new_tokens,
        finished_check_every: paths.finished_check_every,
        ..Default::default()
    };
    let sync = || sync_device(device);
    let _ = generate(&model, &prompts, &params_s, &|_| String::new());
    sync();
    let start = Instant::now();
    let mut generated = 0usize;
    let mut decode_steps = 0i64;
    let mut last = None;
    for _ in 0..repeats {
        let g = generate(&model, &prompts, &params_s, &|_| String::new());
        generated += g.num_tokens();
        decode_steps += g.completion_ids.size()[1];
        last = Some(g);
    }
    sync();
    let sample_s = start.elapsed().as_secs_f64();
    let Some(g) = last else {
        return Err(ModelError::Torch {
            context: "throughput".into(),
            message: "repeats must be at least 1".into(),
        });
    };
    let optimizer = paths
        .optimizer
        .unwrap_or_else(|| UpdateKernel::for_device(device));
    let train_s = time_training(&model, &g, repeats, optimizer, &sync);
    let seq = (prompt_len + new_tokens) as f64;
    let trained_tokens = (batch as f64) * seq * repeats as f64;
    let sample_flops = generated as f64
        * forward_flops_per_token(&config, prompt_len as f64 + new_tokens as f64 / 2.0);
    let train_flops = 3.0 * trained_tokens * forward_flops_per_token(&config, seq / 2.0);
    Ok(ThroughputReport {
        device: format!("{device:?}"),
        bf16: precision.autocasts_on(device),
        params,
        batch,
        prompt_len,
        new_tokens,
        sampling_tokens_per_s: generated as f64 / sample_s,
        training_tokens_per_s: trained_tokens / train_s,
        sampling_mfu: sample_flops / sample_s / peak_flops,
        training_mfu: train_flops / train_s / peak_flops,
        decode_ms_per_step: 1e3 * sample_s / decode_steps.max(1) as f64,
        attention: model.kernel_paths(),
        sdpa: model.sdpa_choices(batch as i64, prompt_len as i64, new_tokens as i64),
        optimizer,
        finished_check_every: params_s.check_every(device),
    })
}

/// Waits for the device's queued work, so timings cover it.
fn sync_device(device: Device) {
    if device.is_cuda() {
        tch::Cuda::synchronize(0);
    }
}

/// `batch` fixed pseudo-random prompts of `prompt_len` tokens.
fn synthetic_prompts(batch: usize, prompt_len: usize, vocab: i64) -> Vec<Vec<i64>> {
    (0..batch)
        .map(|b| {
            (0..prompt_len)
                .map(|t| ((b * 7919 + t * 104729) as i64) % vocab)
                .collect()
        })
        .collect()
}

/// Seconds for `repeats` training passes (forward, backward, AdamW step) over the
/// generated batch `g`, after one warm-up pass.
fn time_training(
    model: &Transformer,
    g: &Generation,
    repeats: usize,
    kernel: UpdateKernel,
    sync: &dyn Fn(),
) -> f64 {
    let mut opt = AdamW::new(model.parameters(), AdamWConfig::default()).with_kernel(kernel);
    let batch_view = SequenceBatch {
        prompt_ids: &g.prompts.ids,
        prompt_valid: &g.prompts.valid,
        completion_ids: &g.completion_ids,
        completion_valid: &g.completion_valid,
    };
    let train_once = |opt: &mut AdamW| {
        opt.zero_grad();
        let loss = model.autocast(|| {
            let (logp, _) = token_logprobs(model, &batch_view);
            logp.mean(Kind::Float)
        });
        loss.backward();
        opt.clip_grad_norm(1.0);
        opt.step(1e-6);
    };
    train_once(&mut opt);
    sync();
    let start = Instant::now();
    for _ in 0..repeats {
        train_once(&mut opt);
    }
    sync();
    start.elapsed().as_secs_f64()
}

/// Conversation throughput: the multi-turn rollout, whose KV cache lives across
/// turns, beside a loop that re-runs every conversation from its first token each
/// turn (what a rollout without prefix caching does), on the same prompts.
#[derive(Debug, Clone, Serialize)]
pub struct MultiTurnReport {
    pub device: String,
    #[serde(flatten)]
    pub shape: MultiTurnShape,
    pub cached: TurnFigures,
    pub reprefill: TurnFigures,
    /// `cached.model_tokens_per_s / reprefill.model_tokens_per_s`.
    pub speedup: f64,
}

/// One way of running the conversations.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TurnFigures {
    pub seconds: f64,
    /// Tokens the model sampled (tool results excluded).
    pub model_tokens: usize,
    pub model_tokens_per_s: f64,
    pub turns_mean: f64,
}

/// Appends the same `result` after each of the first `turns - 1` turns.
struct FixedResults {
    result: Vec<i64>,
    answers_left: usize,
}

impl Episode for FixedResults {
    fn next(&mut self, _turn: &[i64], _stop: Option<i64>) -> Option<Vec<i64>> {
        if self.answers_left == 0 {
            return None;
        }
        self.answers_left -= 1;
        Some(self.result.clone())
    }
    fn stop(&mut self, _unfinished_turn: &[i64]) {}
    fn reward(&self) -> f64 {
        0.0
    }
}

/// The settings of [`measure_multi_turn`].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct MultiTurnShape {
    pub batch: usize,
    pub prompt_len: usize,
    /// Per-turn cap; a turn also ends on a stop token (1 in `mean_turn_len` of the
    /// vocabulary, so random weights write ragged turns of about that length).
    pub turn_cap: usize,
    pub mean_turn_len: usize,
    pub result_len: usize,
    pub turns: usize,
}

/// Measures both ways of running `shape.batch` conversations of up to `shape.turns`
/// turns, after one warm-up of each.
pub fn measure_multi_turn(
    config: ModelConfig,
    device: Device,
    precision: Precision,
    shape: MultiTurnShape,
) -> Result<MultiTurnReport, ModelError> {
    let vocab = config.vocab_size;
    let mut model = Transformer::random(config, device, Kind::Float, 0)?;
    model.set_precision(precision);
    let prompts = synthetic_prompts(shape.batch, shape.prompt_len, vocab);
    let every = shape.mean_turn_len.max(1) as i64;
    let params = SamplingParams {
        max_new_tokens: shape.turn_cap,
        stop_ids: (0..vocab).filter(|id| id % every == every - 1).collect(),
        ..Default::default()
    };
    let result: Vec<i64> = (0..shape.result_len as i64)
        .map(|t| (t * 31) % vocab)
        .collect();
    let sync = || sync_device(device);
    let cached = || {
        let mut episodes: Vec<Box<dyn Episode>> = (0..shape.batch)
            .map(|_| {
                Box::new(FixedResults {
                    result: result.clone(),
                    answers_left: shape.turns.saturating_sub(1),
                }) as Box<dyn Episode>
            })
            .collect();
        let limits = TurnLimits {
            max_turns: shape.turns,
            max_tokens: usize::MAX,
        };
        let g = generate_episodes(&model, &prompts, 1, &params, limits, &mut episodes, &|_| {
            String::new()
        });
        let tokens = (0..g.completions.len()).map(|r| g.trained_tokens(r)).sum();
        (tokens, g.turns.iter().sum::<usize>())
    };
    let reprefill = || reprefill_conversations(&model, &prompts, &params, &result, shape.turns);
    let cached = timed(cached, &sync, shape.batch);
    let reprefill = timed(reprefill, &sync, shape.batch);
    Ok(MultiTurnReport {
        device: format!("{device:?}"),
        shape,
        speedup: cached.model_tokens_per_s / reprefill.model_tokens_per_s.max(1e-12),
        cached,
        reprefill,
    })
}

/// One warm-up run of `run` (returning model tokens and turns), then one timed.
fn timed(run: impl Fn() -> (usize, usize), sync: &dyn Fn(), rows: usize) -> TurnFigures {
    let _ = run();
    sync();
    let start = Instant::now();
    let (model_tokens, turns) = run();
    sync();
    let seconds = start.elapsed().as_secs_f64();
    TurnFigures {
        seconds,
        model_tokens,
        model_tokens_per_s: model_tokens as f64 / seconds.max(1e-12),
        turns_mean: turns as f64 / rows.max(1) as f64,
    }
}

/// The conversations without a cache across turns: each turn, every live row's whole
/// conversation so far is a new prompt. Returns model tokens and turns taken.
fn reprefill_conversations(
    model: &Transformer,
    prompts: &[Vec<i64>],
    params: &SamplingParams,
    result: &[i64],
    turns: usize,
) -> (usize, usize) {
    let mut contexts: Vec<Vec<i64>> = prompts.to_vec();
    let mut live: Vec<usize> = (0..prompts.len()).collect();
    let (mut tokens, mut taken) = (0, 0);
    for turn in 0..turns {
        let batch: Vec<Vec<i64>> = live.iter().map(|&r| contexts[r].clone()).collect();
        // A fresh seed per turn, as one continuing stream would give fresh draws.
        let turn_params = SamplingParams {
            seed: params.seed + turn as i64,
            ..params.clone()
        };
        let g = generate(model, &batch, &turn_params, &|_| String::new());
        taken += live.len();
        let mut next = Vec::new();
        for (k, &r) in live.iter().enumerate() {
            tokens += g.completions[k].len();
            contexts[r].extend(&g.completions[k]);
            if g.finished[k] && turn + 1 < turns {
                contexts[r].extend(result);
                next.push(r);
            }
        }
        live = next;
        if live.is_empty() {
            break;
        }
    }
    (tokens, taken)
}
