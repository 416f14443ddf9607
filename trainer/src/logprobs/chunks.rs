//! Response-token losses computed and backpropagated chunk by chunk along the
//! response, so that the vocabulary-sized logits of only one chunk exist at a time.
//!
//! Why: the head turns `[B, C, H]` hidden states into `[B, C, V]` float logits, and
//! the log-softmax and its gradient each make another copy. At the Qwen2.5-0.5B shape
//! (V = 151,936) one row of 16K response tokens is 10 GB per copy, far more than the
//! whole model and its activations. So the trunk runs once; its hidden states are
//! detached; the head, the log-probabilities and the loss run, and are backpropagated,
//! one chunk of positions at a time (the gradient with respect to the hidden states
//! accumulates across chunks); then that accumulated gradient goes back through the
//! trunk once. The gradients are those of the unchunked loss, up to float summation
//! order (`tests` below compare them).
//!
//! No-grad passes (reference, teachers) chunk the same way in [`super::logprobs_of_hidden`].

use tch::{Kind, Tensor};

use super::{logprobs_of_hidden, response_hidden_for, PromptPass, SamplingDistribution};
use super::{span_logprobs, SequenceBatch};
use crate::model::Transformer;

/// How much float32 logits one chunk may hold. A pass whose whole response fits runs
/// unchunked, exactly as before chunking existed (so small models round as they did).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogitBudget {
    bytes: usize,
}

impl LogitBudget {
    /// The default chunk: 1 GiB of logits, about 1,700 tokens at a 152K vocabulary.
    pub const DEFAULT_MB: usize = 1024;

    /// At most `mb` MiB (at least one position per chunk, whatever the budget).
    pub fn megabytes(mb: usize) -> Self {
        Self {
            bytes: mb.saturating_mul(1 << 20),
        }
    }

    /// No chunking at all.
    pub fn unlimited() -> Self {
        Self { bytes: usize::MAX }
    }

    /// Response positions per chunk, so that `rows × positions × vocab` float32
    /// logits fit; at least 1.
    pub fn positions(&self, rows: i64, vocab: i64) -> i64 {
        let per_position = (rows.max(1) as usize)
            .saturating_mul(vocab.max(1) as usize)
            .saturating_mul(4);
        (self.bytes / per_position).clamp(1, i64::MAX as usize) as i64
    }
}

impl Default for LogitBudget {
    fn default() -> Self {
        Self::megabytes(Self::DEFAULT_MB)
    }
}

/// The `(start, len)` spans that cover `0..total` in steps of `span` (the last shorter).
pub(crate) fn spans(total: i64, span: i64) -> impl Iterator<Item = (i64, i64)> {
    let span = span.max(1);
    (0..total)
        .step_by(span as usize)
        .map(move |start| (start, span.min(total - start)))
}

/// Response positions `start..start + len` of a micro-batch.
pub struct ResponseChunk {
    /// `[B, len]` log-probabilities of the sampled tokens; gradients flow through them.
    pub logp: Tensor,
    /// `[B, len]` entropy of the distribution each token was drawn from (detached).
    pub entropy: Tensor,
    pub start: i64,
    pub len: i64,
}

impl ResponseChunk {
    /// This chunk's columns of a `[B, C]` tensor (a mask, an advantage, a reference).
    pub fn columns(&self, per_token: &Tensor) -> Tensor {
        per_token.narrow(1, self.start, self.len)
    }
}

/// What a training pass keeps for its backward pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activations {
    /// Every layer's activations (fastest).
    #[default]
    Keep,
    /// Only each layer's input; the backward pass recomputes one layer at a time
    /// (activation checkpointing: one more forward pass, for activation memory of
    /// one layer instead of all). Prompts then run once per row, not once per group.
    Recompute,
}

/// The memory settings of a training pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PassMemory {
    pub logits: LogitBudget,
    pub activations: Activations,
}

/// Backpropagates `Σ loss_of(chunk)` over `batch`'s response positions, chunk by
/// chunk within `memory`'s logit budget, under the device's autocast; gradients
/// accumulate in the model's parameters. `loss_of` gets the chunks in order and may
/// record metrics.
pub fn backward_by_chunks(
    model: &Transformer,
    batch: &SequenceBatch,
    pass: PromptPass,
    dist: SamplingDistribution,
    memory: PassMemory,
    mut loss_of: impl FnMut(&ResponseChunk) -> Tensor,
) {
    let (hidden, recomputed) = model.autocast(|| match memory.activations {
        Activations::Keep => (response_hidden_for(model, batch, pass), None),
        Activations::Recompute => {
            let ids = Tensor::cat(&[batch.prompt_ids, batch.completion_ids], 1);
            let valid = Tensor::cat(&[batch.prompt_valid, batch.completion_valid], 1);
            let trunk = model.forward_hidden_recomputed(&ids, &valid);
            let (l, c) = (batch.prompt_ids.size()[1], batch.completion_ids.size()[1]);
            (trunk.hidden.narrow(1, l - 1, c), Some(trunk))
        }
    });
    let (rows, c) = (hidden.size()[0], hidden.size()[1]);
    let span = memory.logits.positions(rows, model.vocab_size());
    if span >= c && recomputed.is_none() {
        let loss = model.autocast(|| {
            let whole = LogitBudget::unlimited();
            let (logp, entropy) =
                logprobs_of_hidden(model, &hidden, batch.completion_ids, dist, whole);
            loss_of(&ResponseChunk {
                logp,
                entropy,
                start: 0,
                len: c,
            })
        });
        loss.backward();
        return;
    }
    let detached = hidden.detach().set_requires_grad(true);
    for (start, len) in spans(c, span) {
        let loss = model.autocast(|| {
            let ids = batch.completion_ids;
            let (logp, entropy) = span_logprobs(model, &detached, ids, dist, (start, len));
            loss_of(&ResponseChunk {
                logp,
                entropy,
                start,
                len,
            })
        });
        loss.backward();
    }
    let grad = detached.grad();
    if grad.defined() {
        // d/dh Σ(h · g) = g: the trunk's backward with the accumulated gradient.
        (hidden * grad).sum(Kind::Float).backward();
    }
    if let Some(trunk) = recomputed {
        model.autocast(|| trunk.backward_layers());
    }
}

#[cfg(test)]
#[path = "chunks_tests.rs"]
mod tests;
