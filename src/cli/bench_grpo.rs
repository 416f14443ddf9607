//! `cascade bench-grpo`: issue 7's TRL-comparable GRPO toy task (tiny random Qwen2,
//! single-digit addition, 8 prompts × 8 completions, ≤ 4 new tokens, temperature 1, no
//! KL, token-level loss, strictly on-policy), printing steps/s, tokens/s and the
//! reward curve. `scripts/compare/trl_grpo.sh` runs TRL on the same model and data.

use std::io::Write;
use std::path::PathBuf;

use cascade_trainer::toy::bench::{self, BenchConfig};

use super::Failure;

#[derive(clap::Args)]
pub struct BenchGrpoArgs {
    /// GRPO steps after the warm-up.
    #[arg(long, default_value_t = 800)]
    steps: usize,
    /// Supervised warm-up steps (batch 64) before GRPO.
    #[arg(long, default_value_t = 100)]
    warmup_steps: usize,
    #[arg(long, default_value_t = 5e-4)]
    lr: f64,
    /// Seeds the model, the warm-up and (unless --grpo-seed) GRPO.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seeds GRPO's problems and sampling separately: several GRPO runs from the
    /// same warmed-up model.
    #[arg(long)]
    grpo_seed: Option<u64>,
    /// Print the mean reward of every this many steps.
    #[arg(long, default_value_t = 50)]
    every: usize,
    /// Save the warmed-up model here (the TRL comparison starts from it).
    #[arg(long)]
    save_warm_model: Option<PathBuf>,
    /// Save the model after GRPO here.
    #[arg(long)]
    save_final_model: Option<PathBuf>,
    /// Write every GRPO step's figures (reward, entropy, grad norm, log-prob drift,
    /// timings) and what it trained on (prompt and response ids, rewards) here as JSON
    /// lines; `scripts/compare/trl_grpo_replay.py` replays them through TRL's update.
    #[arg(long)]
    metrics: Option<PathBuf>,
    /// libtorch intra-op threads; 1 is fastest for this tiny model (its ops are too
    /// small to split), 0 leaves libtorch's default.
    #[arg(long, default_value_t = 1)]
    threads: i32,
    /// GRPO's sampling temperature (training reads the same tempered distribution).
    #[arg(long, default_value_t = 1.0)]
    temperature: f64,
}

pub fn run(args: BenchGrpoArgs) -> Result<(), Failure> {
    if args.threads > 0 {
        tch::set_num_threads(args.threads);
    }
    let cfg = BenchConfig {
        seed: args.seed,
        grpo_seed: args.grpo_seed,
        warmup_steps: args.warmup_steps,
        lr: args.lr,
        steps: args.steps,
        save_warm_model: args.save_warm_model,
        save_final_model: args.save_final_model,
        temperature: args.temperature,
        ..BenchConfig::default()
    };
    let every = args.every.max(1);
    println!("step  reward(mean of last {every})");
    let mut window = Vec::new();
    let mut metrics = match &args.metrics {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| Failure::Other(e.into()))?,
        )),
        None => None,
    };
    let report = bench::run(&cfg, |step, stats| {
        if let Some(out) = metrics.as_mut() {
            let r = &stats.rollout;
            let line = serde_json::json!({"step": step, "stats": stats,
                "prompts": r.prompts, "completions": r.completions, "rewards": r.rewards});
            // A metrics line lost to a full disk must not stop the benchmark.
            let _ = writeln!(out, "{line}");
        }
        window.push(stats.reward_mean);
        if (step + 1) % every == 0 {
            println!(
                "{:4}  {:.3}",
                step + 1,
                window.iter().sum::<f64>() / window.len() as f64
            );
            window.clear();
        }
    })
    .map_err(|e| Failure::Other(e.into()))?;
    println!(
        "GRPO: {} steps in {:.2}s = {:.2} steps/s; sampling {:.0} tokens/s, training {:.0} tokens/s",
        report.steps, report.grpo_seconds, report.steps_per_s, report.sampling_tokens_per_s, report.training_tokens_per_s
    );
    println!(
        "greedy accuracy on all 100 problems: {:.2} after warm-up, {:.2} after GRPO",
        report.eval_before, report.eval_after
    );
    println!(
        "on-policy check: max |log π_θ − log π_sampling| over all response tokens {:.2e}",
        report.logprob_drift_max
    );
    println!(
        "reward: first 50 steps {:.3}, last 50 steps {:.3}",
        report.mean_reward(0, 50),
        report.mean_reward(report.steps.saturating_sub(50), report.steps)
    );
    Ok(())
}
