//! Rotary position embeddings with every `rope_type` transformers has for the Llama
//! family (`default`, `linear`, `dynamic`, `yarn`, `llama3`, `longrope`), each read
//! from `rope_scaling` (older configs) or `rope_parameters` (transformers 5) and
//! computed formula for formula as `transformers/modeling_rope_utils.py` does.
//!
//! The inverse frequencies are computed in f64 on the host and stored in f32; cos/sin
//! are built per pass from the position ids, so left-padded rows get the positions
//! their tokens really have. `dynamic` and `longrope` depend on the length of the
//! sequence a pass reaches (`max(position) + 1`), as transformers' decorator
//! `dynamic_rope_update` decides per forward call: positions already in the KV cache
//! keep the rotation they were written with, exactly as in transformers' generation.

use std::f64::consts::PI;
use std::sync::Mutex;

use serde_json::Value;
use tch::{Kind, Tensor};

/// A RoPE variant and its parameters, resolved from the config.
#[derive(Debug, Clone, PartialEq)]
pub enum RopeScaling {
    /// Plain RoPE.
    Default,
    /// Positions divided by `factor` (Kaiokendev's linear interpolation).
    Linear { factor: f64 },
    /// NTK-aware base growth once a pass reaches past `max_position_embeddings`.
    Dynamic { factor: f64 },
    /// YaRN: per-dimension blend of interpolation and extrapolation, and a scale on
    /// cos/sin (`attention_factor`).
    Yarn {
        factor: f64,
        attention_factor: f64,
        beta_fast: f64,
        beta_slow: f64,
        original_max: f64,
        truncate: bool,
    },
    /// Llama 3.1's piecewise scaling of low and medium frequencies.
    Llama3 {
        factor: f64,
        low_freq_factor: f64,
        high_freq_factor: f64,
        original_max: f64,
    },
    /// LongRoPE (Phi-3 style): per-dimension factors, `long` past `original_max`.
    LongRope {
        short_factor: Vec<f64>,
        long_factor: Vec<f64>,
        original_max: f64,
        attention_factor: f64,
    },
}

/// The resolved rotary settings of a model.
#[derive(Debug, Clone, PartialEq)]
pub struct RopeConfig {
    pub theta: f64,
    pub head_dim: i64,
    /// `max_position_embeddings` (`dynamic`'s threshold, the default of the others'
    /// `original_max_position_embeddings`).
    pub max_positions: f64,
    pub scaling: RopeScaling,
}

