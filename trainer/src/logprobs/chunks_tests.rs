//! Chunked passes against the unchunked ones: the same log-probabilities, entropies
//! and parameter gradients (within float tolerance), for the GRPO loss at a tempered
//! nucleus with a KL term, the MOPD loss, shared prompts, and frozen passes.

use tch::{Device, Kind, Tensor};

use super::*;
use crate::grpo::ImportanceCorrection;
use crate::grpo::{policy_loss, PolicyLossOptions};
use crate::logprobs::token_logprobs_at;
use crate::model::ModelConfig;
use crate::mopd::mopd_loss;

use crate::model::config::{TINY_TEST_CONFIG as CONFIG, TINY_TEST_VOCAB as VOCAB};

/// Six rows in three groups of two sharing a prompt; left-padded prompts, responses
/// that end early, and a loss mask with holes.
struct Fixture {
    model: Transformer,
    prompt_ids: Tensor,
    prompt_valid: Tensor,
    ids: Tensor,
    valid: Tensor,
    mask: Tensor,
    advantages: Tensor,
}

const ROWS: i64 = 6;
const PROMPT: i64 = 5;
const RESPONSE: i64 = 23;

impl Fixture {
    fn new() -> Self {
        crate::numerics::pin_for_tests();
        let config = ModelConfig::from_json(CONFIG).expect("config");
        let mut model = Transformer::random(config, Device::Cpu, Kind::Float, 7).expect("model");
        model.set_trainable(true);
        tch::manual_seed(11);
        let prompts = Tensor::randint(VOCAB, [ROWS / 2, PROMPT], (Kind::Int64, Device::Cpu));
        let prompt_ids = prompts.repeat_interleave_self_int(2, 0, None);
        let prompt_valid = Tensor::ones([ROWS, PROMPT], (Kind::Bool, Device::Cpu));
        let _ = prompt_valid.narrow(0, 4, 2).narrow(1, 0, 2).fill_(0); // left padding
        let ids = Tensor::randint(VOCAB, [ROWS, RESPONSE], (Kind::Int64, Device::Cpu));
        let lengths = Tensor::from_slice(&[23i64, 9, 17, 23, 1, 12]).unsqueeze(-1);
        let valid = Tensor::arange(RESPONSE, (Kind::Int64, Device::Cpu))
            .unsqueeze(0)
            .lt_tensor(&lengths);
        let mask =
            valid.logical_and(&Tensor::rand([ROWS, RESPONSE], (Kind::Float, Device::Cpu)).gt(0.2));
        let advantages = Tensor::from_slice(&[1.0f32, -1.0, 0.5, -0.5, 2.0, -2.0]);
        Self {
            model,
            prompt_ids,
            prompt_valid,
            ids,
            valid,
            mask,
            advantages,
        }
    }

    fn batch(&self) -> SequenceBatch<'_> {
        SequenceBatch {
            prompt_ids: &self.prompt_ids,
            prompt_valid: &self.prompt_valid,
            completion_ids: &self.ids,
            completion_valid: &self.valid,
        }
    }

    /// The parameter gradients after `backward` runs (zeroed first).
    fn gradients(&self, backward: impl FnOnce()) -> Vec<Tensor> {
        for p in self.model.parameters().values() {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
        backward();
        self.model
            .parameters()
            .values()
            .map(|p| p.grad().copy())
            .collect()
    }
}

/// A budget of exactly `positions` response positions for `ROWS` rows.
fn positions(positions: usize) -> LogitBudget {
    LogitBudget {
        bytes: positions * ROWS as usize * VOCAB as usize * 4,
    }
}

/// Keeping activations, with logits of `logits`.
fn keep(logits: LogitBudget) -> PassMemory {
    PassMemory {
        logits,
        activations: Activations::Keep,
    }
}

fn whole() -> PassMemory {
    keep(LogitBudget::unlimited())
}

fn assert_close(chunked: &[Tensor], whole: &[Tensor]) {
    assert_eq!(chunked.len(), whole.len());
    for (c, w) in chunked.iter().zip(whole) {
        let scale = f64::try_from(w.abs().max()).unwrap().max(1e-6);
        let diff = f64::try_from((c - w).abs().max()).unwrap();
        assert!(
            diff <= 1e-5 * scale,
            "gradient differs by {diff} (scale {scale})"
        );
        assert!(
            scale > 1e-6,
            "a gradient is zero: the test would prove nothing"
        );
    }
}

/// What a GRPO pass records: the gradients, the entropy sum and the loss.
fn grpo_pass(f: &Fixture, pass: PromptPass, memory: PassMemory) -> (Vec<Tensor>, f64, f64) {
    let dist = SamplingDistribution {
        temperature: 0.7,
        top_p: 0.9,
    };
    // A reference a little away from the policy, so the KL term has a gradient.
    let reference = tch::no_grad(|| {
        token_logprobs_at(&f.model, &f.batch(), dist).0 - 0.3 * f.advantages.unsqueeze(-1)
    });
    let opts = PolicyLossOptions {
        epsilon_low: 0.2,
        epsilon_high: 0.28,
        kl_coef: 0.03,
        num_tokens: f64::try_from(f.mask.sum(Kind::Float)).unwrap(),
    };
    let (mut entropy, mut loss_sum, mut chunks) = (0.0, 0.0, 0);
    let grads = f.gradients(|| {
        backward_by_chunks(&f.model, &f.batch(), pass, dist, memory, |chunk| {
            let mask = chunk.columns(&f.mask);
            entropy += f64::try_from((&chunk.entropy * mask.to_kind(Kind::Float)).sum(Kind::Float))
                .unwrap();
            let reference = chunk.columns(&reference);
            let loss = policy_loss(
                &chunk.logp,
                None,
                Some(&reference),
                &f.advantages,
                &mask,
                &opts,
            );
            loss_sum += f64::try_from(&loss).unwrap();
            chunks += 1;
            loss
        })
    });
    let expected_chunks = match memory.logits == LogitBudget::unlimited() {
        true => 1,
        false => RESPONSE.div_euclid(4) + 1,
    };
    assert_eq!(chunks, expected_chunks, "chunks run");
    (grads, entropy, loss_sum)
}

