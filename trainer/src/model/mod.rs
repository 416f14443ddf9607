//! The policy network: a decoder-only transformer that reads and writes Hugging Face
//! checkpoints of the Qwen2, Qwen2.5, Qwen3, Llama (every `rope_type`) and Mistral
//! families as they are on disk, sliding-window attention included.
//!
//! Parameters live in one name → tensor map with the checkpoint's own names; layers
//! hold shallow handles onto those tensors, so loading, saving and the optimizer all
//! work on the same storage and saving writes back the layout that was read.

pub mod config;
pub mod kv_cache;
pub mod layers;
pub mod rope;
pub mod sdpa;
pub mod weights;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::device::{with_autocast, Precision};

pub use config::{Family, Head, ModelConfig};
pub use kv_cache::{KvCache, LayerCache};
use layers::{Attention, AttentionInputs, DecoderLayer, Mlp, RmsNorm};
use rope::Rope;

/// Files copied next to the weights when saving, so the checkpoint is complete.
pub const TOKENIZER_FILES: &[&str] = &[
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
    "generation_config.json",
    "vocab.json",
    "merges.txt",
];

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Config { path: String, message: String },
    #[error("unsupported architecture: model_type `{model_type}` ({architectures:?}); supported: qwen2, qwen3, llama, mistral")]
    UnknownArchitecture {
        model_type: String,
        architectures: Vec<String>,
    },
    #[error("no weights found: {0} (expected model.safetensors or model.safetensors.index.json)")]
    NoWeights(PathBuf),
    #[error("checkpoint is missing tensor `{0}`")]
    MissingTensor(String),
    #[error("tensor `{name}` has shape {found:?}, expected {expected:?}")]
    BadShape {
        name: String,
        expected: Vec<i64>,
        found: Vec<i64>,
    },
    #[error("checkpoint has unexpected tensor `{0}` for this architecture")]
    UnexpectedTensor(String),
    #[error("torch error in {context}: {message}")]
    Torch { context: String, message: String },
}

/// The attention masks `[B, 1, T, S]` and rotary tables of one pass, shared by its
/// layers.
struct LayerContext {
    /// `None`: plain causal attention (rows right-aligned, no cache).
    mask: Option<Tensor>,
    /// The mask of sliding-window layers (`None` when the model has none, or when
    /// the pass is shorter than the window).
    sliding_mask: Option<Tensor>,
    cos: Tensor,
    sin: Tensor,
    /// What cached keys and values are stored in.
    cache_kind: Kind,
    /// Whether masked attention repeats keys and values to every query head.
    expand_masked_kv: bool,
}

impl LayerContext {
    fn run(&self, layer: &DecoderLayer, h: &Tensor, cache: Option<&mut LayerCache>) -> Tensor {
        let mask = match (&self.sliding_mask, layer.sliding) {
            (Some(sliding), true) => Some(sliding),
            _ => self.mask.as_ref(),
        };
        let inputs = AttentionInputs {
            cos: &self.cos,
            sin: &self.sin,
            mask,
            cache_kind: self.cache_kind,
            expand_kv: self.expand_masked_kv && mask.is_some(),
        };
        layer.forward(h, &inputs, cache)
    }
}

/// Keeps a model's fused projections alive (see [`Transformer::fuse_for_decoding`]).
pub struct FusedForDecoding<'m> {
    model: &'m Transformer,
}

impl Drop for FusedForDecoding<'_> {
    fn drop(&mut self) {
        for layer in &self.model.layers {
            layer.set_fused(None);
        }
    }
}

/// Rows moved so that each one's real tokens start at column 0: a pass over
/// left-padded prompts followed by right-padded responses then needs no mask, only
/// `is_causal` (real tokens see exactly the earlier real tokens, and the padding,
/// now all after them, is seen by no real token).
struct Alignment {
    /// `[B, T]`: aligned column `i` of row `r` holds original column `i + shift[r]`
    /// (clamped; columns past the row's end are never read back).
    to_aligned: Tensor,
    /// `[B, T]`: original column `p` of row `r` reads aligned column `p − shift[r]`
    /// (clamped at 0 for the leading padding, whose output nobody uses).
    to_original: Tensor,
}

