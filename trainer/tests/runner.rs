//! The stage runner end to end on the toy recipe: the SPEC's output layout, and a run
//! killed mid-stage (SIGKILL, in a child process) that resumes to exactly the record
//! and metrics of an uninterrupted run, with no step lost or repeated. And the main
//! job, `recipes/tiny.toml`, whose table must show every RL stage learning its own
//! domain, forgetting, and MOPD's recovery.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cascade_envs::Registry;
use cascade_trainer::recipe::{Algorithm, Recipe};
use cascade_trainer::runner::record::RunRecord;
use cascade_trainer::runner::{run, Resume, RunError, RunOptions};
use common::metrics;
use serde_json::Value;

fn recipe() -> Recipe {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/toy.toml"))
            .expect("toy.toml");
    // Shorter stages, but a long enough second one to be killed in.
    let text = text
        .replacen("steps = 20", "steps = 4", 1)
        .replacen("steps = 20", "steps = 40", 1)
        .replacen("steps = 10", "steps = 3", 1);
    Recipe::parse(
        &text,
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/toy.toml"),
    )
    .expect("recipe")
}

/// libtorch's random generator is global to the process: runs in parallel test
/// threads would draw from each other's stream, so these tests take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `recipe` into `out` with every registered environment; the printed table
/// goes to `table`.
fn run_recipe(
    recipe: &Recipe,
    out: &Path,
    resume: Resume,
    table: &mut Vec<u8>,
) -> Result<RunRecord, RunError> {
    let registry = Registry::discover().expect("registry");
    let options = RunOptions {
        output: out.to_owned(),
        resume,
    };
    run(recipe, &registry, &options, table)
}

fn run_into(out: &Path, resume: Resume) -> RunRecord {
    run_recipe(&recipe(), out, resume, &mut Vec::new()).expect("run")
}

/// Not a test by itself: the child process the kill test starts and kills.
#[test]
#[ignore]
fn child_run_for_kill_test() {
    common::pin();
    if let Ok(out) = std::env::var("CASCADE_KILL_TEST_OUT") {
        run_into(&PathBuf::from(out), Resume::Fresh);
    }
}

