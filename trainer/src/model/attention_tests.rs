//! The fused-kernel attention paths against the plain masked one: the causal pass
//! over right-aligned rows, and keys/values repeated to every head under a mask, give
//! the same logits at every real position and the same gradients.
//!
//! Each test builds one model and switches its paths between passes: libtorch's
//! random stream is global, and two models drawn while other tests draw too would
//! not hold the same weights.

use tch::{Device, Kind, Tensor};

use super::config::{TINY_TEST_CONFIG, TINY_TEST_VOCAB};
use super::*;

const MASKED: KernelPaths = KernelPaths::MASKED;
const CAUSAL: KernelPaths = KernelPaths {
    causal_when_aligned: true,
    ..KernelPaths::MASKED
};

fn model() -> Transformer {
    let config = ModelConfig::from_json(TINY_TEST_CONFIG).expect("config");
    let mut model = Transformer::random(config, Device::Cpu, Kind::Float, 5).expect("model");
    model.set_trainable(true);
    model
}

/// Every parameter's gradient, read and then cleared for the next pass.
fn take_grads(model: &Transformer) -> Vec<Tensor> {
    model
        .parameters()
        .values()
        .map(|p| {
            let grad = p.grad().copy();
            let _ = p.grad().zero_();
            grad
        })
        .collect()
}

/// Rows as training sees them: a left-padded prompt, then a response that ends
/// (right padding); one row fills every column, one is all prompt.
fn rows() -> (Tensor, Tensor) {
    let (prompt, response) = (7i64, 9i64);
    let spans = [(7, 9), (3, 4), (5, 0), (1, 6)];
    let t = prompt + response;
    let mut ids = Vec::new();
    let mut valid = Vec::new();
    for (r, &(p, c)) in spans.iter().enumerate() {
        for col in 0..t {
            let real = (col >= prompt - p && col < prompt) || (col >= prompt && col < prompt + c);
            ids.push(((r as i64 * 13 + col * 7) % TINY_TEST_VOCAB) * i64::from(real));
            valid.push(real);
        }
    }
    let rows = spans.len() as i64;
    (
        Tensor::from_slice(&ids).view([rows, t]),
        Tensor::from_slice(&valid).view([rows, t]),
    )
}

/// The logits at real positions and every parameter's gradient of a fixed weighting
/// of them.
fn pass(model: &Transformer, ids: &Tensor, valid: &Tensor) -> (Tensor, Vec<Tensor>) {
    let logits = model.forward(ids, valid, None);
    let real = valid.unsqueeze(-1).to_kind(Kind::Float);
    let weights = Tensor::arange(logits.size()[2], (Kind::Float, Device::Cpu)).sin();
    (&logits * &real * weights).sum(Kind::Float).backward();
    (logits * real, take_grads(model))
}

fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    f64::try_from((a - b).abs().max()).unwrap()
}

/// Equal to float32 rounding, relative to the larger entries (gradients reach ~100).
fn assert_close(a: &Tensor, b: &Tensor, what: &str) {
    let scale = f64::try_from(b.abs().max()).unwrap().max(1.0);
    assert!(
        max_diff(a, b) < 1e-6 * scale,
        "{what}: {} at scale {scale}",
        max_diff(a, b)
    );
}

#[test]
fn the_causal_pass_over_aligned_rows_equals_the_masked_pass() {
    crate::numerics::pin_for_tests();
    let (ids, valid) = rows();
    let mut model = model();
    model.set_kernel_paths(CAUSAL);
    assert!(
        model.causal_alignment(&valid).is_some(),
        "rows are single runs"
    );
    let (logits_c, grads_c) = pass(&model, &ids, &valid);
    model.set_kernel_paths(MASKED);
    let (logits_m, grads_m) = pass(&model, &ids, &valid);
    assert_close(&logits_c, &logits_m, "logits");
    for (c, m) in grads_c.iter().zip(&grads_m) {
        assert_close(c, m, "gradients");
    }
}

