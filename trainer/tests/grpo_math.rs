//! GRPO's loss by hand and against finite differences; on-policy ratio 1; clipping.

mod common;

use cascade_trainer::grpo::policy_loss::{policy_loss, ratio, PolicyLossOptions};
use cascade_trainer::logprobs::MicroBatching;
use tch::{Kind, Tensor};

fn opts(num_tokens: f64, kl: f64) -> PolicyLossOptions {
    PolicyLossOptions {
        epsilon_low: 0.2,
        epsilon_high: 0.28,
        kl_coef: kl,
        num_tokens,
    }
}

fn values(t: &Tensor) -> Vec<f64> {
    Vec::try_from(t.to_kind(Kind::Double).flatten(0, -1)).expect("values")
}

#[test]
fn on_policy_loss_and_gradient_by_hand() {
    common::pin();
    // Two responses: 2 tokens with Â = 1, 1 token (+1 padding) with Â = −2; N = 3.
    let logp = Tensor::from_slice(&[-1.0f64, -2.0, -0.5, -9.0])
        .view([2, 2])
        .set_requires_grad(true);
    let adv = Tensor::from_slice(&[1.0f64, -2.0]);
    let mask = Tensor::from_slice(&[true, true, true, false]).view([2, 2]);
    let r = ratio(&logp, None);
    assert_eq!(
        values(&r),
        vec![1.0; 4],
        "strict on-policy ratio is exactly 1"
    );
    let loss = policy_loss(&logp, None, None, &adv, &mask, &opts(3.0, 0.0));
    // −(1 + 1 − 2)/3 = 0; ∂L/∂logp = −Â/N on real tokens, 0 on padding.
    assert!(f64::try_from(&loss).expect("scalar").abs() < 1e-12);
    loss.backward();
    let g = values(&logp.grad());
    let want = [-1.0 / 3.0, -1.0 / 3.0, 2.0 / 3.0, 0.0];
    for (a, b) in g.iter().zip(want) {
        assert!((a - b).abs() < 1e-12, "{g:?}");
    }
}

#[test]
fn clipping_by_hand() {
    common::pin();
    // ratio 1.5 with Â = +1: clipped at 1 + ε_high = 1.28, no gradient.
    // ratio 1.5 with Â = −1: min(−1.5, −1.28) = −1.5, unclipped, gradient −Â·ρ/N.
    let old = Tensor::from_slice(&[0.0f64, 0.0]).view([2, 1]);
    let logp = Tensor::from_slice(&[1.5f64.ln(), 1.5f64.ln()])
        .view([2, 1])
        .set_requires_grad(true);
    let adv = Tensor::from_slice(&[1.0f64, -1.0]);
    let mask = Tensor::from_slice(&[true, true]).view([2, 1]);
    let loss = policy_loss(&logp, Some(&old), None, &adv, &mask, &opts(2.0, 0.0));
    let v = f64::try_from(&loss).expect("scalar");
    assert!((v - (-1.28 + 1.5) / 2.0).abs() < 1e-12, "{v}");
    loss.backward();
    let g = values(&logp.grad());
    assert!(g[0].abs() < 1e-12 && (g[1] - 0.75).abs() < 1e-12, "{g:?}");
}

/// The loss as a function of logits θ `[B, C, V]`, through log-softmax and gather.
/// Without the KL term: its gradient is by design the reverse KL's, not the derivative
/// of the k3 value the loss reports (`kl_gradient_is_the_reverse_kl_gradient` checks it).
fn loss_of(
    theta: &Tensor,
    ids: &Tensor,
    old: &Tensor,
    reference: &Tensor,
    adv: &Tensor,
    mask: &Tensor,
) -> Tensor {
    let logp = theta
        .log_softmax(-1, Kind::Double)
        .gather(-1, &ids.unsqueeze(-1), false)
        .squeeze_dim(-1);
    policy_loss(
        &logp,
        Some(old),
        Some(reference),
        adv,
        mask,
        &opts(5.0, 0.0),
    )
}