impl RopeConfig {
    /// Reads the RoPE keys of a config: `rope_parameters` (transformers 5) else
    /// `rope_scaling` (older), with `rope_theta` at either level. Unknown types and
    /// missing keys are errors naming the key.
    pub fn from_config(raw: &Value, head_dim: i64) -> Result<Self, String> {
        let params = [raw.get("rope_parameters"), raw.get("rope_scaling")]
            .into_iter()
            .flatten()
            .find(|v| v.is_object())
            .cloned()
            .unwrap_or(Value::Null);
        let num = |key: &str| params.get(key).and_then(Value::as_f64);
        let theta = raw
            .get("rope_theta")
            .and_then(Value::as_f64)
            .or_else(|| num("rope_theta"))
            .unwrap_or(10_000.0);
        let max_positions = raw
            .get("max_position_embeddings")
            .and_then(Value::as_f64)
            .unwrap_or(2048.0);
        if let Some(f) = num("partial_rotary_factor").filter(|&f| f != 1.0) {
            return Err(format!("`partial_rotary_factor` {f} is not supported"));
        }
        let kind = params
            .get("rope_type")
            .or_else(|| params.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("default");
        let need = |key: &str| num(key).ok_or_else(|| format!("rope `{kind}` needs `{key}`"));
        // Phi-3 keeps the pretraining length outside the rope dict; it wins there.
        let original_max = raw
            .get("original_max_position_embeddings")
            .and_then(Value::as_f64)
            .or_else(|| num("original_max_position_embeddings"))
            .unwrap_or(max_positions);
        let scaling = match kind {
            "default" => RopeScaling::Default,
            "linear" => RopeScaling::Linear {
                factor: need("factor")?,
            },
            "dynamic" => RopeScaling::Dynamic {
                factor: need("factor")?,
            },
            "llama3" => RopeScaling::Llama3 {
                factor: need("factor")?,
                low_freq_factor: need("low_freq_factor")?,
                high_freq_factor: need("high_freq_factor")?,
                original_max,
            },
            "yarn" => yarn(&params, max_positions, original_max)?,
            "longrope" => longrope(&params, max_positions, original_max, head_dim)?,
            other => return Err(format!("rope type `{other}` is not supported")),
        };
        Ok(Self {
            theta,
            head_dim,
            max_positions,
            scaling,
        })
    }

    /// `1 / θ^(2i/d)` for `i < d/2`.
    fn base_inv_freq(&self, theta: f64) -> Vec<f64> {
        let d = self.head_dim as f64;
        (0..self.head_dim / 2)
            .map(|i| 1.0 / theta.powf(2.0 * i as f64 / d))
            .collect()
    }

    /// The inverse frequencies for a pass that reaches `seq_len` positions, and the
    /// scale on cos/sin.
    pub fn inv_freq(&self, seq_len: f64) -> (Vec<f64>, f64) {
        let base = self.base_inv_freq(self.theta);
        match &self.scaling {
            RopeScaling::Default => (base, 1.0),
            RopeScaling::Linear { factor } => (base.iter().map(|f| f / factor).collect(), 1.0),
            RopeScaling::Dynamic { factor } => {
                let seq_len = seq_len.max(self.max_positions);
                let d = self.head_dim as f64;
                let grown =
                    (factor * seq_len / self.max_positions - (factor - 1.0)).powf(d / (d - 2.0));
                (self.base_inv_freq(self.theta * grown), 1.0)
            }
            RopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max,
            } => {
                let low_wavelen = original_max / low_freq_factor;
                let high_wavelen = original_max / high_freq_factor;
                let scaled = base.iter().map(|&f| {
                    let wavelen = 2.0 * PI / f;
                    if wavelen < high_wavelen {
                        f
                    } else if wavelen > low_wavelen {
                        f / factor
                    } else {
                        let smooth = (original_max / wavelen - low_freq_factor)
                            / (high_freq_factor - low_freq_factor);
                        (1.0 - smooth) * f / factor + smooth * f
                    }
                });
                (scaled.collect(), 1.0)
            }
            RopeScaling::Yarn { .. } => self.yarn_inv_freq(&base),
            RopeScaling::LongRope {
                short_factor,
                long_factor,
                original_max,
                attention_factor,
            } => {
                let ext = if seq_len > *original_max {
                    long_factor
                } else {
                    short_factor
                };
                let freqs: Vec<f64> = base.iter().zip(ext).map(|(f, e)| f / e).collect();
                (freqs, *attention_factor)
            }
        }
    }

    fn yarn_inv_freq(&self, base: &[f64]) -> (Vec<f64>, f64) {
        let RopeScaling::Yarn {
            factor,
            attention_factor,
            beta_fast,
            beta_slow,
            original_max,
            truncate,
        } = &self.scaling
        else {
            unreachable!("yarn_inv_freq is called for yarn only")
        };
        let d = self.head_dim as f64;
        let correction = |rotations: f64| {
            d * (original_max / (rotations * 2.0 * PI)).ln() / (2.0 * self.theta.ln())
        };
        let (mut low, mut high) = (correction(*beta_fast), correction(*beta_slow));
        if *truncate {
            (low, high) = (low.floor(), high.ceil());
        }
        let (low, mut high) = (low.max(0.0), high.min(d - 1.0));
        if low == high {
            high += 0.001; // transformers' guard against a zero-width ramp
        }
        let freqs = base
            .iter()
            .enumerate()
            .map(|(i, &extrapolation)| {
                let ramp = ((i as f64 - low) / (high - low)).clamp(0.0, 1.0);
                let keep = 1.0 - ramp;
                extrapolation / factor * (1.0 - keep) + extrapolation * keep
            })
            .collect();
        (freqs, *attention_factor)
    }

