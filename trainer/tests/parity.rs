//! Numerical parity with transformers on tiny random Qwen2 (old config layout, tied,
//! q/k/v bias), Llama (sharded, untied) and Qwen3 (q/k norm, head_dim ≠ hidden/heads,
//! transformers-5 layout) checkpoints: logits to 1e-4, greedy generation token for
//! token (ragged batch, left-padded), and a checkpoint saved here reloads in transformers.

mod common;

use cascade_trainer::model::Transformer;
use cascade_trainer::sampling::{generate, SamplingParams};
use cascade_trainer::tokenizer::TextTokenizer;
use tch::{Device, Kind, Tensor};

const MODELS: [&str; 3] = ["qwen2", "llama", "qwen3"];

fn load(name: &str) -> Transformer {
    Transformer::load(&common::tiny_models().join(name), Device::Cpu, Kind::Float).expect("load")
}

fn prompts(reference: &serde_json::Value) -> Vec<Vec<i64>> {
    serde_json::from_value(reference["prompts"].clone()).expect("prompts")
}

fn max_logit_diff(model: &Transformer, reference: &serde_json::Value, name: &str) -> f64 {
    let mut worst = 0.0f64;
    for (p, want) in prompts(reference).iter().zip(
        reference["models"][name]["logits"]
            .as_array()
            .expect("logits"),
    ) {
        let ids = Tensor::from_slice(p).view([1, -1]);
        let valid = ids.ones_like().to_kind(Kind::Bool);
        let got = tch::no_grad(|| model.forward(&ids, &valid, None)).squeeze_dim(0);
        let want: Vec<Vec<f64>> = serde_json::from_value(want.clone()).expect("rows");
        let want = Tensor::from_slice2(&want).to_kind(Kind::Float);
        worst = worst.max(f64::try_from((got - want).abs().max()).expect("scalar"));
    }
    worst
}

#[test]
fn logits_match_transformers() {
    let reference = common::reference();
    for name in MODELS {
        let diff = max_logit_diff(&load(name), &reference, name);
        assert!(diff < 1e-4, "{name}: max |Δlogit| = {diff}");
    }
}

#[test]
fn greedy_generation_matches_transformers_in_a_ragged_batch() {
    let reference = common::reference();
    let prompts = prompts(&reference);
    for name in MODELS {
        let model = load(name);
        let params = SamplingParams {
            temperature: 0.0,
            max_new_tokens: 8,
            ..Default::default()
        };
        let generation = generate(&model, &prompts, &params, &|_| String::new());
        let want: Vec<Vec<i64>> =
            serde_json::from_value(reference["models"][name]["greedy"].clone()).expect("greedy");
        assert_eq!(generation.completions, want, "{name}");
        assert!(generation.finished.iter().all(|f| !f));
    }
}

#[test]
fn left_padding_does_not_change_logits() {
    let model = load("llama");
    let long = [1i64, 6, 40, 7, 44, 9];
    let short = [1i64, 3, 44];
    let single = |p: &[i64]| {
        let ids = Tensor::from_slice(p).view([1, -1]);
        tch::no_grad(|| model.forward(&ids, &ids.ones_like().to_kind(Kind::Bool), None))
            .select(1, -1)
    };
    let ids = Tensor::from_slice(&[1i64, 6, 40, 7, 44, 9, 0, 0, 0, 1, 3, 44]).view([2, 6]);
    let valid = Tensor::from_slice(&[
        true, true, true, true, true, true, false, false, false, true, true, true,
    ])
    .view([2, 6]);
    let batched = tch::no_grad(|| model.forward(&ids, &valid, None)).select(1, -1);
    let diff = |a: Tensor, b: Tensor| f64::try_from((a - b).abs().max()).expect("scalar");
    assert!(diff(batched.get(0), single(&long).squeeze_dim(0)) < 1e-5);
    assert!(diff(batched.get(1), single(&short).squeeze_dim(0)) < 1e-5);
}

#[test]
fn saved_checkpoints_reload_in_transformers() {
    let reference_path = common::tiny_models().join("reference.json");
    let out = tempfile::tempdir().expect("temp dir");
    for (name, shard) in [("qwen2", 40_000usize), ("qwen3", usize::MAX)] {
        let model = load(name);
        let dir = out.path().join(name);
        model.save(&dir, shard).expect("save");
        // Our own reader must read what we wrote, sharded or not.
        let again = Transformer::load(&dir, Device::Cpu, Kind::Float).expect("reload");
        assert!(max_logit_diff(&again, &common::reference(), name) < 1e-4);
        let diff = common::transformers_reload_diff(&dir, &reference_path, name);
        assert!(diff < 1e-4, "{name}: transformers reload differs by {diff}");
    }
}

#[test]
fn chat_template_renders_like_transformers_in_both_modes() {
    let reference = common::reference();
    let tok = TextTokenizer::load(&common::tiny_models().join("qwen3")).expect("tokenizer");
    let messages: Vec<cascade_envs::ChatMessage> =
        serde_json::from_value(reference["chat"]["messages"].clone()).expect("messages");
    assert_eq!(
        tok.render_chat(&messages, None).expect("render"),
        reference["chat"]["thinking"].as_str().unwrap_or_default()
    );
    assert_eq!(
        tok.render_chat(&messages, Some(false)).expect("render"),
        reference["chat"]["non_thinking"]
            .as_str()
            .unwrap_or_default()
    );
    let ids = tok.encode("12+3=").expect("encode");
    assert_eq!(ids, vec![4, 5, 40, 6, 44]);
    assert_eq!(tok.decode(&[4, 5, 40, 6, 44, 2]).expect("decode"), "12+3=");
    assert_eq!(tok.stop_ids, vec![2]);
}

#[test]
fn broken_checkpoints_name_the_tensor() {
    let src = common::tiny_models().join("qwen3");
    let dir = tempfile::tempdir().expect("temp dir");
    let model = load("qwen3");
    model.save(dir.path(), usize::MAX).expect("save");
    // Drop one tensor from the config's view by declaring a bias the file lacks.
    let config = std::fs::read_to_string(src.join("config.json")).expect("config");
    std::fs::write(
        dir.path().join("config.json"),
        config.replace("\"attention_bias\": false", "\"attention_bias\": true"),
    )
    .expect("write");
    let err = Transformer::load(dir.path(), Device::Cpu, Kind::Float)
        .err()
        .expect("must fail");
    assert_eq!(
        err.to_string(),
        "checkpoint is missing tensor `model.layers.0.self_attn.q_proj.bias`"
    );
    std::fs::write(
        dir.path().join("config.json"),
        config.replace("\"intermediate_size\": 128", "\"intermediate_size\": 96"),
    )
    .expect("write");
    let err = Transformer::load(dir.path(), Device::Cpu, Kind::Float)
        .err()
        .expect("must fail");
    assert!(
        err.to_string()
            .contains("model.layers.0.mlp.gate_proj.weight"),
        "{err}"
    );
    std::fs::remove_file(dir.path().join("model.safetensors")).expect("rm");
    let err = Transformer::load(dir.path(), Device::Cpu, Kind::Float)
        .err()
        .expect("must fail");
    assert!(err.to_string().contains("no weights found"), "{err}");
}
