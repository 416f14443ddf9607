//! Chunked prefill against one pass: the same next-token logits and the same cache
//! (the next decoding step agrees), with left-padded prompts of different lengths.

use tch::{Device, Kind, Tensor};

use super::*;
use crate::model::config::{TINY_TEST_CONFIG, TINY_TEST_VOCAB};
use crate::model::ModelConfig;

fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    f64::try_from((a - b).abs().max()).unwrap()
}

#[test]
fn chunked_prefill_gives_the_same_logits_and_cache_as_one_pass() {
    crate::numerics::pin_for_tests();
    let config = ModelConfig::from_json(TINY_TEST_CONFIG).expect("config");
    let model = Transformer::random(config, Device::Cpu, Kind::Float, 3).expect("model");
    let prompts: Vec<Vec<i64>> = [41usize, 17, 30]
        .iter()
        .enumerate()
        .map(|(r, &len)| {
            (0..len)
                .map(|t| ((r * 31 + t * 7) as i64) % TINY_TEST_VOCAB)
                .collect()
        })
        .collect();
    let batch = PromptBatch::new(&prompts, 0, Device::Cpu);
    let next = Tensor::from_slice(&[5i64, 6, 7]).view([3, 1]);
    let next_valid = next.ones_like().to_kind(Kind::Bool);
    let run = |chunk: i64| {
        tch::no_grad(|| {
            let mut cache = model.new_cache();
            let last = prefill_last_hidden(&model, &batch.ids, &batch.valid, &mut cache, chunk);
            let step = model.forward_hidden(&next, &next_valid, Some(&mut cache));
            (
                model.logits(&last),
                model.logits(&step.select(1, -1)),
                cache.len(),
            )
        })
    };
    let (whole, whole_next, whole_len) = run(PREFILL_CHUNK);
    for chunk in [1, 6, 40] {
        let (logits, next_logits, len) = run(chunk);
        assert_eq!(len, whole_len, "chunk {chunk}: cache length");
        assert!(
            max_diff(&logits, &whole) < 1e-5,
            "chunk {chunk}: prefill logits"
        );
        assert!(
            max_diff(&next_logits, &whole_next) < 1e-5,
            "chunk {chunk}: next step"
        );
    }
}