#[test]
fn gradient_matches_finite_differences() {
    common::pin();
    tch::manual_seed(7);
    let (b, c, v) = (2, 3, 5);
    let theta =
        (Tensor::randn([b, c, v], (Kind::Double, tch::Device::Cpu)) * 0.5).set_requires_grad(true);
    let ids = Tensor::from_slice(&[0i64, 3, 1, 4, 2, 2]).view([b, c]);
    let mask = Tensor::from_slice(&[true, true, true, true, true, false]).view([b, c]);
    // Old and reference log-probs near the current ones: ratios inside and outside the clip range.
    let current = tch::no_grad(|| {
        theta
            .log_softmax(-1, Kind::Double)
            .gather(-1, &ids.unsqueeze(-1), false)
            .squeeze_dim(-1)
    });
    let old = &current + Tensor::from_slice(&[0.05f64, -0.4, 0.1, 0.5, -0.02, 0.0]).view([b, c]);
    let reference = &current + Tensor::from_slice(&[0.3f64, -0.2, 0.1, 0.0, 0.2, 0.0]).view([b, c]);
    let adv = Tensor::from_slice(&[0.7f64, -1.3]);
    let loss = loss_of(&theta, &ids, &old, &reference, &adv, &mask);
    loss.backward();
    let analytic = values(&theta.grad());
    let base = values(&theta.detach());
    let h = 1e-6;
    for k in 0..base.len() {
        let eval = |delta: f64| {
            let mut p = base.clone();
            p[k] += delta;
            let t = Tensor::from_slice(&p).view([b, c, v]);
            f64::try_from(loss_of(&t, &ids, &old, &reference, &adv, &mask)).expect("scalar")
        };
        let numeric = (eval(h) - eval(-h)) / (2.0 * h);
        assert!(
            (numeric - analytic[k]).abs() < 1e-6,
            "θ[{k}]: numeric {numeric} vs analytic {}",
            analytic[k]
        );
    }
}

/// A real GRPO step on the toy model: the log-probs the loss is built on equal the
/// ones the tokens were sampled with (ratio exactly 1 up to float rounding), and the
/// step records what it trained on.
#[test]
fn a_grpo_step_is_strictly_on_policy() {
    common::pin();
    use cascade_trainer::grpo::step::grpo_step;
    use cascade_trainer::optim::{AdamW, AdamWConfig};
    use cascade_trainer::toy::bench::ToyTask;

    let task = ToyTask::new().expect("toy task");
    let model = task.new_model(5).expect("model");
    let mut optimizer = AdamW::new(model.parameters(), AdamWConfig::default());
    let prompts: Vec<Vec<i64>> = ["3+4=", "9+9="]
        .iter()
        .map(|p| task.tokenizer.encode(p).expect("encode"))
        .collect();
    // Alternate rewards so every group has signal and the step really updates.
    let score = |i: usize, _: &[i64]| (i % 2) as f64;
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let stats = grpo_step(
        &model,
        None,
        &mut optimizer,
        1e-3,
        &prompts,
        &score,
        &decode,
        &task.grpo,
    );
    assert!(
        stats.logprob_drift_max < 1e-4,
        "sampling and training log-probs differ by {}",
        stats.logprob_drift_max
    );
    assert!(stats.grad_norm > 0.0);
    assert_eq!(stats.rollout.prompts, prompts);
    assert_eq!(stats.rollout.completions.len(), 2 * task.grpo.group_size);
    assert_eq!(stats.rollout.rewards.len(), 2 * task.grpo.group_size);
}

