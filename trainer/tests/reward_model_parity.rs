//! Reward models in transformers' `*ForSequenceClassification` layout: scores match
//! transformers on tiny random Qwen2 (tied) and Qwen3 checkpoints (a ragged,
//! left-padded batch, with the pad id inside and at the end of sequences); a reward
//! model saved here, or made from a policy, loads in transformers with the same
//! scores; checkpoints of the wrong shape or tokenizer are refused by name.

mod common;

use std::path::Path;

use cascade_trainer::model::Transformer;
use cascade_trainer::reward_model::{load_reward_model, score_all};
use tch::{Device, Kind};

fn sequences(reference: &serde_json::Value) -> Vec<Vec<i64>> {
    serde_json::from_value(reference["rm_sequences"].clone()).expect("rm_sequences")
}

fn reference_scores(reference: &serde_json::Value, name: &str) -> Vec<f64> {
    serde_json::from_value(reference["reward_models"][name]["scores"].clone()).expect("scores")
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// transformers' reload of `dir`, compared with `scores` of `sequences`.
fn transformers_reload_diff(dir: &Path, name: &str, sequences: &[Vec<i64>], scores: &[f64]) -> f64 {
    let reference = serde_json::json!({
        "rm_sequences": sequences,
        "reward_models": { name: { "scores": scores } },
    });
    let path = dir.join("reload-reference.json");
    std::fs::write(&path, reference.to_string()).expect("write reference");
    common::transformers_reload_diff(dir, &path, name)
}

#[test]
fn reward_model_scores_match_transformers() {
    let reference = common::reference();
    let seqs = sequences(&reference);
    for name in ["rm-qwen2", "rm-qwen3"] {
        let dir = common::tiny_models().join(name);
        let model = load_reward_model(&dir, &dir, Device::Cpu).expect("load");
        // Batches of 3 and 1: left padding must not move any score.
        let got = score_all(&model, &seqs, 3);
        let diff = max_diff(&got, &reference_scores(&reference, name));
        assert!(diff < 1e-4, "{name}: max |Δscore| = {diff}");
    }
}

#[test]
fn reward_models_saved_here_or_made_from_a_policy_load_in_transformers() {
    let reference = common::reference();
    let seqs = sequences(&reference);
    let out = tempfile::tempdir().expect("temp dir");
    let rm_dir = common::tiny_models().join("rm-qwen3");
    let rm = load_reward_model(&rm_dir, &rm_dir, Device::Cpu).expect("load");
    let saved = out.path().join("rm-qwen3");
    rm.save(&saved, usize::MAX).expect("save");
    let scores = score_all(&rm, &seqs, 4);
    assert!(transformers_reload_diff(&saved, "rm-qwen3", &seqs, &scores) < 1e-4);

    // A policy's trunk under a fresh score head, as an `rm` stage starts.
    for policy_name in ["qwen2", "llama"] {
        let policy_dir = common::tiny_models().join(policy_name);
        let policy = Transformer::load(&policy_dir, Device::Cpu, Kind::Float).expect("policy");
        let fresh = policy.reward_model_from(0, 7).expect("reward model");
        let dir = out.path().join(format!("rm-from-{policy_name}"));
        fresh.save(&dir, usize::MAX).expect("save");
        cascade_trainer::model::copy_tokenizer_files(&policy_dir, &dir).expect("tokenizer");
        let again = load_reward_model(&dir, &policy_dir, Device::Cpu).expect("reload");
        let scores = score_all(&again, &seqs, 2);
        assert!(scores.iter().any(|s| *s != 0.0));
        let diff = transformers_reload_diff(&dir, &format!("rm-{policy_name}"), &seqs, &scores);
        assert!(diff < 1e-4, "{policy_name}: transformers differs by {diff}");
    }
}

#[test]
fn a_reward_model_of_the_wrong_layout_shape_or_tokenizer_is_refused_by_name() {
    let models = common::tiny_models();
    let policy = models.join("qwen3");
    let err = load_reward_model(&policy, &policy, Device::Cpu)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("config.json") && err.contains("architectures"),
        "{err}"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let src = models.join("rm-qwen3");
    for file in [
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
    ] {
        std::fs::copy(src.join(file), dir.path().join(file)).expect("copy");
    }
    let config = std::fs::read_to_string(src.join("config.json")).expect("config");
    let two_labels = config.replace(
        "\"id2label\": {\n    \"0\": \"LABEL_0\"\n  }",
        "\"id2label\": {\"0\": \"A\", \"1\": \"B\"}",
    );
    assert_ne!(two_labels, config, "id2label is written as expected");
    std::fs::write(dir.path().join("config.json"), &two_labels).expect("write");
    let err = load_reward_model(dir.path(), &src, Device::Cpu)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("config.json") && err.contains("`id2label` has 2 labels"),
        "{err}"
    );

    std::fs::write(
        dir.path().join("config.json"),
        config.replace("\"hidden_size\": 64", "\"hidden_size\": 32"),
    )
    .expect("write");
    let err = load_reward_model(dir.path(), &src, Device::Cpu)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("model.embed_tokens.weight") && err.contains("has shape"),
        "{err}"
    );

    std::fs::write(dir.path().join("config.json"), &config).expect("write");
    let tokenizer = std::fs::read_to_string(src.join("tokenizer.json")).expect("tokenizer");
    let other = tokenizer.replacen("\"a\":", "\"A\":", 1);
    assert_ne!(other, tokenizer);
    std::fs::write(dir.path().join("tokenizer.json"), other).expect("write");
    let err = load_reward_model(dir.path(), &src, Device::Cpu)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("tokenizer.json") && err.contains("`model.vocab` differs"),
        "{err}"
    );
}