impl Alignment {
    /// `None` when some row's real tokens are not one run (a hole in `valid`).
    fn of_single_runs(valid: &Tensor) -> Option<Self> {
        let t = valid.size()[1];
        let as_int = valid.to_kind(Kind::Int64);
        let columns = Tensor::arange(t, (Kind::Int64, valid.device())).view([1, t]);
        // The first real column (0 for a row with none), and the run's length.
        let shift = as_int.argmax(1, true);
        let count = as_int.sum_dim_intlist(1, true, Kind::Int64);
        let last = columns.where_self(valid, &Tensor::from(-1i64).to_device(valid.device()));
        let span = last.amax(1, true) - &shift + 1;
        let holes = span.gt_tensor(&count).logical_and(&count.gt(0)).any();
        if bool::try_from(&holes).unwrap_or(true) {
            return None;
        }
        Some(Self {
            to_aligned: (&columns + &shift).clamp_max(t - 1),
            to_original: (columns - shift).clamp_min(0),
        })
    }

    fn gather(x: &Tensor, index: &Tensor) -> Tensor {
        let size = x.size();
        let index = index
            .view([size[0], size[1], 1])
            .expand(size.as_slice(), false);
        x.gather(1, &index, false)
    }

    /// `x` `[B, T, H]` in aligned column order.
    fn to_aligned(&self, x: &Tensor) -> Tensor {
        Self::gather(x, &self.to_aligned)
    }

    /// `x` `[B, T, H]` back in the original column order.
    fn to_original(&self, x: &Tensor) -> Tensor {
        Self::gather(x, &self.to_original)
    }
}

/// A trunk pass that kept only each layer's input (activation checkpointing): the
/// backward pass runs one layer at a time, recomputing its activations from its input,
/// so at most one layer's activations exist at once, for one more forward pass.
pub struct RecomputedTrunk<'m> {
    model: &'m Transformer,
    /// The final hidden states `[B, T, H]`; their graph reaches back only to the
    /// last layer's output.
    pub hidden: Tensor,
    embedded: Tensor,
    layer_inputs: Vec<Tensor>,
    last: Tensor,
    context: LayerContext,
}

impl RecomputedTrunk<'_> {
    /// Backpropagates through the layers and the embedding, after the gradient of the
    /// loss has reached [`RecomputedTrunk::hidden`] (a `backward` through it).
    /// Gradients accumulate in the model's parameters. Run it under the same autocast
    /// as the forward pass, so the recomputation rounds alike.
    pub fn backward_layers(self) {
        let mut grad = self.last.grad();
        if !grad.defined() {
            return;
        }
        let layers = self.model.layers.iter().zip(&self.layer_inputs).rev();
        for (layer, input) in layers {
            let input = input.detach().set_requires_grad(true);
            let out = self.context.run(layer, &input, None);
            // d/dx Σ(out · g) = the layer's vector-Jacobian product with g.
            (out * &grad).sum(Kind::Float).backward();
            grad = input.grad();
        }
        (self.embedded * grad).sum(Kind::Float).backward();
    }
}

/// A loaded model: config, parameters and the layer structure over them.
pub struct Transformer {
    pub config: ModelConfig,
    params: BTreeMap<String, Tensor>,
    embed: Tensor,
    layers: Vec<DecoderLayer>,
    norm: RmsNorm,
    lm_head: Tensor,
    rope: Rope,
    device: Device,
    kind: Kind,
    /// What its passes compute in (see [`crate::device::Precision`]).
    precision: Precision,
    /// Where the model was loaded from, for copying tokenizer files on save.
    source_dir: Option<PathBuf>,
    /// Which attention kernels its passes may take.
    kernels: KernelPaths,
}