#[test]
fn the_recomputed_trunk_takes_the_causal_path_alike() {
    crate::numerics::pin_for_tests();
    let (ids, valid) = rows();
    let mut model = model();
    let mut recomputed = |paths| {
        model.set_kernel_paths(paths);
        let trunk = model.forward_hidden_recomputed(&ids, &valid);
        let real = valid.unsqueeze(-1).to_kind(Kind::Float);
        let hidden = &trunk.hidden * &real;
        (&hidden * hidden.ones_like().cumsum(2, Kind::Float))
            .sum(Kind::Float)
            .backward();
        trunk.backward_layers();
        (hidden.detach(), take_grads(&model))
    };
    let (hidden_c, grads_c) = recomputed(CAUSAL);
    let (hidden_m, grads_m) = recomputed(MASKED);
    assert_close(&hidden_c, &hidden_m, "hidden states");
    for (c, m) in grads_c.iter().zip(&grads_m) {
        assert_close(c, m, "gradients");
    }
}

#[test]
fn rows_with_a_hole_keep_the_mask() {
    let valid = Tensor::from_slice(&[true, false, true, true, true, true]).view([2, 3]);
    assert!(Alignment::of_single_runs(&valid).is_none());
    let runs = Tensor::from_slice(&[false, true, true, false, false, false]).view([2, 3]);
    let alignment = Alignment::of_single_runs(&runs).expect("single runs");
    let x = Tensor::arange(6, (Kind::Float, Device::Cpu)).view([2, 3, 1]);
    let aligned = alignment.to_aligned(&x);
    assert_eq!(
        Vec::<f32>::try_from(aligned.view([-1])).unwrap(),
        [1., 2., 2., 3., 4., 5.]
    );
    let back = alignment.to_original(&aligned);
    assert_eq!(
        Vec::<f32>::try_from(back.view([-1])).unwrap(),
        [1., 1., 2., 3., 4., 5.]
    );
}

#[test]
fn repeated_key_value_heads_decode_alike() {
    crate::numerics::pin_for_tests();
    let (ids, valid) = rows();
    let mut model = model();
    let mut decode = |paths| {
        model.set_kernel_paths(paths);
        tch::no_grad(|| {
            let mut cache = model.new_cache();
            let (prompt, rest) = (ids.narrow(1, 0, 7), ids.narrow(1, 7, 9));
            let mut out = vec![model.forward(&prompt, &valid.narrow(1, 0, 7), Some(&mut cache))];
            for col in 0..9 {
                let step = rest.narrow(1, col, 1);
                let step_valid = valid.narrow(1, 7 + col, 1);
                out.push(model.forward(&step, &step_valid, Some(&mut cache)));
            }
            Tensor::cat(&out, 1) * valid.unsqueeze(-1).to_kind(Kind::Float)
        })
    };
    let expanded = decode(KernelPaths {
        expand_masked_kv: true,
        ..MASKED
    });
    let grouped = decode(MASKED);
    assert_close(&expanded, &grouped, "decoded logits");
}

#[test]
fn fused_projections_decode_alike() {
    crate::numerics::pin_for_tests();
    let (ids, valid) = rows();
    let mut model = model();
    let mut decode = |paths: KernelPaths| {
        model.set_kernel_paths(paths);
        let fused = model.fuse_for_decoding();
        assert_eq!(fused.is_some(), paths.fused_decoding_projections);
        assert_eq!(
            model.layers[0].fused.lock().unwrap().is_some(),
            paths.fused_decoding_projections
        );
        let logits = tch::no_grad(|| model.forward(&ids, &valid, None));
        drop(fused);
        assert!(
            model.layers[0].fused.lock().unwrap().is_none(),
            "dropped with the guard"
        );
        logits * valid.unsqueeze(-1).to_kind(Kind::Float)
    };
    let fused = decode(KernelPaths {
        fused_decoding_projections: true,
        ..MASKED
    });
    assert_close(&fused, &decode(MASKED), "logits");
}
