//! MOPD stages: each domain's teacher (named in the recipe, else the best earlier
//! checkpoint in that domain), and the step: sample on the drawn prompts, distil from
//! each row's domain teacher.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::episodes::{any_multi_turn, episodes};
use super::record::RunRecord;
use super::stage::{draw, line, sampling, AlgorithmStep, StepInput};
use super::RunError;
use crate::mopd::select_teachers;
use crate::mopd::step::{mopd_step, Conversations, MopdConfig, TeacherPool};
use crate::recipe::MopdStage;

/// A MOPD stage's step.
pub struct MopdStep<'a> {
    pub stage: &'a MopdStage,
    pub pool: TeacherPool,
    /// Domain → teacher stage, written into every metrics line.
    pub teacher_names: BTreeMap<String, String>,
}

/// Each of the stage's domains' teacher: domain → (stage name, checkpoint folder).
/// `checkpoint` gives a stage's folder (`base` included).
pub fn choose_teachers(
    stage: &MopdStage,
    record: &RunRecord,
    checkpoint: impl Fn(&str) -> PathBuf,
) -> Result<BTreeMap<String, (String, PathBuf)>, RunError> {
    let earlier: Vec<(String, BTreeMap<String, f64>)> = record
        .stages
        .iter()
        // An `rm` stage's checkpoint is a reward model, never a teacher.
        .filter(|s| s.algorithm.is_none_or(|a| a.trains_the_policy()))
        .map(|s| (s.stage.clone(), s.scores.clone()))
        .collect();
    let mut domains: Vec<String> = stage
        .common
        .envs
        .iter()
        .map(|e| e.domain().to_owned())
        .collect();
    domains.sort();
    domains.dedup();
    let chosen = select_teachers(&stage.common.name, &domains, &earlier, &stage.teachers)?;
    Ok(chosen
        .into_iter()
        .map(|(domain, choice)| {
            let dir = checkpoint(&choice.stage);
            (domain, (choice.stage, dir))
        })
        .collect())
}

impl AlgorithmStep for MopdStep<'_> {
    fn step(&mut self, mut input: StepInput) -> Result<Value, RunError> {
        let stage = self.stage;
        let per_step = stage.common.prompts_per_step;
        let data = input.data;
        let picks = draw(&mut input.rng, data, per_step);
        let prompts: Vec<(String, Vec<i64>)> = picks
            .iter()
            .map(|&(e, r)| (data[e].domain.clone(), data[e].prompts[r].clone()))
            .collect();
        let cfg = MopdConfig {
            group_size: stage.rollout.group_size,
            sampling: sampling(&stage.rollout, input.tokenizer, input.seed),
            micro_batch: stage.rollout.micro_batching(per_step),
            max_grad_norm: stage.common.max_grad_norm,
            importance: stage.importance_correction,
            memory: stage.rollout.pass_memory(),
        };
        let decode = |ids: &[i64]| input.tokenizer.decode(ids).unwrap_or_default();
        let mut episodes = if any_multi_turn(data, &picks) {
            episodes(data, &picks, stage.rollout.group_size, input.tokenizer)
        } else {
            Vec::new()
        };
        let conversations = (!episodes.is_empty()).then(|| Conversations {
            episodes: &mut episodes,
            limits: stage.rollout.turn_limits(),
        });
        let stats = mopd_step(
            input.policy,
            &mut self.pool,
            input.optimizer,
            input.lr,
            &prompts,
            conversations,
            &decode,
            &cfg,
        )?;
        let mut line = line(&stats);
        if let Some(map) = line.as_object_mut() {
            map.insert(
                "teachers".into(),
                serde_json::to_value(&self.teacher_names).unwrap_or_default(),
            );
        }
        Ok(line)
    }
}