    /// Whether the frequencies depend on how far a pass reaches.
    fn depends_on_length(&self) -> bool {
        matches!(
            self.scaling,
            RopeScaling::Dynamic { .. } | RopeScaling::LongRope { .. }
        )
    }
}

/// YaRN's settings; `factor` defaults to `max / original`, and the attention factor
/// to `0.1·ln(factor) + 1` (or the `mscale` ratio when both mscales are given).
fn yarn(params: &Value, max_positions: f64, original_max: f64) -> Result<RopeScaling, String> {
    let num = |key: &str| params.get(key).and_then(Value::as_f64);
    let factor = num("factor").unwrap_or(max_positions / original_max);
    let get_mscale = |scale: f64, m: f64| {
        if scale <= 1.0 {
            1.0
        } else {
            0.1 * m * scale.ln() + 1.0
        }
    };
    let attention_factor = match (
        num("attention_factor"),
        num("mscale").filter(|&m| m != 0.0),
        num("mscale_all_dim").filter(|&m| m != 0.0),
    ) {
        (Some(a), _, _) => a,
        (None, Some(m), Some(all)) => get_mscale(factor, m) / get_mscale(factor, all),
        _ => get_mscale(factor, 1.0),
    };
    // `or` as in transformers: a 0 (falsy) beta takes the default too.
    let beta = |key: &str, default: f64| num(key).filter(|&b| b != 0.0).unwrap_or(default);
    Ok(RopeScaling::Yarn {
        factor,
        attention_factor,
        beta_fast: beta("beta_fast", 32.0),
        beta_slow: beta("beta_slow", 1.0),
        original_max,
        truncate: params
            .get("truncate")
            .and_then(Value::as_bool)
            .unwrap_or(true),
    })
}

/// LongRoPE's settings; the attention factor defaults to
/// `sqrt(1 + ln(factor) / ln(original))`, 1 when the factor is at most 1.
fn longrope(
    params: &Value,
    max_positions: f64,
    original_max: f64,
    head_dim: i64,
) -> Result<RopeScaling, String> {
    let list = |key: &str| -> Result<Vec<f64>, String> {
        let v: Vec<f64> = params
            .get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .ok_or_else(|| format!("rope `longrope` needs `{key}`"))?;
        if v.len() as i64 != head_dim / 2 {
            return Err(format!(
                "rope `longrope`: `{key}` has {} values, expected head_dim/2 = {}",
                v.len(),
                head_dim / 2
            ));
        }
        Ok(v)
    };
    let factor = params
        .get("factor")
        .and_then(Value::as_f64)
        .unwrap_or(max_positions / original_max);
    let attention_factor = match params.get("attention_factor").and_then(Value::as_f64) {
        Some(a) => a,
        None if factor <= 1.0 => 1.0,
        None => (1.0 + factor.ln() / original_max.ln()).sqrt(),
    };
    Ok(RopeScaling::LongRope {
        short_factor: list("short_factor")?,
        long_factor: list("long_factor")?,
        original_max,
        attention_factor,
    })
}

/// The rotary tables of a model on a device.
pub struct Rope {
    config: RopeConfig,
    /// Frequencies for passes whose length does not change them.
    inv_freq: Tensor,
    scale: f64,
    device: tch::Device,
    /// `(cos, sin)` of positions `0..P`, `[P, head_dim]` float32, grown by doubling
    /// as longer passes come: a pass then gathers its rows instead of recomputing
    /// the trigonometry every layer pass (every decoding step).
    table: Mutex<Option<(Tensor, Tensor)>>,
}

impl Rope {
    pub fn new(config: &RopeConfig, device: tch::Device) -> Self {
        let (freqs, scale) = config.inv_freq(0.0);
        Self {
            inv_freq: freq_tensor(&freqs, device),
            scale,
            config: config.clone(),
            device,
            table: Mutex::new(None),
        }
    }

