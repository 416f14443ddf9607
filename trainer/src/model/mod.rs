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
pub mod weights;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::device::{with_autocast, Precision};

pub use config::{Family, Head, ModelConfig};
pub use kv_cache::{KvCache, LayerCache};
use layers::{Attention, DecoderLayer, Mlp, RmsNorm};
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
    mask: Tensor,
    /// The mask of sliding-window layers (`None` when the model has none).
    sliding_mask: Option<Tensor>,
    cos: Tensor,
    sin: Tensor,
}

impl LayerContext {
    fn run(&self, layer: &DecoderLayer, h: &Tensor, cache: Option<&mut LayerCache>) -> Tensor {
        let mask = match (&self.sliding_mask, layer.sliding) {
            (Some(sliding), true) => sliding,
            _ => &self.mask,
        };
        layer.forward(h, &self.cos, &self.sin, mask, cache)
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
        let past_valid = cache.as_ref().and_then(|c| c.key_valid.as_ref());
        let (context, full_valid) = self.layer_context(valid, past_valid);
        let mut h = self.embed(ids);
        match cache {
            Some(cache) => {
                for (layer, lc) in self.layers.iter().zip(cache.layers.iter_mut()) {
                    h = context.run(layer, &h, Some(lc));
                }
                cache.key_valid = Some(full_valid);
            }
            None => {
                for layer in &self.layers {
                    h = context.run(layer, &h, None);
                }
            }
        }
        self.norm.forward(&h)
    }

    /// The token embeddings of `ids`.
    fn embed(&self, ids: &Tensor) -> Tensor {
        Tensor::embedding(&self.embed, ids, -1, false, false)
    }

    /// What every layer needs for `valid` `[B, T]` new positions after the cached
    /// ones (`past_valid`), and the validity of all of them.
    fn layer_context(&self, valid: &Tensor, past_valid: Option<&Tensor>) -> (LayerContext, Tensor) {
        let t = valid.size()[1];
        let (full_valid, past) = match past_valid {
            Some(prev) => (Tensor::cat(&[prev, valid], 1), prev.size()[1]),
            None => (valid.shallow_clone(), 0),
        };
        let s = past + t;
        // Positions count real tokens only, so left padding does not shift them.
        let all_positions =
            (full_valid.to_kind(Kind::Int64).cumsum(1, Kind::Int64) - 1).clamp_min(0);
        let positions = all_positions.narrow(1, past, t);
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
        let sliding_mask = self.sliding_window().map(|window| {
            let near = all_positions
                .view([-1, 1, s])
                .gt_tensor(&(positions.unsqueeze(-1) - window));
            visible
                .logical_and(&near)
                .logical_or(&diagonal)
                .unsqueeze(1)
        });
        let (cos, sin) = self.rope.cos_sin(&positions, self.kind);
        let context = LayerContext {
            mask,
            sliding_mask,
            cos,
            sin,
        };
        (context, full_valid)
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
        let (context, _) = self.layer_context(valid, None);
        let embedded = self.embed(ids);
        let mut layer_inputs = Vec::with_capacity(self.layers.len());
        let mut h = embedded.detach();
        tch::no_grad(|| {
            for layer in &self.layers {
                let next = context.run(layer, &h, None);
                layer_inputs.push(std::mem::replace(&mut h, next));
            }
        });
        let last = h.set_requires_grad(true);
        RecomputedTrunk {
            model: self,
            hidden: self.norm.forward(&last),
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
