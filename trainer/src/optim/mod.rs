//! AdamW with decoupled weight decay, learning-rate schedules (linear warm-up, then
//! constant, linear or cosine decay), and global-norm gradient clipping. Moment
//! buffers are allocated once and updated in place on the parameters' device, by
//! libtorch's fused kernels ([`foreach`]).

pub mod foreach;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tch::{Kind, Tensor};

/// The learning-rate shape after warm-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decay {
    #[default]
    Constant,
    Linear,
    Cosine,
}

/// Learning rate per step (0-based).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    pub lr: f64,
    /// Warm-up starts here (Cascade's MOPD: 2e-7 → 2e-6 over 30 steps).
    pub warmup_start_lr: f64,
    pub warmup_steps: usize,
    pub decay: Decay,
    /// The rate reached at `total_steps` for linear and cosine decay.
    pub min_lr: f64,
    pub total_steps: usize,
}

impl Schedule {
    pub fn constant(lr: f64) -> Self {
        Self {
            lr,
            warmup_start_lr: 0.0,
            warmup_steps: 0,
            decay: Decay::Constant,
            min_lr: 0.0,
            total_steps: 1,
        }
    }

    pub fn at(&self, step: usize) -> f64 {
        if step < self.warmup_steps {
            let f = step as f64 / self.warmup_steps as f64;
            return self.warmup_start_lr + (self.lr - self.warmup_start_lr) * f;
        }
        let span = self.total_steps.saturating_sub(self.warmup_steps).max(1) as f64;
        let progress = ((step - self.warmup_steps) as f64 / span).min(1.0);
        match self.decay {
            Decay::Constant => self.lr,
            Decay::Linear => self.lr + (self.min_lr - self.lr) * progress,
            Decay::Cosine => {
                let c = 0.5 * (1.0 + (std::f64::consts::PI * progress).cos());
                self.min_lr + (self.lr - self.min_lr) * c
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamWConfig {
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    /// Whether `weight_decay` also shrinks norm weights and biases. Off by default,
    /// as transformers' trainers (and TRL's, NeMo-RL's) group them without decay:
    /// pulling a norm's gain towards 0 is not a regulariser, it rescales the layer.
    pub decay_norms_and_biases: bool,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        Self {
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.0,
            decay_norms_and_biases: false,
        }
    }
}

/// How [`AdamW::step`] updates the parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateKernel {
    /// libtorch's fused multi-tensor AdamW: one call per weight-decay group, whatever
    /// the number of tensors. What CUDA uses: there a per-tensor loop's ~15 launches
    /// per parameter, not the arithmetic, set the optimizer's time.
    Fused,
    /// One small op at a time per parameter. What the CPU uses: there an op costs no
    /// launch, and this keeps CPU training bit for bit as it has been (the two
    /// differ only in float rounding; `fused_adamw_matches_the_per_tensor_formula`).
    PerTensor,
}

impl UpdateKernel {
    pub fn for_device(device: tch::Device) -> Self {
        if device.is_cuda() {
            Self::Fused
        } else {
            Self::PerTensor
        }
    }
}

/// AdamW over a fixed set of parameters (shallow handles onto the model's tensors).
/// Clipping and zeroing run as one multi-tensor call each ([`foreach`]); the update
/// as [`UpdateKernel`] says.
pub struct AdamW {
    config: AdamWConfig,
    kernel: UpdateKernel,
    params: Vec<(String, Tensor)>,
    /// Per parameter, whether weight decay applies to it.
    decays: Vec<bool>,
    exp_avg: Vec<Tensor>,
    exp_avg_sq: Vec<Tensor>,
    /// The step count as the fused kernel reads it: a float scalar on the parameters'
    /// device, shared by every parameter (all of them step together).
    step_tensor: Option<Tensor>,
    step: i64,
}

impl AdamW {
    pub fn new(params: &BTreeMap<String, Tensor>, config: AdamWConfig) -> Self {
        let params: Vec<(String, Tensor)> = params
            .iter()
            .map(|(n, t)| (n.clone(), t.shallow_clone()))
            .collect();
        // The fused kernel wants moments in the parameters' dtype (float32 masters).
        let zeros = |t: &Tensor| Tensor::zeros_like(t);
        let decays = params
            .iter()
            .map(|(name, _)| config.decay_norms_and_biases || !is_norm_or_bias(name))
            .collect();
        let step_tensor = params
            .first()
            .map(|(_, t)| Tensor::zeros([], (Kind::Float, t.device())));
        let kernel = UpdateKernel::for_device(
            step_tensor
                .as_ref()
                .map_or(tch::Device::Cpu, Tensor::device),
        );
        Self {
            kernel,
            decays,
            exp_avg: params.iter().map(|(_, t)| zeros(t)).collect(),
            exp_avg_sq: params.iter().map(|(_, t)| zeros(t)).collect(),
            params,
            config,
            step_tensor,
            step: 0,
        }
    }

    /// The gradients that exist (a parameter no loss reached has none).
    fn defined_grads(&self) -> Vec<Tensor> {
        self.params
            .iter()
            .map(|(_, p)| p.grad())
            .filter(Tensor::defined)
            .collect()
    }

    /// Clears every parameter's gradient.
    pub fn zero_grad(&mut self) {
        foreach::zero_(&self.defined_grads());
    }

    /// Global L2 norm of all gradients; scales them down to `max_norm` when above it
    /// (`max_norm <= 0` disables clipping). Returns the norm before clipping.
    pub fn clip_grad_norm(&mut self, max_norm: f64) -> f64 {
        tch::no_grad(|| {
            let grads = self.defined_grads();
            let Some(total) = foreach::total_norm(&grads) else {
                return 0.0;
            };
            // The step's one host read: the norm is a logged metric anyway.
            let norm = f64::try_from(&total).unwrap_or(f64::NAN);
            if max_norm > 0.0 && norm > max_norm {
                foreach::mul_(&grads, max_norm / (norm + 1e-6));
            }
            norm
        })
    }

    /// Chooses the update kernel (the default follows the device).
    pub fn with_kernel(mut self, kernel: UpdateKernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// One AdamW update at learning rate `lr`.
    pub fn step(&mut self, lr: f64) {
        self.step += 1;
        match self.kernel {
            UpdateKernel::Fused => self.fused_step(lr),
            UpdateKernel::PerTensor => self.per_tensor_step(lr),
        }
    }

    /// `m ← β₁m + (1−β₁)g`, `v ← β₂v + (1−β₂)g²`,
    /// `p ← p(1 − lr·λ) − lr/(1−β₁ᵗ) · m / (√v/√(1−β₂ᵗ) + ε)`, tensor by tensor.
    fn per_tensor_step(&mut self, lr: f64) {
        let c = self.config;
        let bias1 = 1.0 - c.beta1.powi(self.step as i32);
        let bias2 = 1.0 - c.beta2.powi(self.step as i32);
        tch::no_grad(|| {
            for (i, (_, p)) in self.params.iter_mut().enumerate() {
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                let g = g.to_kind(Kind::Float);
                let m = &mut self.exp_avg[i];
                let v = &mut self.exp_avg_sq[i];
                let _ = m.g_mul_scalar_(c.beta1).g_add_(&(&g * (1.0 - c.beta1)));
                let _ = v
                    .g_mul_scalar_(c.beta2)
                    .g_add_(&(g.square() * (1.0 - c.beta2)));
                if c.weight_decay > 0.0 && self.decays[i] {
                    let _ = p.g_mul_scalar_(1.0 - lr * c.weight_decay);
                }
                let denom = (v.sqrt() / bias2.sqrt()) + c.eps;
                let update = (&*m / &denom) * (lr / bias1);
                let _ = p.g_sub_(&update.to_kind(p.kind()));
            }
        });
    }

    /// The same update as `torch.optim.AdamW(fused=True)` makes it.
    fn fused_step(&mut self, lr: f64) {
        let Some(step_tensor) = &mut self.step_tensor else {
            return;
        };
        let c = self.config;
        tch::no_grad(|| {
            let _ = step_tensor.g_add_scalar_(1.0);
            for decayed in [true, false] {
                let weight_decay = if decayed { c.weight_decay } else { 0.0 };
                let mut lists: [Vec<Tensor>; 5] = Default::default();
                for (i, (_, p)) in self.params.iter().enumerate() {
                    let g = p.grad();
                    if self.decays[i] != decayed || !g.defined() {
                        continue;
                    }
                    lists[0].push(p.shallow_clone());
                    lists[1].push(g);
                    lists[2].push(self.exp_avg[i].shallow_clone());
                    lists[3].push(self.exp_avg_sq[i].shallow_clone());
                    lists[4].push(step_tensor.shallow_clone());
                }
                let [params, grads, exp_avgs, exp_avg_sqs, steps] = &lists;
                let hp = foreach::AdamWStep {
                    lr,
                    beta1: c.beta1,
                    beta2: c.beta2,
                    weight_decay,
                    eps: c.eps,
                };
                foreach::fused_adamw(
                    &foreach::AdamWLists {
                        params,
                        grads,
                        exp_avgs,
                        exp_avg_sqs,
                        steps,
                    },
                    hp,
                );
            }
        });
    }

    /// The moment buffers and step count, for checkpointing the optimizer.
    pub fn step_count(&self) -> i64 {
        self.step
    }
}

/// A norm's gain or a bias, by checkpoint name (`…layernorm.weight`,
/// `…q_norm.weight`, `model.norm.weight`, `…proj.bias`).
fn is_norm_or_bias(name: &str) -> bool {
    name.ends_with(".bias") || name.ends_with("norm.weight")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decay shrinks matrices only, unless norms and biases are asked for too.
    #[test]
    fn weight_decay_skips_norms_and_biases_by_default() {
        let names = [
            "model.layers.0.mlp.up_proj.weight",
            "model.layers.0.input_layernorm.weight",
            "model.layers.0.self_attn.q_proj.bias",
            "model.layers.0.self_attn.k_norm.weight",
            "model.norm.weight",
            "model.embed_tokens.weight",
        ];
        let run = |decay_norms_and_biases: bool| -> Vec<f32> {
            let params: BTreeMap<String, Tensor> = names
                .iter()
                .map(|n| {
                    (
                        n.to_string(),
                        Tensor::ones([1], (Kind::Float, tch::Device::Cpu)).set_requires_grad(true),
                    )
                })
                .collect();
            let config = AdamWConfig {
                weight_decay: 0.5,
                decay_norms_and_biases,
                ..Default::default()
            };
            let mut opt = AdamW::new(&params, config);
            // A zero gradient: only decay moves a parameter.
            let loss = params.values().map(|p| p * 0.0).fold(
                Tensor::zeros([1], (Kind::Float, tch::Device::Cpu)),
                |a, b| a + b,
            );
            loss.sum(Kind::Float).backward();
            opt.step(0.1);
            names
                .iter()
                .map(|n| f32::try_from(&params[*n].detach()).expect("scalar"))
                .collect()
        };
        let close = |got: Vec<f32>, want: &[f32]| {
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
                "{got:?}"
            );
        };
        close(run(false), &[0.95, 1.0, 1.0, 1.0, 1.0, 0.95]);
        close(run(true), &[0.95; 6]);
    }

    /// Five steps of the fused kernel (with both decay groups and clipping) land where
    /// the per-tensor update does, to float32 rounding.
    #[test]
    fn fused_adamw_matches_the_per_tensor_formula() {
        crate::numerics::pin_for_tests();
        let names = ["a.weight", "a.bias", "b_norm.weight", "c.weight"];
        let shapes: [&[i64]; 4] = [&[7, 5], &[7], &[5], &[3, 4, 2]];
        tch::manual_seed(3);
        let initial: Vec<Tensor> = shapes
            .iter()
            .map(|s| Tensor::randn(*s, (Kind::Float, tch::Device::Cpu)))
            .collect();
        let copy = || -> BTreeMap<String, Tensor> {
            names
                .iter()
                .zip(&initial)
                .map(|(n, t)| (n.to_string(), t.copy().set_requires_grad(true)))
                .collect()
        };
        let (fused, reference) = (copy(), copy());
        let config = AdamWConfig {
            weight_decay: 0.1,
            ..Default::default()
        };
        let mut opts = [
            AdamW::new(&fused, config).with_kernel(UpdateKernel::Fused),
            AdamW::new(&reference, config).with_kernel(UpdateKernel::PerTensor),
        ];
        for step in 0..5 {
            let mut norms = Vec::new();
            for (params, opt) in [&fused, &reference].into_iter().zip(&mut opts) {
                opt.zero_grad();
                let loss = names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| {
                        (params[*n].sin() * (i as f64 + step as f64 * 0.3)).sum(Kind::Float)
                    })
                    .fold(
                        Tensor::zeros([], (Kind::Float, tch::Device::Cpu)),
                        |a, b| a + b,
                    );
                loss.backward();
                norms.push(opt.clip_grad_norm(4.0));
                opt.step(0.05);
            }
            assert!((norms[0] - norms[1]).abs() < 1e-5 * norms[1], "{norms:?}");
        }
        for n in names {
            let diff = f64::try_from((&fused[n] - &reference[n]).abs().max()).unwrap();
            assert!(
                diff < 1e-5,
                "{n}: fused and per-tensor AdamW differ by {diff}"
            );
            let moved = f64::try_from(
                (&fused[n] - &initial[names.iter().position(|x| *x == n).unwrap()])
                    .abs()
                    .max(),
            )
            .unwrap();
            assert!(moved > 0.01, "{n} did not move");
        }
        assert_eq!(opts[0].step_count(), 5);
    }

    #[test]
    fn schedules() {
        crate::numerics::pin_for_tests();
        let s = Schedule {
            lr: 2e-6,
            warmup_start_lr: 2e-7,
            warmup_steps: 30,
            decay: Decay::Constant,
            min_lr: 0.0,
            total_steps: 50,
        };
        assert!((s.at(0) - 2e-7).abs() < 1e-15);
        assert!((s.at(15) - 1.1e-6).abs() < 1e-15);
        assert_eq!(s.at(30), 2e-6);
        assert_eq!(s.at(49), 2e-6);
        let cos = Schedule {
            decay: Decay::Cosine,
            warmup_steps: 0,
            total_steps: 10,
            ..s
        };
        assert_eq!(cos.at(0), 2e-6);
        assert!(cos.at(10).abs() < 1e-18);
        assert!((cos.at(5) - 1e-6).abs() < 1e-15);
        let lin = Schedule {
            decay: Decay::Linear,
            ..cos
        };
        assert!((lin.at(5) - 1e-6).abs() < 1e-15);
    }

    #[test]
    fn adamw_first_step_moves_by_lr_against_the_gradient() {
        crate::numerics::pin_for_tests();
        let mut params = BTreeMap::new();
        params.insert(
            "w".to_owned(),
            Tensor::from_slice(&[1.0f32, -2.0]).set_requires_grad(true),
        );
        let mut opt = AdamW::new(&params, AdamWConfig::default());
        let loss = (&params["w"] * Tensor::from_slice(&[3.0f32, -0.5])).sum(Kind::Float);
        loss.backward();
        assert!((opt.clip_grad_norm(0.0) - (9.25f64).sqrt()).abs() < 1e-5);
        // Clipping scales the stored gradients in place.
        assert!((opt.clip_grad_norm(1.0) - (9.25f64).sqrt()).abs() < 1e-5);
        assert!((opt.clip_grad_norm(0.0) - 1.0).abs() < 1e-5);
        opt.step(0.1);
        let w: Vec<f32> = Vec::try_from(&params["w"].detach()).unwrap();
        // Adam's first step is lr·sign(g).
        assert!(
            (w[0] - 0.9).abs() < 1e-5 && (w[1] + 1.9).abs() < 1e-5,
            "{w:?}"
        );
    }
}
