//! A toy algorithm added in one file: a "constant reward" GRPO variant, whose every
//! response scores 1, run by the runner's own stage loop ([`run_steps`]). Every
//! group's rewards are equal, so with zero-variance filtering every group is dropped:
//! each step makes no update (the weights stay bit for bit) and its metrics line says
//! why (`filtered_share` 1, gradient norm 0).

mod common;

use std::path::Path;

use cascade_envs::Registry;
use cascade_trainer::grpo::step::grpo_step;
use cascade_trainer::metrics::MetricsLog;
use cascade_trainer::model::Transformer;
use cascade_trainer::recipe::{Algorithm, StageCommon};
use cascade_trainer::runner::data::{load_env_data, EnvSource};
use cascade_trainer::runner::stage::{draw, run_steps, AlgorithmStep, StageContext, StepInput};
use cascade_trainer::runner::RunError;
use cascade_trainer::toy::bench::ToyTask;
use serde_json::Value;
use tch::{Device, Kind};

/// GRPO on the drawn prompts with every reward 1.
struct ConstantReward {
    task: ToyTask,
    prompts_per_step: usize,
}

impl AlgorithmStep for ConstantReward {
    fn step(&mut self, mut input: StepInput) -> Result<Value, RunError> {
        let picks = draw(&mut input.rng, input.data, self.prompts_per_step);
        let prompts: Vec<Vec<i64>> = picks
            .iter()
            .map(|&(e, r)| input.data[e].prompts[r].clone())
            .collect();
        let decode = |ids: &[i64]| input.tokenizer.decode(ids).unwrap_or_default();
        let mut cfg = self.task.grpo.clone();
        cfg.group_size = 4;
        cfg.sampling.seed = input.seed;
        cfg.advantages.drop_zero_variance = true;
        let stats = grpo_step(
            input.policy,
            None,
            input.optimizer,
            input.lr,
            &prompts,
            &|_, _| 1.0,
            &decode,
            &cfg,
        );
        Ok(serde_json::to_value(&stats).unwrap_or_default())
    }
}

#[test]
fn constant_rewards_filter_every_group_and_leave_the_weights_unchanged() {
    common::pin();
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let task = ToyTask::new().expect("toy task");
    let mut policy = Transformer::load(&assets.join("toy-qwen2-warm"), Device::Cpu, Kind::Float)
        .expect("warm toy model");
    policy.set_trainable(true);
    let registry = Registry::discover().expect("registry");
    let config = toml::Table::new();
    let dataset = assets.join("addition/train.jsonl");
    let source = EnvSource {
        limit: Some(16),
        ..EnvSource::file("addition", "addition", &config, &dataset)
    };
    let data =
        vec![load_env_data(&registry, &task.tokenizer, None, &source).expect("addition rows")];
    let stage: StageCommon =
        toml::from_str("name = \"constant\"\nsteps = 3\nlr = 0.1\nprompts_per_step = 4")
            .expect("stage keys");
    let before: Vec<(String, tch::Tensor)> = policy
        .parameters()
        .iter()
        .map(|(k, t)| (k.clone(), t.detach().copy()))
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut log = MetricsLog::open(&dir.path().join("metrics.jsonl"), &[]).expect("log");
    let mut ctx = StageContext {
        tokenizer: &task.tokenizer,
        seed: 0,
        stage_index: 0,
        log: &mut log,
    };
    let mut step = ConstantReward {
        task: ToyTask::new().expect("toy task"),
        prompts_per_step: stage.prompts_per_step,
    };
    run_steps(&mut ctx, &stage, Algorithm::Grpo, &policy, &data, &mut step).expect("stage");

    for (name, old) in &before {
        assert!(old.equal(&policy.parameters()[name]), "{name} changed");
    }
    let text = std::fs::read_to_string(dir.path().join("metrics.jsonl")).expect("metrics");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 3);
    for line in &lines {
        assert_eq!(line["stage"], "constant");
        assert_eq!(line["algorithm"], "grpo");
        assert_eq!(line["reward_mean"], 1.0, "{line}");
        assert_eq!(line["filtered_share"], 1.0, "{line}");
        assert_eq!(line["grad_norm"], 0.0, "{line}");
    }
}
