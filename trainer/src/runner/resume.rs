//! Resume planning: which stages of an earlier run in the output folder count as done.
//!
//! A stage counts as done when it is recorded in `evals.json`, in recipe order right
//! after the stages done before it, and its checkpoint exists. `--resume` continues
//! after the last done stage; a named stage restarts there, forgetting it and every
//! stage after it. A recipe changed since the run (a stage renamed, inserted or
//! reordered) keeps the done stages before the first difference and redoes the rest.

use super::record::RunRecord;
use super::{Resume, RunError};

/// Where a run starts: the stages kept from the earlier run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumePlan {
    /// The completed stages kept, in order (their metrics lines stay); the policy
    /// starts from the last one's checkpoint, or the base model when empty.
    pub done: Vec<String>,
    /// How many of `evals.json`'s records to keep: the base model's and the done
    /// stages' (0 when nothing was recorded, so the base model is evaluated anew).
    pub keep_records: usize,
}

/// Plans a run of `stages` (the recipe's running stages, in order) over `record`
/// (what the output folder holds; empty for a new folder). `has_checkpoint` tells
/// whether a stage's checkpoint was saved completely. `folder` names the output
/// folder in errors.
pub fn plan_resume(
    resume: &Resume,
    stages: &[&str],
    record: &RunRecord,
    has_checkpoint: impl Fn(&str) -> bool,
    folder: &str,
) -> Result<ResumePlan, RunError> {
    let mut done: Vec<String> = Vec::new();
    match resume {
        Resume::Fresh if !record.stages.is_empty() => {
            return Err(RunError::Resume(format!(
                "{folder} already holds a run; pass --resume or another --output"
            )));
        }
        Resume::Fresh => {}
        Resume::Last | Resume::From(_) => {
            // Record 0 is the base model; stage k's record follows it.
            for (k, r) in record.stages.iter().skip(1).enumerate() {
                if stages.get(k) != Some(&r.stage.as_str()) || !has_checkpoint(&r.stage) {
                    break;
                }
                done.push(r.stage.clone());
            }
        }
    }
    if let Resume::From(name) = resume {
        let pos = stages
            .iter()
            .position(|s| s == name)
            .ok_or_else(|| RunError::Resume(format!("no stage `{name}` in the recipe")))?;
        if pos > done.len() {
            return Err(RunError::Resume(format!(
                "stage `{name}` cannot restart: stage `{}` before it has not completed",
                stages[done.len()]
            )));
        }
        done.truncate(pos);
    }
    let keep_records = if record.stages.is_empty() {
        0
    } else {
        1 + done.len()
    };
    Ok(ResumePlan { done, keep_records })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::record::StageRecord;
    use std::collections::BTreeMap;

    const STAGES: [&str; 3] = ["sft", "rl", "mopd"];

    /// The record of a run that got through `n` stages (base first).
    fn record(n: usize) -> RunRecord {
        let names = std::iter::once("base").chain(STAGES.iter().copied().take(n));
        RunRecord {
            stages: names
                .map(|s| StageRecord {
                    stage: s.to_owned(),
                    algorithm: None,
                    scores: BTreeMap::new(),
                    teachers: BTreeMap::new(),
                    reward_model: None,
                })
                .collect(),
        }
    }

    fn plan(resume: Resume, record: &RunRecord, saved: &[&str]) -> Result<ResumePlan, String> {
        plan_resume(&resume, &STAGES, record, |s| saved.contains(&s), "out")
            .map_err(|e| e.to_string())
    }

    fn done(plan: Result<ResumePlan, String>) -> (Vec<String>, usize) {
        let p = plan.expect("a plan");
        (p.done, p.keep_records)
    }

    #[test]
    fn a_fresh_run_starts_empty_and_refuses_a_used_folder() {
        let empty = RunRecord::default();
        assert_eq!(done(plan(Resume::Fresh, &empty, &[])), (vec![], 0));
        // Nothing recorded yet: resuming is starting.
        assert_eq!(done(plan(Resume::Last, &empty, &[])), (vec![], 0));
        // Even a run that only scored its base model is a run.
        for n in [0, 1] {
            let err = plan(Resume::Fresh, &record(n), &["sft"]).unwrap_err();
            assert!(err.contains("out already holds a run"), "{err}");
        }
    }

    #[test]
    fn resume_continues_after_each_completed_stage() {
        for n in 0..=3 {
            let want: Vec<String> = STAGES[..n].iter().map(|s| s.to_string()).collect();
            assert_eq!(
                done(plan(Resume::Last, &record(n), &STAGES)),
                (want, 1 + n),
                "after {n} stages"
            );
        }
    }

    #[test]
    fn a_stage_without_its_checkpoint_is_redone_with_those_after_it() {
        // Killed while saving `rl`: recorded, but its checkpoint is incomplete.
        assert_eq!(
            done(plan(Resume::Last, &record(3), &["sft", "mopd"])),
            (vec!["sft".to_owned()], 2)
        );
    }

    #[test]
    fn a_changed_recipe_keeps_the_stages_before_the_first_difference() {
        let mut renamed = record(3);
        renamed.stages[2].stage = "old-rl".into();
        assert_eq!(
            done(plan(Resume::Last, &renamed, &["sft", "old-rl", "mopd"])),
            (vec!["sft".to_owned()], 2)
        );
    }

    #[test]
    fn a_named_stage_restarts_there_after_completed_ones_only() {
        let all = record(3);
        assert_eq!(
            done(plan(Resume::From("rl".into()), &all, &STAGES)),
            (vec!["sft".to_owned()], 2)
        );
        assert_eq!(
            done(plan(Resume::From("sft".into()), &all, &STAGES)),
            (vec![], 1)
        );
        let err = plan(Resume::From("mopd".into()), &record(1), &STAGES).unwrap_err();
        assert!(
            err.contains("stage `rl` before it has not completed"),
            "{err}"
        );
        let err = plan(Resume::From("nope".into()), &all, &STAGES).unwrap_err();
        assert!(err.contains("no stage `nope`"), "{err}");
        // Right after the last completed stage is fine (it is the next one anyway).
        assert_eq!(
            done(plan(Resume::From("rl".into()), &record(1), &STAGES)),
            (vec!["sft".to_owned()], 2)
        );
    }
}
