//! The transformer's building blocks: RMSNorm, rotary application, grouped-query
//! attention through libtorch's scaled-dot-product attention, and the SwiGLU MLP.
//! Each block holds shallow handles onto the model's parameter tensors, so the
//! optimizer's in-place updates are seen without copying.

use std::sync::Mutex;

use tch::{Kind, Tensor};

use super::kv_cache::LayerCache;

/// RMSNorm computed in float32, then cast back, as transformers does.
pub struct RmsNorm {
    pub weight: Tensor,
    pub eps: f64,
}

impl RmsNorm {
    pub fn forward(&self, x: &Tensor) -> Tensor {
        let kind = x.kind();
        let xf = x.to_kind(Kind::Float);
        let var = xf.pow_tensor_scalar(2).mean_dim(-1, true, Kind::Float);
        let normed = (xf * (var + self.eps).rsqrt()).to_kind(kind);
        &self.weight * normed
    }
}

fn rotate_half(x: &Tensor) -> Tensor {
    let half = x.size()[3] / 2;
    let x1 = x.narrow(3, 0, half);
    let x2 = x.narrow(3, half, half);
    Tensor::cat(&[&x2.neg(), &x1], 3)
}

fn apply_rope(x: &Tensor, cos: &Tensor, sin: &Tensor) -> Tensor {
    x * cos + rotate_half(x) * sin
}

/// What one pass gives every layer's attention.
pub struct AttentionInputs<'a> {
    /// Rotary tables `[B, 1, T, head_dim]`.
    pub cos: &'a Tensor,
    pub sin: &'a Tensor,
    /// A boolean `[B, 1, T, S]` (true = may attend), where `S` counts cached keys
    /// plus these `T`; `None` for plain causal attention over right-padded rows
    /// with no cache, which lets SDPA take its fused kernels (flash and
    /// memory-efficient reject an explicit mask).
    pub mask: Option<&'a Tensor>,
    /// The dtype cached keys and values are kept in (what attention computes in).
    pub cache_kind: Kind,
    /// Repeat keys and values to every query head before a masked SDPA call (see
    /// `KernelPaths::expand_masked_kv`).
    pub expand_kv: bool,
}

pub struct Attention {
    pub q: Tensor,
    pub k: Tensor,
    pub v: Tensor,
    pub o: Tensor,
    pub q_bias: Option<Tensor>,
    pub k_bias: Option<Tensor>,
    pub v_bias: Option<Tensor>,
    pub q_norm: Option<RmsNorm>,
    pub k_norm: Option<RmsNorm>,
    pub num_heads: i64,
    pub num_kv_heads: i64,
    pub head_dim: i64,
}

impl Attention {
    /// `x` is `[B, T, H]`.
    pub fn forward(
        &self,
        x: &Tensor,
        inputs: &AttentionInputs,
        cache: Option<&mut LayerCache>,
        fused: Option<&FusedProjections>,
    ) -> Tensor {
        let (b, t) = (x.size()[0], x.size()[1]);
        let (q_width, kv_width) = (
            self.num_heads * self.head_dim,
            self.num_kv_heads * self.head_dim,
        );
        let fused_qkv = fused.map(|f| x.linear(&f.qkv, f.qkv_bias.as_ref()));
        // Each head's projection, then its reshape, then the next one: the order the
        // ops are recorded in sets the order autograd sums their gradients into `x`,
        // and so the float path of every CPU training run.
        let heads =
            |w: &Tensor, bias: &Option<Tensor>, (start, n): (i64, i64), norm: &Option<RmsNorm>| {
                let y = match &fused_qkv {
                    Some(all) => all.narrow(-1, start, n * self.head_dim),
                    None => x.linear(w, bias.as_ref()),
                };
                let y = y.view([b, t, n, self.head_dim]);
                let y = match norm {
                    Some(norm) => norm.forward(&y),
                    None => y,
                };
                y.transpose(1, 2)
            };
        let q = heads(&self.q, &self.q_bias, (0, self.num_heads), &self.q_norm);
        let k = heads(
            &self.k,
            &self.k_bias,
            (q_width, self.num_kv_heads),
            &self.k_norm,
        );
        let v = heads(
            &self.v,
            &self.v_bias,
            (q_width + kv_width, self.num_kv_heads),
            &None,
        );
        let q = apply_rope(&q, inputs.cos, inputs.sin);
        let k = apply_rope(&k, inputs.cos, inputs.sin);
        let (k, v) = match cache {
            Some(cache) => cache.append(&k, &v, inputs.cache_kind),
            None => (k, v),
        };
        let grouped = self.num_kv_heads != self.num_heads;
        let (k, v, grouped) = if grouped && inputs.expand_kv {
            let n = self.num_heads / self.num_kv_heads;
            let expand = |t: &Tensor| t.repeat_interleave_self_int(n, 1, None);
            (expand(&k), expand(&v), false)
        } else {
            (k, v, grouped)
        };
        let out = Tensor::scaled_dot_product_attention(
            &q,
            &k,
            &v,
            inputs.mask,
            0.0,
            inputs.mask.is_none(),
            None,
            grouped,
        );
        out.transpose(1, 2)
            .reshape([b, t, self.num_heads * self.head_dim])
            .linear::<Tensor>(&self.o, None)
    }
}