    /// `(cos, sin)`, each `[B, 1, T, head_dim]`, for position ids `[B, T]`, all of
    /// them below `bound` (the pass's key length bounds them: positions count real
    /// tokens only).
    pub fn cos_sin(&self, positions: &Tensor, bound: i64, kind: Kind) -> (Tensor, Tensor) {
        if self.config.depends_on_length() {
            // The frequencies depend on the longest position: no table can serve.
            return self.computed(positions, kind);
        }
        let (cos, sin) = self.table_covering(bound);
        let (b, t) = (positions.size()[0], positions.size()[1]);
        let flat = positions.reshape([-1]);
        let pick = |table: &Tensor| {
            table
                .index_select(0, &flat)
                .view([b, 1, t, -1])
                .to_kind(kind)
        };
        (pick(&cos), pick(&sin))
    }

    /// The table, grown to at least `bound` positions.
    fn table_covering(&self, bound: i64) -> (Tensor, Tensor) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let have = table.as_ref().map_or(0, |(cos, _)| cos.size()[0]);
        if have < bound {
            let len = bound.max(2 * have).max(256);
            let positions = Tensor::arange(len, (Kind::Int64, self.device)).view([1, len]);
            let (cos, sin) = self.computed(&positions, Kind::Float);
            *table = Some((cos.view([len, -1]), sin.view([len, -1])));
        }
        let (cos, sin) = table.as_ref().expect("filled above");
        (cos.shallow_clone(), sin.shallow_clone())
    }

    /// `(cos, sin)` computed from the frequencies for `positions` `[B, T]`.
    fn computed(&self, positions: &Tensor, kind: Kind) -> (Tensor, Tensor) {
        let (inv_freq, scale) = if self.config.depends_on_length() && positions.numel() > 0 {
            let seq_len = i64::try_from(positions.max()).unwrap_or(0) + 1;
            let (freqs, scale) = self.config.inv_freq(seq_len as f64);
            (freq_tensor(&freqs, self.device), scale)
        } else {
            (self.inv_freq.shallow_clone(), self.scale)
        };
        let freqs = positions.to_kind(Kind::Float).unsqueeze(-1) * inv_freq.view([1, 1, -1]);
        let emb = Tensor::cat(&[&freqs, &freqs], -1).unsqueeze(1);
        let (cos, sin) = (emb.cos(), emb.sin());
        let (cos, sin) = if scale == 1.0 {
            (cos, sin)
        } else {
            (cos * scale, sin * scale)
        };
        (cos.to_kind(kind), sin.to_kind(kind))
    }
}

fn freq_tensor(freqs: &[f64], device: tch::Device) -> Tensor {
    Tensor::from_slice(freqs)
        .to_kind(Kind::Float)
        .to_device(device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rope(params: Value) -> RopeConfig {
        let raw = json!({"rope_theta": 10000.0, "max_position_embeddings": 64,
                         "rope_scaling": params});
        RopeConfig::from_config(&raw, 8).expect("rope")
    }

    /// Llama 3.1's published constants keep high frequencies and divide low ones by
    /// the factor.
    #[test]
    fn llama3_keeps_high_and_divides_low_frequencies() {
        let r = rope(
            json!({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                            "high_freq_factor": 4.0, "original_max_position_embeddings": 32}),
        );
        let (base, _) = rope(json!(null)).inv_freq(0.0);
        let (got, scale) = r.inv_freq(0.0);
        assert_eq!(scale, 1.0);
        assert_eq!(got[0], base[0]); // wavelength 2π < 32/4
        assert!((got[3] - base[3] / 8.0).abs() < 1e-15); // wavelength ≈ 6283 > 32
    }

    #[test]
    fn dynamic_grows_the_base_only_past_the_maximum() {
        let r = rope(json!({"type": "dynamic", "factor": 2.0}));
        let (plain, _) = rope(json!({"rope_type": "default"})).inv_freq(0.0);
        assert_eq!(r.inv_freq(64.0).0, plain);
        assert!(r.inv_freq(128.0).0[1] < plain[1]);
    }

    #[test]
    fn unknown_types_and_missing_keys_are_named() {
        let raw = json!({"rope_scaling": {"rope_type": "mrope"}});
        let err = RopeConfig::from_config(&raw, 8).unwrap_err();
        assert!(err.contains("mrope"), "{err}");
        let raw = json!({"rope_scaling": {"rope_type": "linear"}});
        let err = RopeConfig::from_config(&raw, 8).unwrap_err();
        assert!(err.contains("factor"), "{err}");
    }
}