#[test]
fn grpo_gradients_are_the_same_chunked_and_whole() {
    crate::numerics::pin_for_tests();
    let f = Fixture::new();
    let (whole, entropy, loss) = grpo_pass(&f, PromptPass::PerRow, whole());
    let (chunked, c_entropy, c_loss) = grpo_pass(&f, PromptPass::PerRow, keep(positions(4)));
    assert_close(&chunked, &whole);
    assert!(
        (entropy - c_entropy).abs() < 1e-4 * entropy.abs(),
        "{entropy} vs {c_entropy}"
    );
    assert!((loss - c_loss).abs() < 1e-5, "{loss} vs {c_loss}");
}

#[test]
fn shared_prompt_chunked_gradients_match_the_whole_per_row_pass() {
    crate::numerics::pin_for_tests();
    let f = Fixture::new();
    let (whole, _, _) = grpo_pass(&f, PromptPass::PerRow, whole());
    let (chunked, _, _) = grpo_pass(&f, PromptPass::SharedByGroup(2), keep(positions(4)));
    assert_close(&chunked, &whole);
}

#[test]
fn recomputed_activations_give_the_same_gradients() {
    crate::numerics::pin_for_tests();
    let f = Fixture::new();
    let (whole, _, loss) = grpo_pass(&f, PromptPass::PerRow, whole());
    for logits in [LogitBudget::unlimited(), positions(4)] {
        let memory = PassMemory {
            logits,
            activations: Activations::Recompute,
        };
        // Recomputing runs prompts per row even when asked to share them.
        let (recomputed, _, r_loss) = grpo_pass(&f, PromptPass::SharedByGroup(2), memory);
        assert_close(&recomputed, &whole);
        assert!((loss - r_loss).abs() < 1e-5, "{loss} vs {r_loss}");
    }
}

fn mopd_pass(f: &Fixture, memory: PassMemory) -> Vec<Tensor> {
    let dist = SamplingDistribution {
        temperature: 0.8,
        top_p: 1.0,
    };
    let student = tch::no_grad(|| token_logprobs_at(&f.model, &f.batch(), dist).0);
    // Sampling a little off the student (weights near 1, inside the gate), and a
    // teacher that disagrees.
    let sampling = &student + 0.1 * f.advantages.unsqueeze(-1);
    let teacher = &student - 0.5 * f.advantages.unsqueeze(-1);
    let tokens = f64::try_from(f.mask.sum(Kind::Float)).unwrap();
    f.gradients(|| {
        backward_by_chunks(
            &f.model,
            &f.batch(),
            PromptPass::PerRow,
            dist,
            memory,
            |c| {
                let (s, t, m) = (
                    c.columns(&sampling),
                    c.columns(&teacher),
                    c.columns(&f.mask),
                );
                mopd_loss(
                    &c.logp,
                    &s,
                    &t,
                    &m,
                    ImportanceCorrection::CASCADE_MOPD,
                    tokens,
                )
            },
        )
    })
}

#[test]
fn mopd_gradients_are_the_same_chunked_and_whole() {
    crate::numerics::pin_for_tests();
    let f = Fixture::new();
    assert_close(&mopd_pass(&f, keep(positions(5))), &mopd_pass(&f, whole()));
}

#[test]
fn frozen_passes_join_chunks_into_the_same_logprobs_and_entropy() {
    crate::numerics::pin_for_tests();
    let f = Fixture::new();
    let dist = SamplingDistribution {
        temperature: 0.6,
        top_p: 0.8,
    };
    tch::no_grad(|| {
        let hidden = response_hidden_for(&f.model, &f.batch(), PromptPass::PerRow);
        let whole = logprobs_of_hidden(&f.model, &hidden, &f.ids, dist, LogitBudget::unlimited());
        let chunked = logprobs_of_hidden(&f.model, &hidden, &f.ids, dist, positions(3));
        assert_eq!(chunked.0.size(), [ROWS, RESPONSE]);
        assert!(f64::try_from((&chunked.0 - &whole.0).abs().max()).unwrap() < 1e-5);
        assert!(f64::try_from((&chunked.1 - &whole.1).abs().max()).unwrap() < 1e-5);
    });
}

#[test]
fn the_budget_sets_positions_per_chunk() {
    crate::numerics::pin_for_tests();
    let gib = LogitBudget::megabytes(1024);
    assert_eq!(gib.positions(1, 151_936), 1766);
    assert_eq!(gib.positions(8, 151_936), 220);
    assert_eq!(
        LogitBudget::megabytes(0).positions(8, 151_936),
        1,
        "at least one"
    );
    assert!(LogitBudget::unlimited().positions(8, 151_936) > 1 << 40);
    let covered: Vec<_> = spans(10, 4).collect();
    assert_eq!(covered, [(0, 4), (4, 4), (8, 2)]);
    assert_eq!(spans(0, 4).count(), 0);
}