/// Which kernels a model's passes may take. Each defaults to what is fastest on the
/// model's device (fused SDPA kernels, fewer launches); tests and benchmarks turn
/// them off to compare with the plain paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct KernelPaths {
    /// Passes without a cache move each row's tokens to column 0 and attend with
    /// `is_causal` and no mask (flash attention, GQA native), when every row's real
    /// tokens are one run (a left-padded prompt, then the response) and no sliding
    /// window is shorter than the pass. On by default on CUDA only: the CPU's flash
    /// kernel takes the mask as it is, so there it would only change the float path
    /// (and with it every CPU training trajectory the tests pin).
    pub causal_when_aligned: bool,
    /// Where a mask is needed (decoding, a shared prompt's cache), keys and values are
    /// repeated to every query head first: the memory-efficient kernel takes any mask
    /// but not grouped-query broadcasting, and without it SDPA falls back to the math
    /// kernel, which materialises `[B, H, T, S]` float32 scores. On by default on
    /// CUDA only: on the CPU the copy buys nothing.
    pub expand_masked_kv: bool,
    /// While decoding, each layer's q, k and v projections run as one matrix product
    /// and its gate and up projections as another, from matrices concatenated once
    /// per decoding run in the compute dtype (`Transformer::fuse_for_decoding`). A
    /// decoding step is launch-bound on a GPU: this removes three of a layer's seven
    /// GEMMs (and their autocast casts). Training passes keep the checkpoint's
    /// separate matrices, so gradients and saving are untouched. On by default on
    /// CUDA only (on the CPU it would only change the float path).
    pub fused_decoding_projections: bool,
}

impl KernelPaths {
    /// The paths before the fused ones: every pass masked, grouped heads broadcast,
    /// separate projections.
    pub const MASKED: Self = Self {
        causal_when_aligned: false,
        expand_masked_kv: false,
        fused_decoding_projections: false,
    };

    /// Every fused path on (CUDA's default).
    pub const FUSED: Self = Self {
        causal_when_aligned: true,
        expand_masked_kv: true,
        fused_decoding_projections: true,
    };

    pub fn for_device(device: Device) -> Self {
        if device.is_cuda() {
            Self::FUSED
        } else {
            Self::MASKED
        }
    }
}

impl Transformer {
    /// Loads `config.json` and the safetensors weights in `dir` onto `device`, with
    /// parameters in `kind` (float32 for training; the optimizer keeps them there).
    pub fn load(dir: &Path, device: Device, kind: Kind) -> Result<Self, ModelError> {
        let config = ModelConfig::from_file(&dir.join("config.json"))?;
        let mut tensors = weights::read_dir(dir)?;
        if config.tie_word_embeddings {
            // Some tied checkpoints still store the (identical) head; it is not a parameter.
            tensors.remove("lm_head.weight");
        }
        tensors.retain(|name, _| !name.ends_with("rotary_emb.inv_freq"));
        let mut params = BTreeMap::new();
        for (name, shape) in config.expected_tensors() {
            let t = tensors
                .remove(&name)
                .ok_or_else(|| ModelError::MissingTensor(name.clone()))?;
            if t.size() != shape {
                return Err(ModelError::BadShape {
                    name,
                    expected: shape,
                    found: t.size(),
                });
            }
            params.insert(name, t.to_device(device).to_kind(kind).detach());
        }
        if let Some(name) = tensors.keys().next() {
            return Err(ModelError::UnexpectedTensor(name.clone()));
        }
        let mut model = Self::from_params(config, params, device, kind)?;
        model.source_dir = Some(dir.to_owned());
        Ok(model)
    }

    /// A model with freshly initialised weights (normal, std 0.02; norms at 1), as
    /// transformers initialises a config; `seed` makes it reproducible.
    pub fn random(
        config: ModelConfig,
        device: Device,
        kind: Kind,
        seed: i64,
    ) -> Result<Self, ModelError> {
        tch::manual_seed(seed);
        let mut params = BTreeMap::new();
        for (name, shape) in config.expected_tensors() {
            let t = if name.ends_with("norm.weight") {
                Tensor::ones(shape.as_slice(), (kind, device))
            } else if name.ends_with(".bias") {
                Tensor::zeros(shape.as_slice(), (kind, device))
            } else {
                Tensor::randn(shape.as_slice(), (kind, device)) * 0.02
            };
            params.insert(name, t);
        }
        Self::from_params(config, params, device, kind)
    }

