//! The real pretrained SmolLM2-135M-Instruct (converted by scripts/setup): the chat
//! template renders and tokenizes exactly as transformers does (system default,
//! explicit system, earlier turns), and greedy continuations equal transformers'
//! token for token, stopping where it stops (the eos of generation_config.json).

mod common;

use std::process::Command;

use cascade_envs::ChatMessage;
use cascade_trainer::model::Transformer;
use cascade_trainer::sampling::{generate, SamplingParams};
use cascade_trainer::tokenizer::TextTokenizer;
use tch::{Device, Kind};

const MAX_NEW_TOKENS: usize = 16;

fn transformers_reference(dir: &std::path::Path) -> serde_json::Value {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real_model.py");
    let out = Command::new(common::python())
        .arg(script)
        .arg(dir)
        .arg(MAX_NEW_TOKENS.to_string())
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn smollm2_prompts_and_greedy_continuations_match_transformers() {
    let dir = common::smollm2_dir();
    let reference = transformers_reference(&dir);
    let tokenizer = TextTokenizer::load(&dir).expect("tokenizer");
    assert_eq!(
        tokenizer.stop_ids,
        vec![reference["eos"].as_i64().expect("eos")]
    );
    let model = Transformer::load(&dir, Device::Cpu, Kind::Float).expect("model");
    let mut stopped = 0;
    for chat in reference["chats"].as_array().expect("chats") {
        let messages: Vec<ChatMessage> =
            serde_json::from_value(chat["messages"].clone()).expect("messages");
        let text = tokenizer.render_chat(&messages, None).expect("render");
        assert_eq!(text, chat["text"].as_str().expect("text"));
        let ids = tokenizer.encode(&text).expect("encode");
        let want_ids: Vec<i64> = serde_json::from_value(chat["ids"].clone()).expect("ids");
        assert_eq!(ids, want_ids);
        let params = SamplingParams {
            temperature: 0.0,
            max_new_tokens: MAX_NEW_TOKENS,
            stop_ids: tokenizer.stop_ids.clone(),
            pad_id: tokenizer.pad_id,
            ..Default::default()
        };
        let generation = generate(&model, &[ids], &params, &|_| String::new());
        let want: Vec<i64> = serde_json::from_value(chat["greedy"].clone()).expect("greedy");
        assert_eq!(generation.completions[0], want, "{text:?}");
        stopped += usize::from(generation.finished[0]);
    }
    // "What is 2 + 3?" → "2 + 3 = 5<|im_end|>": decoding really ends on the eos.
    assert!(stopped >= 1, "no continuation reached the eos");
}

/// CI's smoke test on the real model: two GRPO steps of 2 prompts × 2 responses on
/// the `math` environment's arithmetic rows, from the converted checkpoint. Rewards
/// come from the real env, the loss's gradient is finite, and responses end at the
/// eos before the cap (the only stop criterion here).
// 128 new tokens: SmolLM2 reasons a few sentences before its answer, and at a 48-token
// cap every sampled response was cut (pinned numerics: the same responses on every
// x86-64 CPU, so the cap is a fixed fact of this test, not a flake). ~65 s on 1 thread.
#[test]
fn two_grpo_steps_on_smollm2_with_a_real_env() {
    let dir = common::smollm2_dir();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/math");
    let text = format!(
        r#"
[run]
model = "{model}"
device = "cpu"
eval_max_new_tokens = 24
threads = 1

[[eval]]
domain = "math"
dataset = "{data}/arithmetic.eval.jsonl"
limit = 2

[[stage]]
name = "grpo"
algorithm = "grpo"
steps = 2
lr = 1e-6
prompts_per_step = 2
group_size = 2
max_new_tokens = 128
temperature = 0.7
[[stage.env]]
name = "math"
dataset = "{data}/arithmetic.train.jsonl"
"#,
        model = dir.display(),
        data = data.display()
    );
    let out = tempfile::tempdir().expect("temp dir");
    let recipe =
        cascade_trainer::recipe::Recipe::parse(&text, &out.path().join("r.toml")).expect("recipe");
    let mut printed = Vec::new();
    common::run_fresh(&recipe, &out.path().join("run"), &mut printed);
    let steps: Vec<serde_json::Value> = common::metrics(&out.path().join("run"))
        .into_iter()
        .filter(|m| m.get("grad_norm").is_some())
        .collect();
    assert_eq!(steps.len(), 2, "{}", String::from_utf8_lossy(&printed));
    for m in &steps {
        let figure = |k: &str| m[k].as_f64().unwrap_or(f64::NAN);
        assert!(figure("grad_norm").is_finite(), "{m}");
        assert!((0.0..=1.0).contains(&figure("reward_mean")), "{m}");
        assert!(
            m["reward_mean_by_domain"]["math"].is_number(),
            "rewards from the math env: {m}"
        );
        assert!(
            figure("response_len_mean") < 128.0,
            "no response stopped: {m}"
        );
    }
}
