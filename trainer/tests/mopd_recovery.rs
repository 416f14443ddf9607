//! MOPD vs GRPO under the same budget, on the toy addition domain: the student is a
//! checkpoint that has *forgotten* the domain (the teacher, an earlier checkpoint,
//! further trained on a conflicting convention — answers off by one — until its
//! greedy accuracy is ~0.1), and the teacher is that earlier checkpoint, which still
//! solves it (0.99). Both students then get the same prompts (8 per step), the same
//! samples per step (8 per prompt, same sampling seeds), the same AdamW, learning
//! rate and 3-step warm-up; GRPO learns from the `addition` reward, MOPD from the
//! teacher's token log-probabilities only. The curves (greedy accuracy on all 100
//! problems after every step) are printed; `trainer/README.md` records them.
//!
//! Learning rate: 1e-4 is the best of {1e-4, 3e-4, 1e-3} for *both* methods (at 3e-4
//! and above both collapse within a few steps); `lr_grid` (ignored, ~3 min) prints
//! the whole grid, plus MOPD with the same 64 samples as 64 prompts × 1.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use cascade_trainer::grpo::step::grpo_step;
use cascade_trainer::grpo::ImportanceCorrection;
use cascade_trainer::logprobs::{token_logprobs, MicroBatching, SequenceBatch};
use cascade_trainer::model::Transformer;
use cascade_trainer::mopd::step::{mopd_step, MopdConfig, TeacherPool};
use cascade_trainer::optim::{AdamW, AdamWConfig, Decay, Schedule};
use cascade_trainer::sampling::PromptBatch;
use cascade_trainer::toy::addition::Problem;
use cascade_trainer::toy::bench::ToyTask;
use cascade_verifiers::seeded::SplitMix64;
use tch::{Device, Kind, Tensor};

const BUDGET: usize = 24;
const PROMPTS: usize = 8;
const GROUP: usize = 8;
const WARMUP: usize = 3;
const BEST_LR: f64 = 1e-4;
/// Steps of supervised training on off-by-one answers that make the student forget.
const FORGET_STEPS: usize = 30;

/// Supervised steps (batches of 64, AdamW at `lr`) on `answer(problem)` for `a+b=`.
fn supervised(
    task: &ToyTask,
    model: &Transformer,
    seed: u64,
    steps: usize,
    lr: f64,
    answer: &dyn Fn(&Problem) -> String,
) {
    let tok = &task.tokenizer;
    let eos = tok.stop_ids[0];
    let mut rng = SplitMix64::new(seed);
    let mut opt = AdamW::new(model.parameters(), AdamWConfig::default());
    for _ in 0..steps {
        let problems: Vec<Problem> = (0..64).map(|_| Problem::random(&mut rng)).collect();
        let prompts: Vec<Vec<i64>> = problems
            .iter()
            .map(|p| tok.encode(&p.prompt()).expect("encode"))
            .collect();
        let answers: Vec<Vec<i64>> = problems
            .iter()
            .map(|p| {
                let mut ids = tok.encode(&answer(p)).expect("encode");
                ids.push(eos);
                ids
            })
            .collect();
        let prompt_batch = PromptBatch::new(&prompts, tok.pad_id, Device::Cpu);
        let width = answers.iter().map(Vec::len).max().unwrap_or(1);
        let (mut ids, mut valid) = (Vec::new(), Vec::new());
        for a in &answers {
            let pad = width - a.len();
            ids.extend(
                a.iter()
                    .copied()
                    .chain(std::iter::repeat_n(tok.pad_id, pad)),
            );
            valid.extend(std::iter::repeat_n(true, a.len()).chain(std::iter::repeat_n(false, pad)));
        }
        let shape = [answers.len() as i64, width as i64];
        let completion_ids = Tensor::from_slice(&ids).view(shape);
        let completion_valid = Tensor::from_slice(&valid).view(shape);
        let batch = SequenceBatch {
            prompt_ids: &prompt_batch.ids,
            prompt_valid: &prompt_batch.valid,
            completion_ids: &completion_ids,
            completion_valid: &completion_valid,
        };
        opt.zero_grad();
        let (logp, _) = token_logprobs(model, &batch);
        let mask = completion_valid.to_kind(Kind::Float);
        let loss = -(logp * &mask).sum(Kind::Float) / mask.sum(Kind::Float);
        loss.backward();
        opt.clip_grad_norm(1.0);
        opt.step(lr);
    }
}

fn copy_of(task: &ToyTask, model: &Transformer) -> Transformer {
    let mut copy = task.new_model(0).expect("model");
    copy.copy_from(model);
    copy
}