#[test]
fn killed_run_resumes_to_the_uninterrupted_result() {
    common::pin();
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let killed = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "child_run_for_kill_test",
            "--ignored",
            "--test-threads=1",
        ])
        .env("CASCADE_KILL_TEST_OUT", killed.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn child");
    // Kill it once the second stage has taken a few steps (the first is checkpointed).
    let start = Instant::now();
    loop {
        let in_second = std::fs::read_to_string(killed.path().join("metrics.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"stage\":\"grpo-b\""))
            .count();
        if in_second >= 3 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "child made no progress"
        );
        if let Ok(Some(status)) = child.try_wait() {
            panic!("child ended before it could be killed: {status}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().expect("kill");
    let _ = child.wait();
    let partial: Value = serde_json::from_str(
        &std::fs::read_to_string(killed.path().join("evals.json")).expect("evals"),
    )
    .expect("json");
    let done: Vec<&str> = partial["stages"]
        .as_array()
        .expect("stages")
        .iter()
        .filter_map(|s| s["stage"].as_str())
        .collect();
    assert_eq!(done, vec!["base", "grpo-a"], "killed mid grpo-b");

    let resumed = run_into(killed.path(), Resume::Last);
    let clean_dir = tempfile::tempdir().expect("temp dir");
    let clean = run_into(clean_dir.path(), Resume::Fresh);
    assert_eq!(
        resumed, clean,
        "resumed record equals the uninterrupted one"
    );
    let (a, b) = (metrics(killed.path()), metrics(clean_dir.path()));
    let key = |m: &Vec<Value>| {
        m.iter()
            .map(|v| {
                (
                    v["stage"].as_str().unwrap_or("").to_owned(),
                    v["step"].as_u64().unwrap_or(0),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b), "same steps, none lost or repeated");
    let rewards = |m: &Vec<Value>| {
        m.iter()
            .map(|v| v.get("reward_mean").and_then(Value::as_f64))
            .collect::<Vec<_>>()
    };
    assert_eq!(rewards(&a), rewards(&b), "same rewards step by step");

    // The SPEC's layout.
    for stage in ["grpo-a", "grpo-b", "mopd"] {
        let ckpt = killed.path().join("checkpoints").join(stage);
        for f in ["config.json", "model.safetensors", "tokenizer.json"] {
            assert!(ckpt.join(f).exists(), "{}", ckpt.join(f).display());
        }
    }
    for f in [
        "evals.json",
        "evals.csv",
        "plots/reward.png",
        "plots/evals.png",
    ] {
        assert!(killed.path().join(f).exists(), "{f}");
    }
    let evals: Value = serde_json::from_str(
        &std::fs::read_to_string(killed.path().join("evals.json")).expect("evals"),
    )
    .expect("json");
    let stages = evals["stages"].as_array().expect("stages");
    assert_eq!(stages[0]["stage"], "base");
    assert_eq!(stages[3]["algorithm"], "mopd");
    assert!(stages[3]["teachers"]["addition"].is_string());
    assert!(a
        .iter()
        .filter(|m| m["stage"] == "mopd")
        .all(|m| m.get("advantage_mean").is_some()));
}

#[test]
fn a_named_stage_restarts_there_and_forgets_later_ones() {
    common::pin();
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = tempfile::tempdir().expect("temp dir");
    let first = run_into(out.path(), Resume::Fresh);
    let again = run_into(out.path(), Resume::From("mopd".into()));
    assert_eq!(first, again);
    let m = metrics(out.path());
    assert_eq!(m.iter().filter(|v| v["stage"] == "mopd").count(), 3);
    let err = run_recipe(&recipe(), out.path(), Resume::Fresh, &mut Vec::new())
        .expect_err("fresh run over an old one");
    assert!(err.to_string().contains("already holds a run"), "{err}");
}

#[test]
fn a_stage_eval_set_is_scored_after_every_stage() {
    common::pin();
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let toy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/toy.toml");
    let text = std::fs::read_to_string(&toy)
        .expect("toy.toml")
        .replacen("steps = 20", "steps = 2", 2)
        .replacen("steps = 10", "steps = 2", 1)
        // grpo-b (the stage with dynamic filtering) declares its own eval set: a
        // second domain on the same env.
        .replacen(
            "filter_zero_variance = true\n",
            "filter_zero_variance = true\n[[stage.eval]]\ndomain = \"sums-first-20\"\nenv = \"addition\"\ndataset = \"../trainer/assets/addition/eval.jsonl\"\nlimit = 20\n",
            1,
        );
    let recipe = Recipe::parse(&text, &toy).expect("recipe");
    let out = tempfile::tempdir().expect("temp dir");
    let mut table = Vec::new();
    let record = run_recipe(&recipe, out.path(), Resume::Fresh, &mut table).expect("run");
    let names: Vec<&str> = record.stages.iter().map(|s| s.stage.as_str()).collect();
    assert_eq!(names, ["base", "grpo-a", "grpo-b", "mopd"]);
    for s in &record.stages {
        let domains: Vec<&str> = s.scores.keys().map(String::as_str).collect();
        assert_eq!(domains, ["addition", "sums-first-20"], "{}", s.stage);
    }
    let table = String::from_utf8_lossy(&table);
    assert!(table.contains("sums-first-20"), "{table}");
    // MOPD lines carry the per-domain figures and the teacher used.
    for m in metrics(out.path()).iter().filter(|m| m["stage"] == "mopd") {
        for key in [
            "advantage_mean_by_domain",
            "truncated_share_by_domain",
            "teachers",
        ] {
            assert!(
                m[key]["addition"].is_number() || m[key]["addition"].is_string(),
                "{key}: {m}"
            );
        }
    }
}

/// The main job, recipes/tiny.toml as shipped: every stage in Cascade 2's order, each RL
/// stage on toy rows of its own domain. The story, not the digits (float rounding
/// differs between CPUs, and the trajectory with it): SFT lifts every domain from 0;
/// every RL stage learns its own domain; the RL stages forget others, which a later
/// stage of their own learns back; MOPD reaches its teachers, the best earlier
/// checkpoint per domain.
#[test]
fn tiny_recipe_table_shows_learning_forgetting_and_recovery() {
    common::pin();
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/tiny.toml");
    let recipe = Recipe::load(&path).expect("tiny.toml");
    let out = tempfile::tempdir().expect("temp dir");
    let mut table = Vec::new();
    let record = run_recipe(&recipe, out.path(), Resume::Fresh, &mut table).expect("run");
    common::record_trajectory(&common::run_trajectory(out.path()));
    let table = String::from_utf8_lossy(&table);
    println!("{table}"); // for `-- --nocapture`
    let names: Vec<&str> = record.stages.iter().map(|s| s.stage.as_str()).collect();
    assert_eq!(names, CASCADE_ORDER, "{table}");
    let score = |stage: &str, domain: &str| {
        record
            .stages
            .iter()
            .find(|s| s.stage == stage)
            .and_then(|s| s.scores.get(domain).copied())
            .unwrap_or_else(|| panic!("no {domain} score for {stage}:\n{table}"))
    };
    // mcqa stays near chance (0.25): matching an option by its content is beyond a
    // 2-layer model in this budget.
    for domain in MOPD_DOMAINS.into_iter().filter(|&d| d != "mcqa") {
        assert_eq!(score("base", domain), 0.0, "{table}");
        assert!(score("sft", domain) >= 0.2, "SFT learns {domain}:\n{table}");
    }
    let metrics_all = metrics(out.path());
    assert_each_rl_stage_learns_its_domain(&metrics_all, &score, &table);
    assert_mopd_recovers_what_the_rl_stages_disturbed(&record, &score, &table);
    // No rlhf score before the reward model exists (its stage comes after SFT's).
    let sft_row = record
        .stages
        .iter()
        .find(|s| s.stage == "sft")
        .expect("sft");
    assert!(!sft_row.scores.contains_key("rlhf"), "{table}");
    // The SFT stage is logged like the others: one line per step with its loss.
    let sft: Vec<&Value> = metrics_all.iter().filter(|m| m["stage"] == "sft").collect();
    assert_eq!(sft.len(), recipe.stages[0].common().steps);
    assert!(sft
        .iter()
        .all(|m| m["algorithm"] == "sft" && m["loss"].is_number()));
    let loss = |m: &Value| m["loss"].as_f64().unwrap_or(f64::NAN);
    assert!(loss(sft[sft.len() - 1]) < loss(sft[0]) / 4.0);
}

/// Cascade 2's order (SFT, IF-RL, multi-domain RL, MOPD, RLHF, long-context RL, code RL,
/// SWE RL), with the reward model RLHF needs trained just before it.
const CASCADE_ORDER: [&str; 10] = [
    "base",
    "sft",
    "if-rl",
    "multi-domain",
    "mopd",
    "rm",
    "rlhf",
    "long-context",
    "code-rl",
    "swe-rl",
];

/// The domains SFT teaches and MOPD distills.
const MOPD_DOMAINS: [&str; 8] = [
    "math",
    "ifeval",
    "mcqa",
    "structured_output",
    "tool_call",
    "long_context",
    "code",
    "swe",
];

/// Each RL stage's own domains (one stage, a few domains for multi-domain RL) and the
/// stage before it, whose row is the stage's starting point.
const OWN_DOMAINS: [(&str, &str, &[&str]); 6] = [
    ("if-rl", "sft", &["ifeval"]),
    (
        "multi-domain",
        "if-rl",
        &["mcqa", "structured_output", "tool_call"],
    ),
    ("rlhf", "rm", &["rlhf"]),
    ("long-context", "rlhf", &["long_context"]),
    ("code-rl", "long-context", &["code"]),
    ("swe-rl", "code-rl", &["swe"]),
];

/// Each RL stage learns its own domain: the reward it samples on one of its domains
/// rises (`reward_mean_by_domain`: the mean over the last fifth of the steps that drew the
/// domain against the first fifth; 6 to 8 steps of 32 to 64 samples for a stage of
/// one domain), or, where the greedy answers had room, one of its domains' greedy eval
/// rises by 0.15 (3 to 5 more right answers in 16 to 32). None of its own domains falls
/// by over 0.1. Per domain, because a stage of several domains mixes them in
/// proportions the draw changes every step: multi-domain's mean moved by ±0.04 with
/// the mix alone. Where SFT left a domain at 1.0, only the sampled reward can rise;
/// mcqa, at chance, must keep its level but cannot count as learned.
fn assert_each_rl_stage_learns_its_domain(
    metrics_all: &[Value],
    score: &dyn Fn(&str, &str) -> f64,
    table: &str,
) {
    for (stage, before, domains) in OWN_DOMAINS {
        // mcqa stays at chance (see above): its sampled reward rising by 0.05 would
        // be noise, so it counts for "keeps" only.
        let sampled: Vec<(f64, f64)> = domains
            .iter()
            .filter(|&&d| d != "mcqa")
            .map(|d| sampled_early_late(metrics_all, stage, d))
            .collect();
        let rises: Vec<f64> = domains
            .iter()
            .map(|d| score(stage, d) - score(before, d))
            .collect();
        let best_rise = rises.iter().copied().fold(f64::MIN, f64::max);
        assert!(
            sampled.iter().any(|(early, late)| late >= &(early + 0.05)) || best_rise >= 0.15,
            "{stage} learns {domains:?}: sampled (first, last fifth) {sampled:.3?}, greedy {rises:?}\n{table}"
        );
        assert!(
            rises.iter().all(|&r| r >= -0.1),
            "{stage} keeps {domains:?}: greedy {rises:?}\n{table}"
        );
    }
}

/// `domain`'s mean sampled reward over the first and the last fifth of `stage`'s
/// steps that drew it.
fn sampled_early_late(metrics_all: &[Value], stage: &str, domain: &str) -> (f64, f64) {
    let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    let rewards: Vec<f64> = metrics_all
        .iter()
        .filter(|m| m["stage"] == stage)
        .filter_map(|m| m["reward_mean_by_domain"][domain].as_f64())
        .collect();
    let fifth = (rewards.len() / 5).max(1).min(rewards.len());
    (
        mean(&rewards[..fifth]),
        mean(&rewards[rewards.len() - fifth..]),
    )
}

/// Forgetting and recovery. MOPD distills each domain from its best earlier checkpoint
/// and reaches that teacher's level (the brief: "it recovers teacher level in tens of
/// steps"). And the RL stages forget: some domain falls by 0.2 or more in a stage that
/// does not train it, and rises by 0.2 or more again in its own later stage.
fn assert_mopd_recovers_what_the_rl_stages_disturbed(
    record: &RunRecord,
    score: &dyn Fn(&str, &str) -> f64,
    table: &str,
) {
    let mopd = record
        .stages
        .iter()
        .find(|s| s.stage == "mopd")
        .expect("mopd");
    let mut shortfall = 0.0;
    for domain in MOPD_DOMAINS {
        let best = ["sft", "if-rl", "multi-domain"]
            .into_iter()
            .fold("sft", |b, s| {
                if score(s, domain) > score(b, domain) {
                    s
                } else {
                    b
                }
            });
        assert_eq!(
            mopd.teachers.get(domain).map(String::as_str),
            Some(best),
            "{domain}:\n{table}"
        );
        let behind = score(best, domain) - score("mopd", domain);
        assert!(
            behind <= 0.15,
            "MOPD reaches its {domain} teacher:\n{table}"
        );
        shortfall += behind.max(0.0);
    }
    assert!(
        shortfall <= 0.3,
        "MOPD reaches its teachers ({shortfall:.3}):\n{table}"
    );
    let rank = |s: &str| record.stages.iter().position(|r| r.stage == s).unwrap();
    let at = |row: usize, d: &str| record.stages[row].scores.get(d).copied();
    let relearned = OWN_DOMAINS.iter().any(|&(own, before_own, domains)| {
        domains.iter().any(|d| {
            let forgot = (3..rank(own)).any(|row| match (at(row - 1, d), at(row, d)) {
                (Some(prev), Some(now)) => prev - now >= 0.2,
                _ => false,
            });
            forgot && score(own, d) - score(before_own, d) >= 0.2
        })
    });
    assert!(
        relearned,
        "an RL stage forgets a domain that its own stage relearns:\n{table}"
    );
}

/// An SFT stage replays exactly when redone (`--from`): same losses step by step,
/// same record, and the GRPO stage after it sees the same policy.
#[test]
fn an_sft_stage_redone_replays_exactly() {
    common::pin();
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let toy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/toy.toml");
    let text = std::fs::read_to_string(&toy).expect("toy.toml");
    let first_stage = text.find("[[stage]]").expect("a stage");
    let text = format!(
        "{}[[stage]]\nname = \"sft\"\nalgorithm = \"sft\"\nsteps = 4\nlr = 1e-4\nprompts_per_step = 8\n[[stage.env]]\nname = \"addition\"\ndataset = \"../trainer/assets/addition/train.jsonl\"\ntarget = \"answer\"\n\n{}",
        &text[..first_stage],
        &text[first_stage..]
    )
    .replacen("steps = 20", "steps = 2", 2)
    .replacen("steps = 10", "steps = 2", 1);
    let recipe = Recipe::parse(&text, &toy).expect("recipe");
    let out = tempfile::tempdir().expect("temp dir");
    let go =
        |resume: Resume| run_recipe(&recipe, out.path(), resume, &mut Vec::new()).expect("run");
    let losses = || {
        metrics(out.path())
            .iter()
            .filter(|m| m["stage"] == "sft")
            .map(|m| m["loss"].as_f64())
            .collect::<Vec<_>>()
    };
    let first = go(Resume::Fresh);
    let first_losses = losses();
    assert_eq!(first_losses.len(), 4);
    assert!(first_losses.iter().all(Option::is_some));
    assert_eq!(first.stages[1].stage, "sft");
    assert_eq!(first.stages[1].algorithm, Some(Algorithm::Sft));
    let again = go(Resume::From("sft".into()));
    assert_eq!(first, again, "same record");
    assert_eq!(first_losses, losses(), "same losses step by step");
}

/// A GRPO stage and a MOPD stage whose batches draw rows of a multi-turn environment
/// (`lookup`) beside a single-turn one run conversations through the stage loop; the
/// multi-turn domain is evaluated as greedy conversations after every stage.
#[test]
fn stages_with_a_multi_turn_environment_run_conversations() {
    common::pin();
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let text = r#"
[run]
model = "../trainer/assets/tiny-chatml"
init = "random"
seed = 0
device = "cpu"
threads = 1
eval_max_new_tokens = 8

[[eval]]
domain = "lookup"
dataset = "../datasets/lookup/eval.jsonl"
limit = 4

[[stage]]
name = "tool-rl"
algorithm = "grpo"
steps = 2
lr = 1e-4
prompts_per_step = 4
group_size = 2
max_new_tokens = 8
max_turns = 2
[[stage.env]]
name = "lookup"
dataset = "../datasets/lookup/train.jsonl"
[[stage.env]]
name = "addition"
dataset = "../trainer/assets/addition/train.jsonl"

[[stage]]
name = "mopd"
algorithm = "mopd"
steps = 2
lr = 1e-5
prompts_per_step = 4
group_size = 2
max_new_tokens = 8
[[stage.env]]
name = "lookup"
dataset = "../datasets/lookup/train.jsonl"
"#;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/tiny.toml");
    let recipe = Recipe::parse(text, &path).expect("recipe");
    let out = tempfile::tempdir().expect("temp dir");
    let record = run_recipe(&recipe, out.path(), Resume::Fresh, &mut Vec::new()).expect("run");
    let names: Vec<&str> = record.stages.iter().map(|s| s.stage.as_str()).collect();
    assert_eq!(names, ["base", "tool-rl", "mopd"]);
    assert!(record
        .stages
        .iter()
        .all(|s| s.scores.contains_key("lookup")));
    let lines = metrics(out.path());
    let grpo: Vec<&Value> = lines.iter().filter(|m| m["stage"] == "tool-rl").collect();
    assert_eq!(grpo.len(), 2);
    for m in grpo {
        assert!(m["turns_mean"].as_f64().is_some_and(|t| t >= 1.0), "{m}");
        assert!(
            m["logprob_drift_max"].as_f64().is_some_and(|d| d < 1e-3),
            "{m}"
        );
    }
    assert_eq!(lines.iter().filter(|m| m["stage"] == "mopd").count(), 2);
}
