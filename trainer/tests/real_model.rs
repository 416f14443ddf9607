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
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real_model.py");
    let out = Command::new(common::python())
        .arg(script)
        .arg(dir)
        .arg(MAX_NEW_TOKENS.to_string())
        .output()
        .expect("python");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn smollm2_prompts_and_greedy_continuations_match_transformers() {
    let dir = common::smollm2_dir();
    let reference = transformers_reference(&dir);
    let tokenizer = TextTokenizer::load(&dir).expect("tokenizer");
    assert_eq!(tokenizer.stop_ids, vec![reference["eos"].as_i64().expect("eos")]);
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
