//! `config.json` of a Hugging Face decoder-only checkpoint, read in both the older
//! layout and the transformers-5 layout (`rope_parameters.rope_theta`, `dtype`).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::rope::RopeConfig;
use super::ModelError;

/// The architecture family: decides the tensor names and which optional parts exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Qwen2 / Qwen2.5: q/k/v projections carry biases.
    Qwen2,
    /// Qwen3: RMS norms on q and k per head, no q/k/v bias by default.
    Qwen3,
    /// Llama (and Mistral-shaped checkpoints): no biases unless `attention_bias`.
    Llama,
}

/// What sits on top of the trunk: the vocabulary head of a causal LM, or the scalar
/// `score` head of a `*ForSequenceClassification` checkpoint (reward models).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// `lm_head.weight` `[vocab, hidden]` (or the tied embeddings).
    CausalLm,
    /// `score.weight` `[num_labels, hidden]`, read at the last non-padding token.
    SequenceClassification { num_labels: i64 },
}

/// Everything the model needs from `config.json`, resolved to concrete values.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    pub family: Family,
    pub vocab_size: i64,
    pub hidden_size: i64,
    pub intermediate_size: i64,
    pub num_layers: i64,
    pub num_heads: i64,
    pub num_kv_heads: i64,
    pub head_dim: i64,
    pub rms_norm_eps: f64,
    /// Rotary embeddings: θ and the `rope_type` with its parameters.
    pub rope: RopeConfig,
    /// Per layer, the sliding-window width its attention is limited to (`None`:
    /// full causal attention), resolved as transformers does for the family.
    pub sliding_windows: Vec<Option<i64>>,
    pub tie_word_embeddings: bool,
    /// Whether q/k/v projections have biases (always for Qwen2, `attention_bias` else).
    pub qkv_bias: bool,
    /// Qwen3's per-head RMS norm on queries and keys.
    pub qk_norm: bool,
    /// The dtype the weights were saved in (`torch_dtype` or transformers-5 `dtype`).
    pub saved_dtype: String,
    /// End-of-sequence ids from the config (one or several).
    pub eos_token_ids: Vec<i64>,
    /// `pad_token_id`: sequence classifiers score the last token that is not it.
    pub pad_token_id: Option<i64>,
    pub head: Head,
    /// The file as read, written back unchanged when saving.
    pub raw: Value,
}

#[derive(Deserialize)]
struct RawConfig {
    #[serde(default)]
    architectures: Vec<String>,
    model_type: Option<String>,
    vocab_size: Option<i64>,
    hidden_size: Option<i64>,
    intermediate_size: Option<i64>,
    num_hidden_layers: Option<i64>,
    num_attention_heads: Option<i64>,
    num_key_value_heads: Option<i64>,
    head_dim: Option<i64>,
    rms_norm_eps: Option<f64>,
    tie_word_embeddings: Option<bool>,
    attention_bias: Option<bool>,
    torch_dtype: Option<String>,
    dtype: Option<String>,
    eos_token_id: Option<Value>,
    pad_token_id: Option<Value>,
    num_labels: Option<i64>,
    id2label: Option<serde_json::Map<String, Value>>,
    use_sliding_window: Option<bool>,
    max_window_layers: Option<i64>,
    layer_types: Option<Vec<String>>,
}

impl ModelConfig {
    /// Reads and resolves `config.json`.
    pub fn from_file(path: &Path) -> Result<Self, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_json(&text).map_err(|e| match e {
            ModelError::Config { message, .. } => ModelError::Config {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })
    }

