//! Sharing a prompt's forward pass across its group (sampling and training) gives the
//! same log-probabilities and gradients as running every row in full.

mod common;

use cascade_trainer::logprobs::{token_logprobs, token_logprobs_grouped, SequenceBatch};
use cascade_trainer::sampling::{generate, generate_groups, SamplingParams};
use cascade_trainer::toy::bench::ToyTask;
use tch::Kind;

#[test]
fn grouped_logprobs_and_gradients_equal_the_full_pass() {
    common::pin();
    let task = ToyTask::new().expect("toy");
    let model = task.new_model(3).expect("model");
    // Ragged prompts, groups of 3.
    let prompts: Vec<Vec<i64>> = ["3+4=", "12+7=", "0+0="]
        .iter()
        .map(|p| task.tokenizer.encode(p).expect("encode"))
        .collect();
    let params = SamplingParams {
        max_new_tokens: 5,
        seed: 11,
        ..task.grpo.sampling.clone()
    };
    let g = generate_groups(&model, &prompts, 3, &params, &|_| String::new());
    assert_eq!(g.completions.len(), 9);
    let batch = SequenceBatch {
        prompt_ids: &g.prompts.ids,
        prompt_valid: &g.prompts.valid,
        completion_ids: &g.completion_ids,
        completion_valid: &g.completion_valid,
    };
    let mask = g.completion_valid.to_kind(Kind::Float);
    let grads = |grouped: bool| {
        for p in model.parameters().values() {
            let mut gr = p.grad();
            if gr.defined() {
                let _ = gr.zero_();
            }
        }
        let (lp, _) = if grouped {
            token_logprobs_grouped(&model, &batch, 3)
        } else {
            token_logprobs(&model, &batch)
        };
        (&lp * &mask).sum(Kind::Float).backward();
        let g: Vec<f32> = Vec::try_from(
            model.parameters()["model.layers.0.self_attn.k_proj.weight"]
                .grad()
                .flatten(0, -1),
        )
        .expect("grad");
        ((lp * &mask).detach(), g)
    };
    let (full, g_full) = grads(false);
    let (shared, g_shared) = grads(true);
    let diff = f64::try_from((full - shared).abs().max()).expect("scalar");
    assert!(diff < 1e-5, "log-probs differ by {diff}");
    let worst = g_full
        .iter()
        .zip(&g_shared)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "gradients differ by {worst}");
    // Sampling logprobs of the shared-prefill generation equal a full pass's log-probs.
    let sampled = (&g.sampling_logprobs * &mask).detach();
    let diff = f64::try_from(
        (sampled - (token_logprobs(&model, &batch).0 * &mask))
            .abs()
            .max(),
    )
    .expect("scalar");
    assert!(diff < 1e-5, "sampling log-probs differ by {diff}");
    let _ = generate;
}
