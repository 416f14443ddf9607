//! The key/value cache used during generation: per layer, the keys and values of
//! every position seen so far, plus which of those positions are real (not padding)
//! and the token position of each.
//!
//! Every cached tensor lives in a buffer allocated ahead ([`Grown`]): a decoding step
//! writes its one column in place, and attention reads a view of the filled part.
//! Concatenating instead would copy the whole cache on every step (O(S²) bytes per
//! sequence) and churn the allocator. The buffer doubles when full, so callers that
//! do not know the final length still pay O(S) in all; [`KvCache::reserve`] sizes it
//! exactly when they do. Keys and values are kept in the dtype attention computes in
//! (bf16 under autocast), not the float32 parameter dtype.

use tch::{Kind, Tensor};

/// A tensor that grows along `dim`, held in a larger buffer.
struct Grown {
    buffer: Option<Tensor>,
    len: i64,
    dim: i64,
    /// Capacity to allocate (at least) at the next growth.
    reserve: i64,
}

impl Grown {
    fn new(dim: i64) -> Self {
        Self {
            buffer: None,
            len: 0,
            dim,
            reserve: 0,
        }
    }

    fn capacity(&self) -> i64 {
        self.buffer
            .as_ref()
            .map_or(0, |b| b.size()[self.dim as usize])
    }

    /// Writes `x` after the filled part (growing the buffer if needed) and returns a
    /// view of everything filled.
    fn append(&mut self, x: &Tensor) -> Tensor {
        let t = x.size()[self.dim as usize];
        let needed = self.len + t;
        if x.requires_grad() {
            // A pass that backpropagates into the cache (a shared prompt's keys): its
            // attention keeps the views it read, so they must never be written over.
            let all = match self.filled() {
                Some(old) => Tensor::cat(&[&old, x], self.dim),
                None => x.shallow_clone(),
            };
            self.buffer = Some(all.shallow_clone());
            self.len = needed;
            return all;
        }
        if needed > self.capacity() {
            self.grow(x, needed.max(self.reserve).max(2 * self.capacity()));
        }
        let buffer = self.buffer.as_ref().expect("grown above");
        buffer.narrow(self.dim, self.len, t).copy_(x);
        self.len = needed;
        buffer.narrow(self.dim, 0, self.len)
    }

    /// Moves the filled part into a new buffer of `capacity` shaped like `like`.
    fn grow(&mut self, like: &Tensor, capacity: i64) {
        let mut shape = like.size();
        shape[self.dim as usize] = capacity;
        let fresh = Tensor::empty(shape.as_slice(), (like.kind(), like.device()));
        if let Some(old) = &self.buffer {
            fresh
                .narrow(self.dim, 0, self.len)
                .copy_(&old.narrow(self.dim, 0, self.len));
        }
        self.buffer = Some(fresh);
    }

    fn filled(&self) -> Option<Tensor> {
        // A full buffer is returned as itself: a `narrow` would add a node to the
        // graph of a pass that backpropagates into the cache, and with it change the
        // order autograd sums gradients in (and the float path).
        self.buffer
            .as_ref()
            .map(|b| match self.len == self.capacity() {
                true => b.shallow_clone(),
                false => b.narrow(self.dim, 0, self.len),
            })
    }

    /// Applies a row operation to the whole buffer, so its capacity is kept.
    fn map_rows(&mut self, f: impl Fn(&Tensor) -> Tensor) {
        if let Some(buffer) = &self.buffer {
            self.buffer = Some(f(buffer));
        }
    }
}

/// One layer's cached keys and values, `[B, kv_heads, S, head_dim]`.
pub struct LayerCache {
    keys: Grown,
    values: Grown,
}

impl Default for LayerCache {
    fn default() -> Self {
        Self {
            keys: Grown::new(2),
            values: Grown::new(2),
        }
    }
}

impl LayerCache {
    /// Appends this step's keys/values (cast to `kind`, the dtype attention computes
    /// in) and returns all of them.
    pub fn append(&mut self, k: &Tensor, v: &Tensor, kind: Kind) -> (Tensor, Tensor) {
        (
            self.keys.append(&k.to_kind(kind)),
            self.values.append(&v.to_kind(kind)),
        )
    }

    fn map_rows(&mut self, f: impl Fn(&Tensor) -> Tensor + Copy) {
        self.keys.map_rows(f);
        self.values.map_rows(f);
    }

    fn reserve(&mut self, capacity: i64) {
        self.keys.reserve = capacity;
        self.values.reserve = capacity;
    }
}

/// The whole model's cache, plus per position whether it is real and its token
/// position, and per row how many real tokens it holds.
pub struct KvCache {
    pub layers: Vec<LayerCache>,
    /// `[B, S]`, false at padding.
    key_valid: Grown,
    /// `[B, S]` int64 token positions (only kept for sliding-window attention).
    key_positions: Grown,
    /// `[B]` int64: real tokens cached per row (the next token's position).
    real_tokens: Option<Tensor>,
}

impl KvCache {
    pub fn new(num_layers: usize) -> Self {
        Self {
            layers: (0..num_layers).map(|_| LayerCache::default()).collect(),
            key_valid: Grown::new(1),
            key_positions: Grown::new(1),
            real_tokens: None,
        }
    }

    /// How many positions are cached.
    pub fn len(&self) -> i64 {
        self.key_valid.len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for `more` positions beyond those cached, so that many appends
    /// never reallocate.
    pub fn reserve(&mut self, more: i64) {
        let capacity = self.len() + more.max(0);
        for layer in &mut self.layers {
            layer.reserve(capacity);
        }
        self.key_valid.reserve = capacity;
        self.key_positions.reserve = capacity;
    }

    /// Real tokens per row so far, `[B]` (`None` before the first pass).
    pub fn real_tokens(&self) -> Option<&Tensor> {
        self.real_tokens.as_ref()
    }

    /// Records a pass's new positions: their validity `[B, T]`, their token positions
    /// (kept only when `keep_positions`), and returns the validity and positions of
    /// every cached position, `[B, S]` (positions `None` unless kept).
    pub(crate) fn push_positions(
        &mut self,
        valid: &Tensor,
        positions: &Tensor,
        keep_positions: bool,
    ) -> (Tensor, Option<Tensor>) {
        let counts = valid
            .to_kind(Kind::Int64)
            .sum_dim_intlist(1, false, Kind::Int64);
        self.real_tokens = Some(match &self.real_tokens {
            Some(prev) => prev + counts,
            None => counts,
        });
        let all_positions = keep_positions.then(|| self.key_positions.append(positions));
        (self.key_valid.append(valid), all_positions)
    }

    fn map_rows(&mut self, f: impl Fn(&Tensor) -> Tensor + Copy) {
        for layer in &mut self.layers {
            layer.map_rows(f);
        }
        self.key_valid.map_rows(f);
        self.key_positions.map_rows(f);
        if let Some(real) = &self.real_tokens {
            self.real_tokens = Some(f(real));
        }
    }

    /// Keeps rows `rows` (a `[b]` index tensor), in that order: finished rows dropped
    /// from a decoding batch.
    pub fn select_rows(&mut self, rows: &Tensor) {
        self.map_rows(|t| t.index_select(0, rows));
    }

    /// Repeats every row `n` times: a prompt's cache shared by its whole group.
    pub fn repeat_rows(&mut self, n: i64) {
        self.map_rows(|t| t.repeat_interleave_self_int(n, 0, None));
    }
}