    /// Resolves a config from its JSON text.
    pub fn from_json(text: &str) -> Result<Self, ModelError> {
        let bad = config_error;
        let raw: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let c: RawConfig = serde_json::from_value(raw.clone()).map_err(|e| bad(e.to_string()))?;
        let model_type = c.model_type.clone().unwrap_or_default();
        let family = match model_type.as_str() {
            "qwen2" => Family::Qwen2,
            "qwen3" => Family::Qwen3,
            "llama" | "mistral" => Family::Llama,
            _ => {
                return Err(ModelError::UnknownArchitecture {
                    model_type,
                    architectures: c.architectures.clone(),
                })
            }
        };
        let need = |v: Option<i64>, key: &str| {
            v.filter(|&n| n > 0)
                .ok_or_else(|| bad(format!("`{key}` is missing or not a positive integer")))
        };
        let hidden_size = need(c.hidden_size, "hidden_size")?;
        let num_heads = need(c.num_attention_heads, "num_attention_heads")?;
        let num_kv_heads = c.num_key_value_heads.unwrap_or(num_heads);
        if num_kv_heads <= 0 || num_heads % num_kv_heads != 0 {
            return Err(bad(format!(
                "`num_key_value_heads` ({num_kv_heads}) must divide `num_attention_heads` ({num_heads})"
            )));
        }
        let head_dim = match c.head_dim {
            Some(d) => d,
            None if hidden_size % num_heads == 0 => hidden_size / num_heads,
            None => {
                return Err(bad(format!(
                    "`hidden_size` ({hidden_size}) is not a multiple of `num_attention_heads` ({num_heads}) and no `head_dim` is given"
                )))
            }
        };
        if head_dim <= 0 || head_dim % 2 != 0 {
            return Err(bad(format!(
                "`head_dim` ({head_dim}) must be positive and even"
            )));
        }
        let rope = RopeConfig::from_config(&raw, head_dim).map_err(bad)?;
        let num_layers = need(c.num_hidden_layers, "num_hidden_layers")?;
        let sliding_windows = sliding_windows(&c, &raw, &model_type, num_layers)?;
        let head = head_of(&c)?;
        let eos_token_ids = match &c.eos_token_id {
            Some(Value::Number(n)) => n.as_i64().into_iter().collect(),
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_i64).collect(),
            _ => Vec::new(),
        };
        Ok(Self {
            family,
            vocab_size: need(c.vocab_size, "vocab_size")?,
            hidden_size,
            intermediate_size: need(c.intermediate_size, "intermediate_size")?,
            num_layers,
            num_heads,
            num_kv_heads,
            head_dim,
            rms_norm_eps: c.rms_norm_eps.unwrap_or(1e-6),
            rope,
            sliding_windows,
            tie_word_embeddings: c.tie_word_embeddings.unwrap_or(false),
            qkv_bias: family == Family::Qwen2 || c.attention_bias.unwrap_or(false),
            qk_norm: family == Family::Qwen3,
            saved_dtype: c
                .dtype
                .or(c.torch_dtype)
                .unwrap_or_else(|| "float32".into()),
            eos_token_ids,
            pad_token_id: c.pad_token_id.as_ref().and_then(Value::as_i64),
            head,
            raw,
        })
    }

    /// This config as a `*ForSequenceClassification` with one label (a reward
    /// model's), the way transformers writes it: the architecture renamed,
    /// `id2label`/`label2id` for one label, and `pad_token_id`.
    pub fn as_reward_model(&self, pad_token_id: i64) -> ModelConfig {
        let mut raw = self.raw.clone();
        let architecture = match self.family {
            Family::Qwen2 => "Qwen2ForSequenceClassification",
            Family::Qwen3 => "Qwen3ForSequenceClassification",
            Family::Llama if self.raw["model_type"] == "mistral" => {
                "MistralForSequenceClassification"
            }
            Family::Llama => "LlamaForSequenceClassification",
        };
        if let Value::Object(map) = &mut raw {
            map.insert("architectures".into(), serde_json::json!([architecture]));
            map.insert("id2label".into(), serde_json::json!({"0": "LABEL_0"}));
            map.insert("label2id".into(), serde_json::json!({"LABEL_0": 0}));
            map.insert("pad_token_id".into(), pad_token_id.into());
            map.remove("num_labels");
        }
        ModelConfig {
            head: Head::SequenceClassification { num_labels: 1 },
            pad_token_id: Some(pad_token_id),
            raw,
            ..self.clone()
        }
    }

    /// Every tensor the checkpoint must hold, with its shape, in a fixed order.
    pub fn expected_tensors(&self) -> Vec<(String, Vec<i64>)> {
        let (h, i, d) = (self.hidden_size, self.intermediate_size, self.head_dim);
        let (q, kv) = (self.num_heads * d, self.num_kv_heads * d);
        let mut out = vec![(
            "model.embed_tokens.weight".to_owned(),
            vec![self.vocab_size, h],
        )];
        for l in 0..self.num_layers {
            let p = format!("model.layers.{l}");
            let mut push = |name: &str, shape: Vec<i64>| out.push((format!("{p}.{name}"), shape));
            push("input_layernorm.weight", vec![h]);
            push("self_attn.q_proj.weight", vec![q, h]);
            push("self_attn.k_proj.weight", vec![kv, h]);
            push("self_attn.v_proj.weight", vec![kv, h]);
            push("self_attn.o_proj.weight", vec![h, q]);
            if self.qkv_bias {
                push("self_attn.q_proj.bias", vec![q]);
                push("self_attn.k_proj.bias", vec![kv]);
                push("self_attn.v_proj.bias", vec![kv]);
            }
            if self.qk_norm {
                push("self_attn.q_norm.weight", vec![d]);
                push("self_attn.k_norm.weight", vec![d]);
            }
            push("post_attention_layernorm.weight", vec![h]);
            push("mlp.gate_proj.weight", vec![i, h]);
            push("mlp.up_proj.weight", vec![i, h]);
            push("mlp.down_proj.weight", vec![h, i]);
        }
        out.push(("model.norm.weight".to_owned(), vec![h]));
        match self.head {
            Head::SequenceClassification { num_labels } => {
                out.push(("score.weight".to_owned(), vec![num_labels, h]));
            }
            Head::CausalLm if !self.tie_word_embeddings => {
                out.push(("lm_head.weight".to_owned(), vec![self.vocab_size, h]));
            }
            Head::CausalLm => {}
        }
        out
    }
}

