//! Parity with transformers for every RoPE type it has for Llama (`linear`,
//! `dynamic`, `yarn`, `llama3`, `longrope`) and for the sliding windows of Mistral,
//! Qwen2 and Qwen3 (`tiny_models.py variants`): logits to 1e-4, and greedy decoding
//! token for token up to an eos that `generation_config.json` lists, where both stop.

mod common;

use cascade_trainer::model::Transformer;
use cascade_trainer::sampling::{generate, SamplingParams};
use cascade_trainer::tokenizer::TextTokenizer;
use tch::{Device, Kind, Tensor};

const VARIANTS: [&str; 8] = [
    "llama-linear",
    "llama-dynamic",
    "llama-yarn",
    "llama-llama3",
    "llama-longrope",
    "mistral",
    "qwen2-sliding",
    "qwen3-sliding",
];

fn reference() -> serde_json::Value {
    let path = common::tiny_variants().join("variants.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("variants.json")).expect("json")
}

fn prompts(reference: &serde_json::Value) -> Vec<Vec<i64>> {
    serde_json::from_value(reference["prompts"].clone()).expect("prompts")
}

fn load(name: &str) -> Transformer {
    let dir = common::tiny_variants().join(name);
    Transformer::load(&dir, Device::Cpu, Kind::Float).expect("load")
}

#[test]
fn logits_match_transformers_for_every_rope_type_and_window() {
    let reference = reference();
    for name in VARIANTS {
        let model = load(name);
        let want_all = reference["models"][name]["logits"]
            .as_array()
            .expect("logits");
        for (p, want) in prompts(&reference).iter().zip(want_all) {
            let ids = Tensor::from_slice(p).view([1, -1]);
            let valid = ids.ones_like().to_kind(Kind::Bool);
            let got = tch::no_grad(|| model.forward(&ids, &valid, None)).squeeze_dim(0);
            let want: Vec<Vec<f64>> = serde_json::from_value(want.clone()).expect("rows");
            let want = Tensor::from_slice2(&want).to_kind(Kind::Float);
            let diff = f64::try_from((got - want).abs().max()).expect("scalar");
            assert!(diff < 1e-4, "{name}, prompt {p:?}: max |Δlogit| = {diff}");
        }
    }
}

/// One prompt at a time, as the reference was made: `dynamic` and `longrope` depend
/// on how far a pass reaches, which in a ragged batch is the longest row's length.
#[test]
fn greedy_generation_stops_at_the_configured_eos_like_transformers() {
    let reference = reference();
    for name in VARIANTS {
        let model = load(name);
        let tokenizer = TextTokenizer::load(&common::tiny_variants().join(name)).expect("tok");
        let eos: Vec<i64> =
            serde_json::from_value(reference["models"][name]["eos"].clone()).expect("eos");
        // A set, as transformers' stopping criteria read it (cascade lists the
        // tokenizer's eos first; the order decides nothing).
        let (mut got, mut want_eos) = (tokenizer.stop_ids.clone(), eos.clone());
        got.sort_unstable();
        want_eos.sort_unstable();
        assert_eq!(
            got, want_eos,
            "{name}: stop ids from generation_config.json"
        );
        let want: Vec<Vec<i64>> =
            serde_json::from_value(reference["models"][name]["greedy"].clone()).expect("greedy");
        for (p, want) in prompts(&reference).iter().zip(want) {
            let params = SamplingParams {
                temperature: 0.0,
                max_new_tokens: 12,
                stop_ids: tokenizer.stop_ids.clone(),
                ..Default::default()
            };
            let generation = generate(&model, std::slice::from_ref(p), &params, &|_| String::new());
            assert_eq!(generation.completions[0], want, "{name}, prompt {p:?}");
            let ended = want.last().is_some_and(|t| eos.contains(t));
            assert_eq!(generation.finished[0], ended, "{name}, prompt {p:?}");
        }
    }
}
