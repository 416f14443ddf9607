//! `cascade bench-model`: sampling and training tokens/s and model FLOPs utilisation
//! of a randomly initialised model of a given shape (default Qwen2.5-0.5B), on CPU or
//! CUDA (bf16 autocast; `--precision bf16` on the CPU too). Used by
//! `scripts/gpu/bench_qwen05b.sh`. With `--turns N`, the multi-turn rollout (KV cache
//! kept across turns) beside re-running each conversation from its start every turn,
//! on the same prompts. With `--train-step`, one GRPO (or `--mopd`) step's time and
//! peak memory, optionally saved for `scripts/compare/trl_step_05b.sh`.

use std::path::PathBuf;

use anyhow::Context;
use cascade_trainer::device::DeviceChoice;
use cascade_trainer::device::Precision;
use cascade_trainer::logprobs::{Activations, LogitBudget, PassMemory};
use cascade_trainer::model::KernelPaths;
use cascade_trainer::model::ModelConfig;
use cascade_trainer::optim::UpdateKernel;
use cascade_trainer::step_memory::{
    measure_prefill, measure_step, StepAlgorithm, StepShape, StepSpec,
};
use cascade_trainer::throughput::{
    measure, measure_multi_turn, MultiTurnShape, ThroughputPaths, ThroughputShape,
    QWEN25_05B_CONFIG,
};

use super::Failure;