    fn from_params(
        config: ModelConfig,
        params: BTreeMap<String, Tensor>,
        device: Device,
        kind: Kind,
    ) -> Result<Self, ModelError> {
        let get = |name: &str| {
            params
                .get(name)
                .map(Tensor::shallow_clone)
                .ok_or_else(|| ModelError::MissingTensor(name.to_owned()))
        };
        let eps = config.rms_norm_eps;
        let mut layers = Vec::with_capacity(config.num_layers as usize);
        for l in 0..config.num_layers {
            let p = format!("model.layers.{l}");
            let opt = |name: &str, present: bool| -> Result<Option<Tensor>, ModelError> {
                if present {
                    get(&format!("{p}.{name}")).map(Some)
                } else {
                    Ok(None)
                }
            };
            let norm = |name: &str| -> Result<Option<RmsNorm>, ModelError> {
                Ok(opt(name, config.qk_norm)?.map(|weight| RmsNorm { weight, eps }))
            };
            layers.push(DecoderLayer {
                sliding: config.sliding_windows[l as usize].is_some(),
                input_norm: RmsNorm {
                    weight: get(&format!("{p}.input_layernorm.weight"))?,
                    eps,
                },
                attention: Attention {
                    q: get(&format!("{p}.self_attn.q_proj.weight"))?,
                    k: get(&format!("{p}.self_attn.k_proj.weight"))?,
                    v: get(&format!("{p}.self_attn.v_proj.weight"))?,
                    o: get(&format!("{p}.self_attn.o_proj.weight"))?,
                    q_bias: opt("self_attn.q_proj.bias", config.qkv_bias)?,
                    k_bias: opt("self_attn.k_proj.bias", config.qkv_bias)?,
                    v_bias: opt("self_attn.v_proj.bias", config.qkv_bias)?,
                    q_norm: norm("self_attn.q_norm.weight")?,
                    k_norm: norm("self_attn.k_norm.weight")?,
                    num_heads: config.num_heads,
                    num_kv_heads: config.num_kv_heads,
                    head_dim: config.head_dim,
                },
                post_norm: RmsNorm {
                    weight: get(&format!("{p}.post_attention_layernorm.weight"))?,
                    eps,
                },
                mlp: Mlp {
                    gate: get(&format!("{p}.mlp.gate_proj.weight"))?,
                    up: get(&format!("{p}.mlp.up_proj.weight"))?,
                    down: get(&format!("{p}.mlp.down_proj.weight"))?,
                },
                fused: Default::default(),
            });
        }
        let embed = get("model.embed_tokens.weight")?;
        // A sequence classifier's `score` rows take the vocabulary head's place, so
        // `logits` gives its labels' logits at every position.
        let lm_head = match config.head {
            Head::SequenceClassification { .. } => get("score.weight")?,
            Head::CausalLm if config.tie_word_embeddings => embed.shallow_clone(),
            Head::CausalLm => get("lm_head.weight")?,
        };
        Ok(Self {
            rope: Rope::new(&config.rope, device),
            norm: RmsNorm {
                weight: get("model.norm.weight")?,
                eps,
            },
            embed,
            lm_head,
            layers,
            params,
            config,
            device,
            kind,
            precision: Precision::default(),
            source_dir: None,
            kernels: KernelPaths::for_device(device),
        })
    }