/// Responses of one token: nothing after the prompt is run through the model, and
/// the grouped and full passes still agree.
#[test]
fn one_token_responses_need_no_response_pass() {
    common::pin();
    use cascade_trainer::logprobs::{token_logprobs, token_logprobs_grouped, SequenceBatch};
    use cascade_trainer::toy::bench::ToyTask;

    let task = ToyTask::new().expect("toy task");
    let model = task.new_model(6).expect("model");
    let prompt = task.tokenizer.encode("1+2=").expect("encode");
    let ids = Tensor::from_slice(&prompt).view([1, -1]).repeat([2, 1]);
    let valid = ids.ones_like().to_kind(Kind::Bool);
    let completion = Tensor::from_slice(&[5i64, 6]).view([2, 1]);
    let completion_valid = completion.ones_like().to_kind(Kind::Bool);
    let batch = SequenceBatch {
        prompt_ids: &ids,
        prompt_valid: &valid,
        completion_ids: &completion,
        completion_valid: &completion_valid,
    };
    let (full, _) = tch::no_grad(|| token_logprobs(&model, &batch));
    let (grouped, _) = tch::no_grad(|| token_logprobs_grouped(&model, &batch, 2));
    assert_eq!(full.size(), vec![2, 1]);
    let diff = f64::try_from((full - grouped).abs().max()).expect("scalar");
    assert!(diff < 1e-5, "{diff}");
}

/// An extreme reference (|δ| far past exp's f32 range, on a real and on a masked
/// token) keeps the k3 KL term, the loss and its gradient finite: δ is clamped to
/// ±20 before `exp`, and the value to ±10, as NeMo-RL does.
#[test]
fn kl_against_an_extreme_reference_stays_finite() {
    common::pin();
    use cascade_trainer::grpo::policy_loss::KL_VALUE_CLAMP;

    let logp = Tensor::from_slice(&[-1.0f32, -2.0, -0.5, -3.0])
        .view([2, 2])
        .set_requires_grad(true);
    // δ = ref − logp: +199 and −1e4 on real tokens, +1e4 on the masked one.
    let reference = Tensor::from_slice(&[198.0f32, -1e4, -0.5, 1e4]).view([2, 2]);
    let adv = Tensor::from_slice(&[0.0f32, 0.0]);
    let mask = Tensor::from_slice(&[true, true, true, false]).view([2, 2]);
    let loss = policy_loss(&logp, None, Some(&reference), &adv, &mask, &opts(3.0, 0.1));
    let v = f64::try_from(&loss).expect("scalar");
    assert!(v.is_finite(), "loss {v}");
    // Both extreme tokens' k3 (e^20 − 21 and e^−20 + 19) clamp to 10; the third's δ is 0.
    let c = KL_VALUE_CLAMP;
    let want = 0.1 * (c + c) / 3.0;
    assert!((v - want).abs() / want < 1e-5, "{v} vs {want}");
    loss.backward();
    let g = values(&logp.grad());
    assert!(g.iter().all(|x| x.is_finite()), "{g:?}");
    // Clamped positions pass only the reverse-KL score term KL·∇log π (β·10/N each);
    // the δ = 0 token and the masked one pass none.
    let score = 0.1 * c / 3.0;
    for (got, want) in g.iter().zip([score, score, 0.0, 0.0]) {
        assert!((got - want).abs() < 1e-6, "{g:?}");
    }
}