#[derive(clap::Args)]
pub struct BenchModelArgs {
    /// A config.json to take the shape from (default: Qwen2.5-0.5B's).
    #[arg(long)]
    config: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "auto")]
    device: DeviceArg,
    /// What the passes compute in: auto (bf16 autocast on CUDA, f32 on the CPU), f32,
    /// or bf16 (autocast from float32 master weights, on any device).
    #[arg(long, value_enum, default_value = "auto")]
    precision: PrecisionArg,
    #[arg(long, default_value_t = 64)]
    batch: usize,
    #[arg(long, default_value_t = 128)]
    prompt_len: usize,
    #[arg(long, default_value_t = 128)]
    new_tokens: usize,
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Peak FLOP/s of the device for MFU (default: H100/H200 dense bf16, 989e12).
    #[arg(long, default_value_t = 989e12)]
    peak_flops: f64,
    /// Conversations of up to this many turns (each at most --new-tokens) instead.
    #[arg(long, default_value_t = 0)]
    turns: usize,
    /// Tokens of the tool result appended after each turn (with --turns).
    #[arg(long, default_value_t = 64)]
    result_len: usize,
    /// 1 in this many token ids ends a turn, so turns are ragged (with --turns).
    #[arg(long, default_value_t = 64)]
    mean_turn_len: usize,
    /// Instead: one GRPO training step on synthetic responses of --new-tokens
    /// tokens (no sampling), with its peak resident memory. Run one setting per
    /// process: the peak never goes down.
    #[arg(long)]
    train_step: bool,
    /// With --train-step: MiB of logits per chunk (the recipes' `logit_chunk_mb`).
    #[arg(long, default_value_t = LogitBudget::DEFAULT_MB, conflicts_with = "whole_logits")]
    logit_chunk_mb: usize,
    /// With --train-step: the whole response's logits at once (no chunking).
    #[arg(long)]
    whole_logits: bool,
    /// With --train-step: recompute each layer in the backward pass (activation
    /// checkpointing).
    #[arg(long)]
    recompute: bool,
    /// With --train-step: an MOPD step (a random teacher of the same shape scores the
    /// responses first) instead of GRPO.
    #[arg(long, requires = "train_step")]
    mopd: bool,
    /// With --train-step: write the initial weights (`DIR/model`), the batch
    /// (`DIR/step.json`) and the report (`DIR/cascade.json`) for the PyTorch peer.
    #[arg(long, requires = "train_step", value_name = "DIR")]
    save_step: Option<PathBuf>,
    /// Instead: prefill --batch prompts of --prompt-len tokens into the KV cache,
    /// with its time and peak resident memory (one setting per process).
    #[arg(long, conflicts_with = "train_step")]
    prefill: bool,
    /// With --prefill: positions per pass (0: the whole prompt in one pass, as
    /// sampling prefilled before chunking).
    #[arg(long, default_value_t = cascade_trainer::sampling::PREFILL_CHUNK as usize)]
    prefill_chunk: usize,
    /// Kernel paths: `auto` (what the trainer takes on the device), `masked` (every
    /// attention call masked, grouped heads broadcast, separate projections: the paths
    /// before issue 40) or `fused` (every fused path on, on any device: to measure them
    /// on the CPU, where `auto` leaves them off).
    #[arg(long, value_enum, default_value = "auto")]
    attention: AttentionArg,
    /// The AdamW update: `auto` (fused on CUDA, per tensor on the CPU), `fused` or
    /// `per-tensor`.
    #[arg(long, value_enum, default_value = "auto")]
    optimizer: OptimizerArg,
    /// Decoding steps between host reads of the finished rows (0: the device's default).
    #[arg(long, default_value_t = 0)]
    finished_check_every: usize,
    /// Forbid libtorch's math SDPA kernel: a call that would need it fails the run,
    /// proving every pass takes a fused kernel.
    #[arg(long)]
    no_math_sdpa: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum AttentionArg {
    Auto,
    Masked,
    Fused,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum OptimizerArg {
    Auto,
    Fused,
    PerTensor,
}

impl BenchModelArgs {
    fn paths(&self) -> ThroughputPaths {
        ThroughputPaths {
            attention: match self.attention {
                AttentionArg::Auto => None,
                AttentionArg::Masked => Some(KernelPaths::MASKED),
                AttentionArg::Fused => Some(KernelPaths::FUSED),
            },
            optimizer: match self.optimizer {
                OptimizerArg::Auto => None,
                OptimizerArg::Fused => Some(UpdateKernel::Fused),
                OptimizerArg::PerTensor => Some(UpdateKernel::PerTensor),
            },
            finished_check_every: self.finished_check_every,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PrecisionArg {
    Auto,
    F32,
    Bf16,
}

impl From<PrecisionArg> for Precision {
    fn from(p: PrecisionArg) -> Self {
        match p {
            PrecisionArg::Auto => Precision::Auto,
            PrecisionArg::F32 => Precision::F32,
            PrecisionArg::Bf16 => Precision::Bf16,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DeviceArg {
    Auto,
    Cpu,
    Cuda,
}

pub fn run(args: BenchModelArgs) -> Result<(), Failure> {
    let config = match &args.config {
        Some(p) => ModelConfig::from_file(p).map_err(Failure::usage)?,
        None => ModelConfig::from_json(QWEN25_05B_CONFIG).map_err(|e| Failure::Other(e.into()))?,
    };
    let choice = match args.device {
        DeviceArg::Auto => DeviceChoice::Auto,
        DeviceArg::Cpu => DeviceChoice::Cpu,
        DeviceArg::Cuda => DeviceChoice::Cuda,
    };
    let device = choice
        .resolve()
        .context("--device cuda: libtorch sees no GPU")
        .map_err(Failure::usage)?;
    if args.no_math_sdpa {
        cascade_trainer::model::sdpa::set_math_sdpa_enabled(false);
    }
    if args.train_step {
        return train_step(config, device, &args);
    }
    if args.prefill {
        let chunk = match args.prefill_chunk {
            0 => args.prompt_len,
            n => n,
        };
        let report = measure_prefill(config, device, args.batch, args.prompt_len, chunk)
            .map_err(|e| Failure::Other(e.into()))?;
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
        return Ok(());
    }
    if args.turns > 0 {
        let shape = MultiTurnShape {
            batch: args.batch,
            prompt_len: args.prompt_len,
            turn_cap: args.new_tokens,
            mean_turn_len: args.mean_turn_len,
            result_len: args.result_len,
            turns: args.turns,
        };
        let report = measure_multi_turn(config, device, args.precision.into(), shape)
            .map_err(|e| Failure::Other(e.into()))?;
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
        return Ok(());
    }
    let shape = ThroughputShape {
        batch: args.batch,
        prompt_len: args.prompt_len,
        new_tokens: args.new_tokens,
        repeats: args.repeats,
    };
    let report = measure(
        config,
        device,
        args.precision.into(),
        shape,
        args.peak_flops,
        args.paths(),
    )
    .map_err(|e| Failure::Other(e.into()))?;
    println!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
    Ok(())
}

/// `--train-step`: one GRPO step's time and peak memory.
fn train_step(
    config: ModelConfig,
    device: tch::Device,
    args: &BenchModelArgs,
) -> Result<(), Failure> {
    let (logits, chunk_mb) = match args.whole_logits {
        true => (LogitBudget::unlimited(), None),
        false => (
            LogitBudget::megabytes(args.logit_chunk_mb),
            Some(args.logit_chunk_mb),
        ),
    };
    let memory = PassMemory {
        logits,
        activations: match args.recompute {
            true => Activations::Recompute,
            false => Activations::Keep,
        },
    };
    let shape = StepShape {
        rows: args.batch,
        prompt_len: args.prompt_len,
        response_len: args.new_tokens,
    };
    let spec = StepSpec {
        shape,
        algorithm: match args.mopd {
            true => StepAlgorithm::Mopd,
            false => StepAlgorithm::Grpo,
        },
        memory,
        logit_chunk_mb: chunk_mb,
        precision: args.precision.into(),
        peak_flops: args.peak_flops,
        attention: args.paths().attention,
    };
    if let Some(dir) = &args.save_step {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("--save-step: cannot create {}", dir.display()))
            .map_err(Failure::usage)?;
    }
    let report = measure_step(config, device, spec, args.save_step.as_deref())
        .map_err(|e| Failure::Other(e.into()))?;
    println!(
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
    Ok(())
}