    pub fn device(&self) -> Device {
        self.device
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Sets what this model's passes compute in; the parameters stay in [`Self::kind`].
    pub fn set_precision(&mut self, precision: Precision) {
        self.precision = precision;
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Sets which attention kernels the passes may take (equivalence tests, A/B
    /// benchmarks); the default follows the device.
    pub fn set_kernel_paths(&mut self, paths: KernelPaths) {
        self.kernels = paths;
    }

    pub fn kernel_paths(&self) -> KernelPaths {
        self.kernels
    }

    /// Runs `f` (a pass of this model) under the autocast its precision asks for on
    /// its device.
    pub fn autocast<T>(&self, f: impl FnOnce() -> T) -> T {
        with_autocast(self.device, self.precision, f)
    }

    /// Parameters by checkpoint name (tied models have no `lm_head.weight`).
    pub fn parameters(&self) -> &BTreeMap<String, Tensor> {
        &self.params
    }

    /// Bytes the parameters occupy.
    pub fn parameter_bytes(&self) -> u64 {
        self.params
            .values()
            .map(|t| t.numel() as u64 * t.kind().elt_size_in_bytes() as u64)
            .sum()
    }

    /// Turns gradient tracking on or off for every parameter.
    pub fn set_trainable(&mut self, trainable: bool) {
        for t in self.params.values_mut() {
            let _ = t.requires_grad_(trainable);
        }
    }

    /// Copies every parameter value from `other` (same config) into this model.
    pub fn copy_from(&mut self, other: &Transformer) {
        tch::no_grad(|| {
            for (name, t) in self.params.iter_mut() {
                if let Some(src) = other.params.get(name) {
                    t.copy_(src);
                }
            }
        });
    }

    /// Rounds every parameter through the dtype checkpoints are saved in, so a run
    /// that continues in memory after a checkpoint and one resumed from it hold
    /// identical weights (bit-exact resume).
    pub fn round_to_saved_dtype(&mut self) {
        let saved = weights::kind_from_name(&self.config.saved_dtype);
        if saved == self.kind {
            return;
        }
        let kind = self.kind;
        tch::no_grad(|| {
            for t in self.params.values_mut() {
                let rounded = t.to_kind(saved).to_kind(kind);
                t.copy_(&rounded);
            }
        });
    }

    /// Final hidden states `[B, T, H]` for `ids` `[B, T]`. `valid` `[B, T]` is false at
    /// padding. With a cache, the new keys are appended and attention spans the cache.
    pub fn forward_hidden(
        &self,
        ids: &Tensor,
        valid: &Tensor,
        cache: Option<&mut KvCache>,
    ) -> Tensor {
        let mut h = self.embed(ids);
        match cache {
            Some(cache) => {
                let context = self.cached_layer_context(valid, cache);
                for (layer, lc) in self.layers.iter().zip(cache.layers.iter_mut()) {
                    h = context.run(layer, &h, Some(lc));
                }
            }
            None => {
                let (context, alignment) = self.layer_context(valid);
                if let Some(alignment) = &alignment {
                    h = alignment.to_aligned(&h);
                }
                for layer in &self.layers {
                    h = context.run(layer, &h, None);
                }
                if let Some(alignment) = &alignment {
                    h = alignment.to_original(&h);
                }
            }
        }
        self.norm.forward(&h)
    }

    /// Fuses every layer's projections for a decoding run, if the kernel paths ask
    /// for it; they are dropped when the guard is. The weights must not change
    /// meanwhile (no optimizer step while decoding: RL samples, then trains).
    pub fn fuse_for_decoding(&self) -> Option<FusedForDecoding<'_>> {
        if !self.kernels.fused_decoding_projections {
            return None;
        }
        let kind = match self.precision.autocasts_on(self.device) {
            true => Kind::BFloat16,
            false => self.kind,
        };
        for layer in &self.layers {
            layer.set_fused(Some(kind));
        }
        Some(FusedForDecoding { model: self })
    }

    /// The token embeddings of `ids`.
    fn embed(&self, ids: &Tensor) -> Tensor {
        Tensor::embedding(&self.embed, ids, -1, false, false)
    }

    /// What every layer needs for a pass over `valid` `[B, T]` with no cache: the
    /// causal context over right-aligned rows when it applies (with the alignment the
    /// pass must apply to its input and undo on its output), else the masked one.
    fn layer_context(&self, valid: &Tensor) -> (LayerContext, Option<Alignment>) {
        if let Some(alignment) = self.causal_alignment(valid) {
            let t = valid.size()[1];
            let positions = Tensor::arange(t, (Kind::Int64, self.device))
                .view([1, t])
                .expand([valid.size()[0], t], false);
            let (cos, sin) = self.rope.cos_sin(&positions, t, self.kind);
            let context = LayerContext {
                mask: None,
                sliding_mask: None,
                cos,
                sin,
                cache_kind: self.compute_kind(),
                expand_masked_kv: self.kernels.expand_masked_kv,
            };
            return (context, Some(alignment));
        }
        // Positions count real tokens only, so left padding does not shift them.
        let positions = (valid.to_kind(Kind::Int64).cumsum(1, Kind::Int64) - 1).clamp_min(0);
        (
            self.masked_context(valid, &positions, Some(&positions), 0),
            None,
        )
    }

    /// The alignment that lets a pass over `valid` attend with `is_causal` alone, if
    /// the paths allow it, no sliding window binds within the pass, and every row's
    /// real tokens are one run (one host read, once per pass).
    fn causal_alignment(&self, valid: &Tensor) -> Option<Alignment> {
        let t = valid.size()[1];
        let window_binds = self.sliding_window().is_some_and(|w| w < t);
        if !self.kernels.causal_when_aligned || window_binds || t == 0 {
            return None;
        }
        Alignment::of_single_runs(valid)
    }

    /// What every layer needs for `valid` `[B, T]` new positions after those in
    /// `cache`, whose validity (and positions) it records.
    fn cached_layer_context(&self, valid: &Tensor, cache: &mut KvCache) -> LayerContext {
        let past = cache.len();
        let counted = valid.to_kind(Kind::Int64).cumsum(1, Kind::Int64);
        let counted = match cache.real_tokens() {
            Some(real) => counted + real.unsqueeze(1),
            None => counted,
        };
        let positions = (counted - 1).clamp_min(0);
        let sliding = self.sliding_window().is_some();
        let (full_valid, all_positions) = cache.push_positions(valid, &positions, sliding);
        self.masked_context(&full_valid, &positions, all_positions.as_ref(), past)
    }

    /// The context of `T` new positions at token `positions` `[B, T]`, after `past`
    /// cached ones: `full_valid` `[B, S]` and (for sliding windows) `all_positions`
    /// `[B, S]` cover the cached positions and the new.
    fn masked_context(
        &self,
        full_valid: &Tensor,
        positions: &Tensor,
        all_positions: Option<&Tensor>,
        past: i64,
    ) -> LayerContext {
        let (t, s) = (positions.size()[1], full_valid.size()[1]);
        let key_idx = Tensor::arange(s, (Kind::Int64, self.device)).view([1, s]);
        let query_idx = (Tensor::arange(t, (Kind::Int64, self.device)) + past).view([t, 1]);
        let causal = key_idx.le_tensor(&query_idx);
        // A padded query sees only itself, so its softmax never divides by zero.
        let diagonal = key_idx.eq_tensor(&query_idx).unsqueeze(0);
        let visible = causal
            .unsqueeze(0)
            .logical_and(&full_valid.view([-1, 1, s]));
        let mask = visible.logical_or(&diagonal).unsqueeze(1);
        // transformers' sliding overlay `kv > q − window`, over token positions.
        let sliding_mask =
            self.sliding_window()
                .zip(all_positions)
                .map(|(window, all_positions)| {
                    let near = all_positions
                        .view([-1, 1, s])
                        .gt_tensor(&(positions.unsqueeze(-1) - window));
                    visible
                        .logical_and(&near)
                        .logical_or(&diagonal)
                        .unsqueeze(1)
                });
        let (cos, sin) = self.rope.cos_sin(positions, s, self.kind);
        LayerContext {
            mask: Some(mask),
            sliding_mask,
            cos,
            sin,
            cache_kind: self.compute_kind(),
            expand_masked_kv: self.kernels.expand_masked_kv,
        }
    }

    /// What this model's passes compute in right now: autocast's dtype when it is on
    /// for the device (bf16), else the parameters' dtype.
    fn compute_kind(&self) -> Kind {
        if crate::device::autocast_enabled(self.device) {
            crate::device::autocast_dtype(self.device).unwrap_or(self.kind)
        } else {
            self.kind
        }
    }

    /// The sliding window of the layers that have one (one width per model in the
    /// families supported).
    fn sliding_window(&self) -> Option<i64> {
        self.config.sliding_windows.iter().flatten().copied().next()
    }

    /// [`Transformer::forward_hidden`] without a cache, keeping only each layer's input
    /// for the backward pass, which recomputes the layer (activation checkpointing;
    /// see [`RecomputedTrunk`]).
    pub fn forward_hidden_recomputed(&self, ids: &Tensor, valid: &Tensor) -> RecomputedTrunk<'_> {
        let (context, alignment) = self.layer_context(valid);
        let embedded = self.embed(ids);
        let embedded = match &alignment {
            Some(alignment) => alignment.to_aligned(&embedded),
            None => embedded,
        };
        let mut layer_inputs = Vec::with_capacity(self.layers.len());
        let mut h = embedded.detach();
        tch::no_grad(|| {
            for layer in &self.layers {
                let next = context.run(layer, &h, None);
                layer_inputs.push(std::mem::replace(&mut h, next));
            }
        });
        let last = h.set_requires_grad(true);
        let hidden = self.norm.forward(&last);
        RecomputedTrunk {
            model: self,
            hidden: match &alignment {
                Some(alignment) => alignment.to_original(&hidden),
                None => hidden,
            },
            embedded,
            layer_inputs,
            last,
            context,
        }
    }

    /// This model's trunk under a fresh one-label `score` head (normal, std 0.02,
    /// seeded, as transformers initialises a new head): a reward model to train,
    /// in the `*ForSequenceClassification` layout. The trunk's weights are copied.
    pub fn reward_model_from(&self, pad_token_id: i64, seed: i64) -> Result<Self, ModelError> {
        let config = self.config.as_reward_model(pad_token_id);
        let mut params: BTreeMap<String, Tensor> = tch::no_grad(|| {
            self.params
                .iter()
                .filter(|(name, _)| name.as_str() != "lm_head.weight")
                .map(|(name, t)| (name.clone(), t.detach().copy()))
                .collect()
        });
        tch::manual_seed(seed);
        let hidden = self.config.hidden_size;
        let score = Tensor::randn([1, hidden], (self.kind, self.device)) * 0.02;
        params.insert("score.weight".into(), score);
        let mut model = Self::from_params(config, params, self.device, self.kind)?;
        model.source_dir = self.source_dir.clone();
        model.precision = self.precision;
        Ok(model)
    }

    /// Rows of the output head: the size of the logits' last dimension.
    pub fn vocab_size(&self) -> i64 {
        self.lm_head.size()[0]
    }

    /// Logits over the vocabulary for hidden states `[.., H]`.
    pub fn logits(&self, hidden: &Tensor) -> Tensor {
        hidden.linear::<Tensor>(&self.lm_head, None)
    }

    /// Logits `[B, T, V]` for every position.
    pub fn forward(&self, ids: &Tensor, valid: &Tensor, cache: Option<&mut KvCache>) -> Tensor {
        self.logits(&self.forward_hidden(ids, valid, cache))
    }

    pub fn new_cache(&self) -> KvCache {
        KvCache::new(self.layers.len())
    }

    /// Saves config, weights (in the dtype the checkpoint was loaded with, sharded
    /// above `max_shard_bytes`) and the tokenizer files of the source checkpoint.
    pub fn save(&self, dir: &Path, max_shard_bytes: usize) -> Result<(), ModelError> {
        std::fs::create_dir_all(dir).map_err(|source| ModelError::Io {
            path: dir.to_owned(),
            source,
        })?;
        let config_path = dir.join("config.json");
        let text = serde_json::to_string_pretty(&self.config.raw).unwrap_or_default();
        std::fs::write(&config_path, text + "\n").map_err(|source| ModelError::Io {
            path: config_path,
            source,
        })?;
        let kind = weights::kind_from_name(&self.config.saved_dtype);
        weights::write_dir(dir, &self.params, kind, max_shard_bytes)?;
        if let Some(src) = &self.source_dir {
            copy_tokenizer_files(src, dir)?;
        }
        Ok(())
    }

    /// Remembers a folder whose tokenizer files `save` copies.
    pub fn set_source_dir(&mut self, dir: &Path) {
        self.source_dir = Some(dir.to_owned());
    }
}

#[cfg(test)]
mod attention_tests;

/// Copies the tokenizer files that exist in `src` into `dst`.
pub fn copy_tokenizer_files(src: &Path, dst: &Path) -> Result<(), ModelError> {
    for name in TOKENIZER_FILES {
        let from = src.join(name);
        if from.exists() {
            std::fs::copy(&from, dst.join(name)).map_err(|source| ModelError::Io {
                path: from.clone(),
                source,
            })?;
        }
    }
    Ok(())
}