/// A `*ForSequenceClassification` architecture has a `score` head of `num_labels`
/// rows (`num_labels`, else the size of `id2label`, else transformers' default 2).
fn head_of(c: &RawConfig) -> Result<Head, ModelError> {
    if !c
        .architectures
        .iter()
        .any(|a| a.ends_with("ForSequenceClassification"))
    {
        return Ok(Head::CausalLm);
    }
    let num_labels = c
        .num_labels
        .or_else(|| c.id2label.as_ref().map(|m| m.len() as i64))
        .unwrap_or(2);
    if num_labels <= 0 {
        return Err(config_error(format!(
            "`num_labels` ({num_labels}) must be positive"
        )));
    }
    Ok(Head::SequenceClassification { num_labels })
}

/// A config.json problem.
fn config_error(message: String) -> ModelError {
    ModelError::Config {
        path: "config.json".into(),
        message,
    }
}

/// Each layer's attention window, as transformers resolves it: Mistral slides every
/// layer when `sliding_window` is set; Qwen2/Qwen3 slide only with
/// `use_sliding_window`, on the layers `layer_types` names `sliding_attention` (else
/// those from `max_window_layers` on). Llama never slides.
fn sliding_windows(
    c: &RawConfig,
    raw: &Value,
    model_type: &str,
    num_layers: i64,
) -> Result<Vec<Option<i64>>, ModelError> {
    let n = num_layers as usize;
    // An absent key takes transformers' default (4096); an explicit null is none.
    let window = match raw.get("sliding_window").map_or(Some(4096), Value::as_i64) {
        Some(w) if w <= 0 => {
            return Err(config_error(format!(
                "`sliding_window` ({w}) must be positive"
            )))
        }
        w => w,
    };
    let windows = match model_type {
        "mistral" => vec![window; n],
        "qwen2" | "qwen3" if c.use_sliding_window == Some(true) => match &c.layer_types {
            Some(types) if types.len() != n => {
                return Err(config_error(format!(
                    "`layer_types` has {} entries for {n} layers",
                    types.len()
                )))
            }
            Some(types) => types
                .iter()
                .map(|t| window.filter(|_| t == "sliding_attention"))
                .collect(),
            None => {
                let first = c.max_window_layers.unwrap_or(28);
                (0..num_layers)
                    .map(|l| window.filter(|_| l >= first))
                    .collect()
            }
        },
        _ => vec![None; n],
    };
    Ok(windows)
}

/// A two-layer Qwen2 of hidden size 32, for unit tests that need a real model shape.
#[cfg(test)]
pub(crate) const TINY_TEST_CONFIG: &str = r#"{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2",
 "vocab_size":97,"hidden_size":32,"intermediate_size":64,"num_hidden_layers":2,
 "num_attention_heads":4,"num_key_value_heads":2,"rms_norm_eps":1e-6,"rope_theta":10000.0,
 "tie_word_embeddings":true,"max_position_embeddings":256}"#;

