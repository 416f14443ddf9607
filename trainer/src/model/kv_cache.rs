//! The key/value cache used during generation: per layer, the keys and values of
//! every position seen so far, plus which of those positions are real (not padding).

use tch::Tensor;

/// One layer's cached keys and values, `[B, kv_heads, S, head_dim]`.
#[derive(Default)]
pub struct LayerCache {
    keys: Option<Tensor>,
    values: Option<Tensor>,
}

impl LayerCache {
    /// Appends this step's keys/values and returns all of them.
    pub fn append(&mut self, k: Tensor, v: Tensor) -> (Tensor, Tensor) {
        let k = match &self.keys {
            Some(old) => Tensor::cat(&[old, &k], 2),
            None => k,
        };
        let v = match &self.values {
            Some(old) => Tensor::cat(&[old, &v], 2),
            None => v,
        };
        self.keys = Some(k.shallow_clone());
        self.values = Some(v.shallow_clone());
        (k, v)
    }

    /// Repeats every row `n` times in place (`[a, b]` → `[a, a, b, b]` for `n = 2`).
    pub fn repeat_rows(&mut self, n: i64) {
        for t in [&mut self.keys, &mut self.values].into_iter().flatten() {
            *t = t.repeat_interleave_self_int(n, 0, None);
        }
    }

    /// Keeps rows `rows` (a `[b]` index tensor), in that order.
    pub fn select_rows(&mut self, rows: &Tensor) {
        for t in [&mut self.keys, &mut self.values].into_iter().flatten() {
            *t = t.index_select(0, rows);
        }
    }
}

/// The whole model's cache plus the key-validity mask `[B, S]` (false = padding).
pub struct KvCache {
    pub layers: Vec<LayerCache>,
    pub key_valid: Option<Tensor>,
}

impl KvCache {
    pub fn new(num_layers: usize) -> Self {
        Self {
            layers: (0..num_layers).map(|_| LayerCache::default()).collect(),
            key_valid: None,
        }
    }

    /// How many positions are cached.
    pub fn len(&self) -> i64 {
        self.key_valid.as_ref().map_or(0, |m| m.size()[1])
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps rows `rows` (a `[b]` index tensor), in that order: finished rows dropped
    /// from a decoding batch.
    pub fn select_rows(&mut self, rows: &Tensor) {
        for layer in &mut self.layers {
            layer.select_rows(rows);
        }
        if let Some(valid) = &self.key_valid {
            self.key_valid = Some(valid.index_select(0, rows));
        }
    }

    /// Repeats every row `n` times: a prompt's cache shared by its whole group.
    pub fn repeat_rows(&mut self, n: i64) {
        for layer in &mut self.layers {
            layer.repeat_rows(n);
        }
        if let Some(valid) = &self.key_valid {
            self.key_valid = Some(valid.repeat_interleave_self_int(n, 0, None));
        }
    }
}