/// `down(silu(gate(x)) * up(x))`.
pub struct Mlp {
    pub gate: Tensor,
    pub up: Tensor,
    pub down: Tensor,
}

impl Mlp {
    pub fn forward(&self, x: &Tensor, fused: Option<&FusedProjections>) -> Tensor {
        // gate, its activation, then up: the recorded order (see `Attention::forward`).
        let (g, u) = match fused {
            Some(fused) => {
                let y = x.linear::<Tensor>(&fused.gate_up, None);
                let half = self.gate.size()[0];
                (y.narrow(-1, 0, half).silu(), y.narrow(-1, half, half))
            }
            None => {
                let g = x.linear::<Tensor>(&self.gate, None).silu();
                (g, x.linear::<Tensor>(&self.up, None))
            }
        };
        (g * u).linear::<Tensor>(&self.down, None)
    }
}

/// A layer's projections concatenated into one matrix per input, in the compute
/// dtype: `[q; k; v]` (and their biases) and `[gate; up]`. Built for a decoding run
/// (no gradients, weights fixed) by `Transformer::fuse_for_decoding`.
pub struct FusedProjections {
    qkv: Tensor,
    qkv_bias: Option<Tensor>,
    gate_up: Tensor,
}

impl FusedProjections {
    fn of(attention: &Attention, mlp: &Mlp, kind: Kind) -> Self {
        let cat = |parts: &[&Tensor]| Tensor::cat(parts, 0).to_kind(kind);
        let qkv_bias = match (&attention.q_bias, &attention.k_bias, &attention.v_bias) {
            (Some(q), Some(k), Some(v)) => Some(cat(&[q, k, v])),
            _ => None,
        };
        Self {
            qkv: cat(&[&attention.q, &attention.k, &attention.v]),
            qkv_bias,
            gate_up: cat(&[&mlp.gate, &mlp.up]),
        }
    }
}

pub struct DecoderLayer {
    /// Whether its attention is limited to a sliding window (the pass's window mask).
    pub sliding: bool,
    pub input_norm: RmsNorm,
    pub attention: Attention,
    pub post_norm: RmsNorm,
    pub mlp: Mlp,
    /// Set while a decoding run uses fused projections (see `FusedProjections`).
    pub fused: Mutex<Option<FusedProjections>>,
}

impl DecoderLayer {
    /// Fuses this layer's projections in `kind` (`Some`) or drops the fused ones.
    pub fn set_fused(&self, kind: Option<Kind>) {
        let fused = kind
            .map(|kind| tch::no_grad(|| FusedProjections::of(&self.attention, &self.mlp, kind)));
        *self.fused.lock().unwrap_or_else(|e| e.into_inner()) = fused;
    }

    pub fn forward(
        &self,
        x: &Tensor,
        inputs: &AttentionInputs,
        cache: Option<&mut LayerCache>,
    ) -> Tensor {
        let fused = self.fused.lock().unwrap_or_else(|e| e.into_inner());
        let h =
            x + self
                .attention
                .forward(&self.input_norm.forward(x), inputs, cache, fused.as_ref());
        &h + self
            .mlp
            .forward(&self.post_norm.forward(&h), fused.as_ref())
    }
}