/// [`TINY_TEST_CONFIG`]'s vocabulary.
#[cfg(test)]
pub(crate) const TINY_TEST_VOCAB: i64 = 97;

#[cfg(test)]
mod tests {
    use super::*;

    const QWEN2_OLD: &str = r#"{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2",
        "vocab_size":61,"hidden_size":128,"intermediate_size":512,"num_hidden_layers":4,
        "num_attention_heads":4,"num_key_value_heads":2,"rms_norm_eps":1e-6,
        "rope_theta":1000000.0,"tie_word_embeddings":true,"torch_dtype":"float32","eos_token_id":2}"#;

    #[test]
    fn reads_old_layout() {
        let c = ModelConfig::from_json(QWEN2_OLD).unwrap();
        assert_eq!(c.family, Family::Qwen2);
        assert_eq!(c.head_dim, 32);
        assert_eq!(c.rope.theta, 1e6);
        assert!(c.qkv_bias && c.tie_word_embeddings && !c.qk_norm);
        assert_eq!(c.eos_token_ids, vec![2]);
        assert!(!c
            .expected_tensors()
            .iter()
            .any(|(n, _)| n == "lm_head.weight"));
    }

    #[test]
    fn reads_transformers5_layout() {
        let text = r#"{"model_type":"qwen3","vocab_size":100,"hidden_size":64,"intermediate_size":128,
            "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":32,
            "rope_parameters":{"rope_theta":5000.0,"rope_type":"default"},"dtype":"bfloat16",
            "eos_token_id":[1,2]}"#;
        let c = ModelConfig::from_json(text).unwrap();
        assert_eq!(
            (c.family, c.rope.theta, c.head_dim),
            (Family::Qwen3, 5000.0, 32)
        );
        assert_eq!(c.saved_dtype, "bfloat16");
        assert!(c.qk_norm && !c.qkv_bias);
        assert!(c
            .expected_tensors()
            .iter()
            .any(|(n, s)| n == "lm_head.weight" && s == &[100, 64]));
    }

    #[test]
    fn names_unknown_architecture_and_bad_keys() {
        let err =
            ModelConfig::from_json(r#"{"model_type":"gpt2","architectures":["GPT2LMHeadModel"]}"#)
                .unwrap_err();
        assert!(err.to_string().contains("gpt2"), "{err}");
        let err = ModelConfig::from_json(
            &QWEN2_OLD.replace("\"num_key_value_heads\":2", "\"num_key_value_heads\":3"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("num_key_value_heads"), "{err}");
    }

    /// Each family's sliding windows as transformers resolves them.
    #[test]
    fn sliding_windows_per_family() {
        let base = r#""vocab_size":61,"hidden_size":32,"intermediate_size":64,"num_hidden_layers":3,
            "num_attention_heads":4"#;
        let windows = |extra: &str| {
            ModelConfig::from_json(&format!("{{{base},{extra}}}"))
                .unwrap()
                .sliding_windows
        };
        assert_eq!(
            windows(r#""model_type":"mistral","sliding_window":5"#),
            vec![Some(5); 3]
        );
        assert_eq!(
            windows(r#""model_type":"mistral","sliding_window":null"#),
            vec![None; 3]
        );
        assert_eq!(
            windows(r#""model_type":"qwen2","sliding_window":5"#),
            vec![None; 3]
        );
        let qwen = r#""model_type":"qwen2","use_sliding_window":true,"sliding_window":5,"max_window_layers":1"#;
        assert_eq!(windows(qwen), vec![None, Some(5), Some(5)]);
        let typed = format!(
            r#"{qwen},"layer_types":["sliding_attention","full_attention","full_attention"]"#
        );
        assert_eq!(windows(&typed), vec![Some(5), None, None]);
        assert_eq!(
            windows(r#""model_type":"llama","sliding_window":5"#),
            vec![None; 3]
        );
        let err = ModelConfig::from_json(&format!(
            r#"{{{base},"model_type":"llama","rope_scaling":{{"type":"su"}}}}"#
        ))
        .unwrap_err();
        assert!(err.to_string().contains("`su`"), "{err}");
    }
}