/// The teacher (warm-up + GRPO, greedy accuracy 0.99) and the student that forgot.
fn teacher_and_student(task: &ToyTask) -> (Transformer, Transformer) {
    let teacher = task.new_model(0).expect("model");
    task.warmup(&teacher, &mut SplitMix64::new(0), 100, 1e-3)
        .expect("warm-up");
    task.grpo(&teacher, &mut SplitMix64::new(1), 200, 2e-4, 1, |_, _| {})
        .expect("teacher grpo");
    let student = copy_of(task, &teacher);
    supervised(task, &student, 1, FORGET_STEPS, 1e-3, &|p| {
        (p.a + p.b + 1).to_string()
    });
    (teacher, student)
}

/// The same problems for every method at every step (the first `PROMPTS` of `n`).
fn problems_at(step: usize, n: usize) -> Vec<Problem> {
    let mut rng = SplitMix64::new(7_000 + step as u64);
    (0..n).map(|_| Problem::random(&mut rng)).collect()
}

fn schedule(lr: f64) -> Schedule {
    Schedule {
        lr,
        warmup_start_lr: 0.0,
        warmup_steps: WARMUP,
        decay: Decay::Constant,
        min_lr: 0.0,
        total_steps: BUDGET,
    }
}

/// Greedy accuracy before and after each of `BUDGET` GRPO steps.
fn grpo_curve(task: &ToyTask, student: &Transformer, lr: f64) -> Vec<f64> {
    let model = copy_of(task, student);
    let mut opt = AdamW::new(model.parameters(), AdamWConfig::default());
    let mut cfg = task.grpo.clone();
    cfg.group_size = GROUP;
    let sched = schedule(lr);
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let mut curve = vec![task.eval(&model).expect("eval")];
    for step in 0..BUDGET {
        let problems = problems_at(step, PROMPTS);
        let prompts: Vec<Vec<i64>> = problems
            .iter()
            .map(|p| task.tokenizer.encode(&p.prompt()).expect("encode"))
            .collect();
        cfg.sampling.seed = 1_000 + step as i64;
        let score = |i: usize, ids: &[i64]| task.score(&problems[i / GROUP], &decode(ids));
        let stats = grpo_step(
            &model,
            None,
            &mut opt,
            sched.at(step),
            &prompts,
            &score,
            &decode,
            &cfg,
        );
        if step == 0 {
            eprintln!(
                "grpo step 0: mean reward {:.2}, filtered groups {:.2}",
                stats.reward_mean, stats.filtered_share
            );
        }
        curve.push(task.eval(&model).expect("eval"));
    }
    curve
}

/// The same for MOPD from `teacher`, with no reward: `prompts` × `group` samples a step.
fn mopd_curve(
    task: &ToyTask,
    student: &Transformer,
    teacher: &Transformer,
    lr: f64,
    (prompts, group): (usize, usize),
) -> Vec<f64> {
    let model = copy_of(task, student);
    let mut opt = AdamW::new(model.parameters(), AdamWConfig::default());
    let key = PathBuf::from("teacher");
    let mut pool = TeacherPool::new(
        BTreeMap::from([("addition".to_owned(), key.clone())]),
        true,
        Device::Cpu,
    );
    pool.insert_loaded(&key, copy_of(task, teacher));
    let mut cfg = MopdConfig {
        group_size: group,
        sampling: task.grpo.sampling.clone(),
        micro_batch: MicroBatching::Rows(64),
        max_grad_norm: 1.0,
        importance: ImportanceCorrection::CASCADE_MOPD,
        memory: Default::default(),
    };
    let sched = schedule(lr);
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let mut curve = vec![task.eval(&model).expect("eval")];
    for step in 0..BUDGET {
        let prompts: Vec<(String, Vec<i64>)> = problems_at(step, prompts)
            .iter()
            .map(|p| {
                let ids = task.tokenizer.encode(&p.prompt()).expect("encode");
                ("addition".to_owned(), ids)
            })
            .collect();
        cfg.sampling.seed = 1_000 + step as i64;
        let stats = mopd_step(
            &model,
            &mut pool,
            &mut opt,
            sched.at(step),
            &prompts,
            None,
            &decode,
            &cfg,
        )
        .expect("mopd step");
        if step == 0 {
            eprintln!(
                "mopd step 0: mean advantage {:.2} nats/token, truncated {:.2}",
                stats.advantage_mean, stats.truncated_share
            );
        }
        curve.push(task.eval(&model).expect("eval"));
    }
    curve
}

