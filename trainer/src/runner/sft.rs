//! SFT stages: each step draws rows and takes one supervised step on their reference
//! responses, the whole batch in one forward/backward (`micro_batch` is not a key).

use serde_json::Value;

use super::stage::{draw, line, AlgorithmStep, StepInput};
use super::RunError;
use crate::recipe::SftStage;
use crate::sft::supervised_step;

/// An SFT stage's step.
pub struct SftStep<'a> {
    pub stage: &'a SftStage,
}

/// What an SFT step logs.
#[derive(serde::Serialize)]
struct SftLine {
    loss: f64,
    grad_norm: f64,
    lr: f64,
    tokens: usize,
    step_s: f64,
}

impl AlgorithmStep for SftStep<'_> {
    fn step(&mut self, mut input: StepInput) -> Result<Value, RunError> {
        let data = input.data;
        let picks = draw(&mut input.rng, data, self.stage.common.prompts_per_step);
        let mut prompts = Vec::with_capacity(picks.len());
        let mut targets = Vec::with_capacity(picks.len());
        for &(e, r) in &picks {
            prompts.push(data[e].prompts[r].clone());
            targets.push(data[e].targets[r].clone());
        }
        let stats = supervised_step(
            input.policy,
            input.optimizer,
            &prompts,
            &targets,
            input.tokenizer.pad_id,
            input.lr,
            self.stage.common.max_grad_norm,
        );
        Ok(line(&SftLine {
            loss: stats.loss,
            grad_norm: stats.grad_norm,
            lr: input.lr,
            tokens: stats.tokens,
            step_s: input.start.elapsed().as_secs_f64(),
        }))
    }
}
