//! GRPO learns: on single-digit addition scored by the `addition` environment, after a
//! short supervised warm-up, greedy accuracy and the sampled reward rise clearly.
//!
//! The assertions hold whatever libtorch's CPU kernels round to: `ATEN_CPU_CAPABILITY`
//! = default, avx2, avx512 give different trajectories from the same seed (seed 0:
//! greedy 0.47 → 0.91, 0.89 → 1.00, 0.65 → 0.99; sampled reward of the first → last
//! 25 steps 0.34 → 0.71, 0.53 → 0.76, 0.51 → 0.72). So they are relative, with
//! margins: GRPO must close at least half of the greedy gap the warm-up left (it
//! closed 83 %, 100 %, 97 %) and 30 % of the sampled-reward gap (57 %, 48 %, 43 %).
//! About 30–60 s on a busy 2-core machine (debug build).

mod common;

use cascade_trainer::numerics::weight_bytes;
use cascade_trainer::toy::bench::ToyTask;
use cascade_verifiers::seeded::SplitMix64;

const WARMUP_STEPS: usize = 100;
const GRPO_STEPS: usize = 200;
const LR: f64 = 2e-4;

/// What one seeded run did.
#[derive(Debug)]
struct Outcome {
    /// Greedy accuracy on all 100 problems after the warm-up and after GRPO.
    before: f64,
    after: f64,
    /// Mean sampled reward of the first and the last 25 GRPO steps.
    first: f64,
    last: f64,
}

fn run(seed: u64) -> Outcome {
    let task = ToyTask::new().expect("toy task");
    let model = task.new_model(seed).expect("model");
    let mut rng = SplitMix64::new(seed);
    task.warmup(&model, &mut rng, WARMUP_STEPS, 1e-3)
        .expect("warm-up");
    let before = task.eval(&model).expect("eval");
    let rewards = task
        .grpo(&model, &mut rng, GRPO_STEPS, LR, seed, |_, _| {})
        .expect("grpo");
    let after = task.eval(&model).expect("eval");
    let mut trajectory = format!("{before:?} {rewards:?} {after:?}").into_bytes();
    trajectory.extend(weight_bytes(model.parameters()));
    common::record_trajectory(&trajectory);
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let outcome = Outcome {
        before,
        after,
        first: mean(&rewards[..25]),
        last: mean(&rewards[rewards.len() - 25..]),
    };
    eprintln!("seed {seed}: {outcome:?}");
    outcome
}

#[test]
fn grpo_raises_the_mean_reward_on_single_digit_addition() {
    common::pin();
    for seed in SEEDS {
        let o = run(seed);
        // GRPO closes most of what the warm-up left of the greedy gap…
        assert!(
            o.after - o.before >= 0.5 * (1.0 - o.before),
            "seed {seed}: GRPO must make greedy answers right: {o:?}"
        );
        // …and of the sampled-reward gap it trains on.
        assert!(
            o.last - o.first >= 0.3 * (1.0 - o.first),
            "seed {seed}: sampled reward must rise clearly: {o:?}"
        );
    }
}

/// The seeds CI runs (each ~30–60 s); `outcomes_by_seed` prints more.
const SEEDS: [u64; 1] = [0];

/// The outcomes of seeds 0..8 (not in CI; for choosing the assertions' margins).
#[test]
#[ignore]
fn outcomes_by_seed() {
    common::pin();
    for seed in 0..8 {
        run(seed);
    }
}
