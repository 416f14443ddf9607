//! RLHF end to end on the bundled keyword preference (`datasets/rlhf`): an `rm`
//! stage's Bradley–Terry training raises held-out pairwise accuracy, and a GRPO stage
//! against that reward model (`rlhf` env, KL 0.03 to its starting policy) raises the
//! reward model's reward while the logged KL stays small. Bad preference rows are
//! reported by line, skipped and counted.

mod common;

use std::path::Path;

use cascade_trainer::recipe::{Algorithm, Recipe};
use serde_json::Value;

const RECIPE: &str = r#"
[run]
model = "../trainer/assets/tiny-chatml"
init = "random"
seed = 0
device = "cpu"
threads = 1
eval_max_new_tokens = 20

[[eval]]
domain = "rlhf"
dataset = "../datasets/rlhf/keyword.eval.jsonl"
config = { reward_model = "rm", baseline = "sft" }

[[stage]]
name = "rm"
algorithm = "rm"
steps = STEPS
lr = 1e-3
prompts_per_step = 16
dataset = "TRAIN"
eval_dataset = "../datasets/rlhf/keyword.eval.jsonl"

[[stage]]
name = "sft"
algorithm = "sft"
steps = 100
lr = 3e-3
prompts_per_step = 32
[[stage.env]]
name = "rlhf"
dataset = "../datasets/rlhf/keyword.train.jsonl"
config = { reward_model = "rm" }
target = "chosen"
[[stage.env]]
name = "rlhf"
dataset = "../datasets/rlhf/keyword.train.jsonl"
config = { reward_model = "rm" }
target = "rejected"

[[stage]]
name = "rlhf"
algorithm = "grpo"
kl = 0.03
steps = 30
lr = 3e-4
prompts_per_step = 16
group_size = 8
max_new_tokens = 20
[[stage.env]]
name = "rlhf"
dataset = "../datasets/rlhf/keyword.train.jsonl"
config = { reward_model = "rm" }
"#;

fn recipe(train: &str, rm_steps: usize) -> Recipe {
    let text = RECIPE
        .replace("STEPS", &rm_steps.to_string())
        .replace("TRAIN", train);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/rlhf-test.toml");
    Recipe::parse(&text, &path).expect("recipe")
}

fn stage_lines(out: &Path, stage: &str) -> Vec<Value> {
    common::metrics(out)
        .into_iter()
        .filter(|l| l["stage"] == stage)
        .collect()
}

fn mean(lines: &[Value], key: &str) -> f64 {
    lines
        .iter()
        .map(|l| l[key].as_f64().expect(key))
        .sum::<f64>()
        / lines.len() as f64
}

#[test]
fn reward_model_training_then_grpo_against_it_raises_its_reward_with_bounded_kl() {
    common::pin();
    let out = tempfile::tempdir().expect("temp dir");
    let recipe = recipe("../datasets/rlhf/keyword.train.jsonl", 600);
    let mut printed = Vec::new();
    let record = common::run_fresh(&recipe, out.path(), &mut printed);
    let printed = String::from_utf8_lossy(&printed);

    let rm = &record.stages[1];
    assert_eq!(rm.algorithm, Some(Algorithm::Rm));
    let figures = rm.reward_model.as_ref().expect("reward model figures");
    assert_eq!((figures.train_pairs, figures.eval_pairs), (256, 64));
    assert!(
        figures.accuracy >= 0.8 && figures.accuracy >= figures.accuracy_before + 0.2,
        "pairwise accuracy {} → {}\n{printed}",
        figures.accuracy_before,
        figures.accuracy
    );
    // Saved in the layout public reward models ship in.
    let config = std::fs::read_to_string(out.path().join("checkpoints/rm/config.json")).unwrap();
    assert!(
        config.contains("Qwen2ForSequenceClassification"),
        "{config}"
    );

    let lines = stage_lines(out.path(), "rlhf");
    assert_eq!(lines.len(), 30);
    let (first, last) = (
        mean(&lines[..5], "reward_mean"),
        mean(&lines[25..], "reward_mean"),
    );
    assert!(
        last > first + 0.05,
        "reward-model reward {first:.3} → {last:.3}\n{printed}"
    );
    for line in &lines {
        let kl = line["kl_mean"].as_f64().expect("kl_mean logged every step");
        assert!((-1e-6..1.0).contains(&kl), "KL {kl} in {line}");
    }
    // The rlhf domain is the win rate against the SFT model's responses, judged by
    // the reward model: none before both exist, 0.5 for the SFT model itself, and
    // the RLHF stage's responses win.
    let names: Vec<&str> = record.stages.iter().map(|s| s.stage.as_str()).collect();
    assert_eq!(names, ["base", "rm", "sft", "rlhf"]);
    assert!(!record.stages[0].scores.contains_key("rlhf"));
    assert!(!record.stages[1].scores.contains_key("rlhf"));
    assert_eq!(record.stages[2].scores["rlhf"], 0.5);
    let win_rate = record.stages[3].scores["rlhf"];
    assert!(win_rate > 0.6, "win rate {win_rate}\n{printed}");
    println!("{printed}"); // the table, for `-- --nocapture`
}

#[test]
fn bad_preference_rows_are_reported_by_line_skipped_and_counted() {
    common::pin();
    let dir = tempfile::tempdir().expect("temp dir");
    let train = dir.path().join("prefs.jsonl");
    let rows = [
        r#"{"prompt": "Say sun.", "chosen": "The sun.", "rejected": "The it."}"#,
        r#"{"prompt": "Say sun.", "chosen": "The sun."}"#,
        r#"{"prompt": "Say rock.", "chosen": "A rock.", "rejected": "A rock."}"#,
        r#"{"chosen": [{"role": "user", "content": "Say moon."}, {"role": "assistant", "content": "moon"}], "rejected": [{"role": "user", "content": "Say moon."}, {"role": "assistant", "content": "fish"}]}"#,
    ];
    std::fs::write(&train, rows.join("\n") + "\n").expect("write");
    let recipe = recipe(train.to_str().expect("utf-8 path"), 2);
    let out = dir.path().join("run");
    let mut printed = Vec::new();
    let record = common::run_fresh(&recipe, &out, &mut printed);
    let printed = String::from_utf8_lossy(&printed);
    let figures = record.stages[1].reward_model.as_ref().expect("figures");
    assert_eq!((figures.train_pairs, figures.skipped_rows), (2, 2));
    assert!(printed.contains("2 preference rows skipped"), "{printed}");
    assert!(
        printed.contains("prefs.jsonl:2: missing `rejected`"),
        "{printed}"
    );
    assert!(
        printed.contains("prefs.jsonl:3: `rejected` is identical"),
        "{printed}"
    );
}