fn row(curve: &[f64]) -> String {
    curve
        .iter()
        .map(|v| format!("{v:.2}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first step at which `curve` reaches `level`, or `None` within the budget.
fn first_reaching(curve: &[f64], level: f64) -> Option<usize> {
    curve.iter().position(|&v| v >= level)
}

#[test]
fn mopd_recovers_a_forgotten_domain_within_tens_of_steps() {
    common::pin();
    let task = ToyTask::new().expect("toy task");
    let (teacher, student) = teacher_and_student(&task);
    let teacher_score = task.eval(&teacher).expect("eval");
    let start = task.eval(&student).expect("eval");
    let gap = teacher_score - start;
    assert!(
        gap > 0.7,
        "the student must have forgotten the domain: teacher {teacher_score}, student {start}"
    );

    let grpo = grpo_curve(&task, &student, BEST_LR);
    let mopd = mopd_curve(&task, &student, &teacher, BEST_LR, (PROMPTS, GROUP));
    common::record_trajectory(format!("{start:?} {grpo:?} {mopd:?}").as_bytes());
    let recovered = |s: f64| (s - start) / gap;
    eprintln!("teacher {teacher_score:.2}, student start {start:.2}, lr {BEST_LR:e}");
    eprintln!("greedy accuracy on all 100 problems after steps 0..={BUDGET}:");
    eprintln!("grpo: {}", row(&grpo));
    eprintln!("mopd: {}", row(&mopd));
    let level = start + 0.9 * gap;
    let (g_at, m_at) = (first_reaching(&grpo, level), first_reaching(&mopd, level));
    // Printed for the record only (it moves with the CPU's kernels).
    eprintln!("90% of the gap ({level:.2}) first reached at step: grpo {g_at:?}, mopd {m_at:?}");
    let (g, m) = (grpo[BUDGET], mopd[BUDGET]);
    eprintln!(
        "after {BUDGET} steps: grpo {:.0}% of the gap, mopd {:.0}%",
        100.0 * recovered(g),
        100.0 * recovered(m)
    );

    // What holds whatever libtorch's kernels round to. Which method is ahead at a
    // given step, or over a stretch of steps, is not: both curves climb, dip and climb
    // again at this lr, and where the dips fall moves with the kernels. Measured on
    // two CPUs at ATEN_CPU_CAPABILITY default / avx2 / avx512: on an AVX-512 Xeon of
    // 2026-12-02, MOPD ended at 88 / 88 / 98 % of the gap (GRPO 85 / 72 / 86 %) and led
    // over steps 13–24; on an AVX-512 Xeon with AMX of 2026-12-03 (see the README),
    // MOPD ended at 80 / 69 / 80 % (GRPO 86 / 89 / 73 %) and trailed over steps 13–24
    // at default (0.44 vs 0.66). Every run, MOPD rose past 60 % of the gap by step 7
    // and peaked above 80 %.
    // With no reward at all, MOPD climbs most of the gap within tens of steps…
    let fast = first_reaching(&mopd, start + 0.6 * gap);
    eprintln!("mopd first past 60% of the gap at step {fast:?}");
    assert!(
        fast.is_some_and(|s| s <= 10),
        "MOPD did not reach 60% of the gap within 10 steps"
    );
    // …and at its best recovers at least three quarters of it (the budget is 24 steps).
    let best = mopd.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert!(
        recovered(best) >= 0.75,
        "MOPD's best recovered only {:.0}% of the gap",
        100.0 * recovered(best)
    );
    let late = |c: &[f64]| c[BUDGET / 2 + 1..].iter().sum::<f64>() / (BUDGET / 2) as f64;
    let (g_late, m_late) = (late(&grpo), late(&mopd));
    eprintln!("mean greedy accuracy over steps 13..=24: grpo {g_late:.3}, mopd {m_late:.3}");
}

/// Both methods at every learning rate of the grid (about 2 minutes).
#[test]
#[ignore]
fn lr_grid() {
    common::pin();
    let task = ToyTask::new().expect("toy task");
    let (teacher, student) = teacher_and_student(&task);
    eprintln!(
        "teacher {:.2}, student start {:.2}",
        task.eval(&teacher).expect("eval"),
        task.eval(&student).expect("eval")
    );
    for lr in [1e-4, 3e-4, 1e-3] {
        eprintln!("grpo lr {lr:e}: {}", row(&grpo_curve(&task, &student, lr)));
        eprintln!(
            "mopd lr {lr:e}: {}",
            row(&mopd_curve(&task, &student, &teacher, lr, (PROMPTS, GROUP)))
        );
        // The same 64 samples a step as 64 prompts × 1 (MOPD needs no group baseline).
        eprintln!(
            "mopd 64x1 lr {lr:e}: {}",
            row(&mopd_curve(
                &task,
                &student,
                &teacher,
                lr,
                (PROMPTS * GROUP, 1)
            ))
        );
    }
}