/// GRPO trains on the distribution it sampled from: at T = 0.7 and T = 2.0 with top-p
/// 0.9, in the grouped and the plain training pass, the on-policy importance ratio
/// `π_train / π_sampling` is 1 to float tolerance and `logprob_drift_max` stays at its
/// T = 1 level, while the untempered model read would be far off.
#[test]
fn grpo_trains_on_the_tempered_nucleus_it_sampled_from() {
    common::pin();
    use cascade_trainer::grpo::step::grpo_step;
    use cascade_trainer::logprobs::{
        token_logprobs, token_logprobs_at, token_logprobs_grouped_at, SamplingDistribution,
        SequenceBatch,
    };
    use cascade_trainer::model::Transformer;
    use cascade_trainer::optim::{AdamW, AdamWConfig};
    use cascade_trainer::sampling::generate_groups;
    use cascade_trainer::toy::bench::ToyTask;

    let task = ToyTask::new().expect("toy task");
    // The 100-step warmed toy model: peaked enough that T and top-p matter.
    let warm = cascade_trainer::toy::assets_dir().with_file_name("toy-qwen2-warm");
    let load = || {
        let mut m = Transformer::load(&warm, tch::Device::Cpu, Kind::Float).expect("model");
        m.set_trainable(true);
        m
    };
    let prompts: Vec<Vec<i64>> = ["3+4=", "9+9=", "0+5=", "7+8="]
        .iter()
        .map(|p| task.tokenizer.encode(p).expect("encode"))
        .collect();
    let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
    let score = |i: usize, _: &[i64]| (i % 2) as f64;
    let drift_of = |temperature: f64, top_p: f64, micro_batch: usize| {
        let model = load();
        let mut cfg = task.grpo.clone();
        cfg.sampling.temperature = temperature;
        cfg.sampling.top_p = top_p;
        cfg.sampling.seed = 11;
        cfg.micro_batch = MicroBatching::Rows(micro_batch);
        let mut optimizer = AdamW::new(model.parameters(), AdamWConfig::default());
        let stats = grpo_step(
            &model,
            None,
            &mut optimizer,
            1e-3,
            &prompts,
            &score,
            &decode,
            &cfg,
        );
        assert!(stats.grad_norm > 0.0 && stats.grad_norm.is_finite());
        stats.logprob_drift_max
    };
    // micro_batch 32: whole groups (the grouped pass); 4: half groups (the plain one).
    let baseline = drift_of(1.0, 1.0, 32).max(drift_of(1.0, 1.0, 4));
    assert!(baseline < 1e-4, "T = 1 drift {baseline}");
    let tolerance = (10.0 * baseline).max(1e-5);
    for (temperature, top_p) in [(0.7, 0.9), (2.0, 0.9), (0.7, 1.0), (1.0, 0.8)] {
        for micro_batch in [32, 4] {
            let drift = drift_of(temperature, top_p, micro_batch);
            assert!(
                drift <= tolerance,
                "T {temperature}, top-p {top_p}, micro-batch {micro_batch}: drift {drift} (T = 1: {baseline})"
            );
        }
    }
    // The ratio itself, from the sampler's record, at T = 0.7 and 2.0 with top-p 0.9.
    let model = load();
    for temperature in [0.7, 2.0] {
        let mut params = task.grpo.sampling.clone();
        params.temperature = temperature;
        params.top_p = 0.9;
        params.seed = 5;
        let g = generate_groups(&model, &prompts, 8, &params, &decode);
        let batch = SequenceBatch {
            prompt_ids: &g.prompts.ids,
            prompt_valid: &g.prompts.valid,
            completion_ids: &g.completion_ids,
            completion_valid: &g.completion_valid,
        };
        let dist = SamplingDistribution::of(&params);
        let valid = g.completion_valid.to_kind(Kind::Float);
        let off_by = |logp: Tensor| {
            let ratio = (logp - &g.sampling_logprobs).exp();
            f64::try_from(((ratio - 1.0).abs() * &valid).max()).expect("scalar")
        };
        let (grouped, plain) = tch::no_grad(|| {
            (
                token_logprobs_grouped_at(&model, &batch, 8, dist).0,
                token_logprobs_at(&model, &batch, dist).0,
            )
        });
        for (name, logp) in [("grouped", grouped), ("plain", plain)] {
            let off = off_by(logp);
            assert!(off < 1e-4, "T {temperature}: {name} ratio off 1 by {off}");
        }
        let untempered = off_by(tch::no_grad(|| token_logprobs(&model, &batch).0));
        assert!(
            untempered > 0.05,
            "T {temperature}: the untempered read should be off-policy, off by {untempered}"
        );
    }
}
