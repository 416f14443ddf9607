//! Which of libtorch's scaled-dot-product-attention kernels a model's attention calls
//! take, as `at::_fused_sdp_choice` decides for their shapes, dtypes and masks, and
//! the switch that forbids the math kernel (so a run proves it never needs it).
//!
//! Why it matters: the math kernel repeats keys and values per query head and builds
//! the whole `[B, H, T, S]` score tensor in float32; flash and memory-efficient
//! attention never materialise it. On CUDA, flash takes no explicit mask and the
//! memory-efficient kernel takes no grouped-query broadcast, so the call's form
//! decides ([`super::KernelPaths`]).

use serde::Serialize;
use tch::{Kind, Tensor};

use super::Transformer;

extern "C" {
    fn cascade_set_math_sdpa_enabled(enabled: bool);
}

/// Allows or forbids libtorch's math SDPA kernel, for the whole process.
pub fn set_math_sdpa_enabled(enabled: bool) {
    // SAFETY: a setter on libtorch's global context; it does not throw.
    unsafe { cascade_set_math_sdpa_enabled(enabled) }
}

/// libtorch's `sdp::SDPBackend`, by the index `_fused_sdp_choice` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SdpaBackend {
    Math,
    Flash,
    MemoryEfficient,
    Cudnn,
    Overrideable,
    /// No kernel can run the call (e.g. math forbidden and no fused kernel fits).
    NoKernel,
}

impl SdpaBackend {
    fn from_index(index: i64) -> Self {
        match index {
            0 => Self::Math,
            1 => Self::Flash,
            2 => Self::MemoryEfficient,
            3 => Self::Cudnn,
            4 => Self::Overrideable,
            _ => Self::NoKernel,
        }
    }
}

/// The kernel of each kind of attention call, at one batch shape.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SdpaChoices {
    /// A training (or reference, teacher) pass over prompt + response, no cache.
    pub training_pass: SdpaBackend,
    /// The responses' pass over a group's shared prompt cache (GRPO's default).
    pub shared_prompt_pass: SdpaBackend,
    /// One decoding step over the cache.
    pub decode_step: SdpaBackend,
}

impl Transformer {
    /// What each kind of attention call takes for `rows` rows of `prompt` + `response`
    /// tokens, on this model's device, precision and attention paths.
    pub fn sdpa_choices(&self, rows: i64, prompt: i64, response: i64) -> SdpaChoices {
        let total = prompt + response;
        let causal =
            self.kernels.causal_when_aligned && self.sliding_window().is_none_or(|w| w >= total);
        tch::no_grad(|| {
            self.autocast(|| SdpaChoices {
                training_pass: self.sdpa_choice(rows, total, total, !causal),
                shared_prompt_pass: self.sdpa_choice(rows, response, total, true),
                decode_step: self.sdpa_choice(rows, 1, total, true),
            })
        })
    }

    /// The kernel for `t` queries over `s` keys, with a boolean mask or causal.
    fn sdpa_choice(&self, rows: i64, t: i64, s: i64, masked: bool) -> SdpaBackend {
        let c = &self.config;
        let kind = self.compute_kind();
        let expand = masked && self.kernels.expand_masked_kv;
        let kv_heads = if expand { c.num_heads } else { c.num_kv_heads };
        let q = Tensor::zeros([rows, c.num_heads, t, c.head_dim], (kind, self.device));
        let kv = Tensor::zeros([rows, kv_heads, s, c.head_dim], (kind, self.device));
        let mask = masked.then(|| Tensor::ones([rows, 1, t, s], (Kind::Bool, self.device)));
        let grouped = kv_heads != c.num_heads;
        let index = Tensor::f_internal_fused_sdp_choice(
            &q,
            &kv,
            &kv,
            mask.as_ref(),
            0.0,
            !masked,
            None,
            grouped,
        );
        // libtorch throws when no allowed kernel fits the call.
        index.map_or(SdpaBackend::NoKernel, SdpaBackend::from_index)
    }
}
