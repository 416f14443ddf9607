//! Log-probabilities of a batch's response tokens under a model, the quantity every
//! loss here is built on: prompt and response are run together in one forward pass
//! and only the response positions go through the (vocabulary-sized) head.
//!
//! Every pass can read the model at a [`SamplingDistribution`]: the distribution
//! the sampler drew the tokens from (`softmax(z / T)`, restricted to the top-p
//! nucleus and renormalised). Strictly on-policy training must differentiate that
//! distribution, not the model's `softmax(z)`, or its gradient is off-policy with no
//! correction (NeMo-RL divides the training logits by T and applies the same top-p
//! filter; TRL divides by T).

mod chunks;

pub use chunks::{backward_by_chunks, Activations, LogitBudget, PassMemory, ResponseChunk};

use tch::{Kind, Tensor};

use crate::model::Transformer;
use crate::sampling::{nucleus_drop_mask, SamplingParams};

/// The distribution sampled tokens come from: `softmax(z / temperature)`, keeping the
/// top-p nucleus. Greedy sampling (`temperature` ≤ 0) records the model's own
/// log-probabilities, so it reads as [`SamplingDistribution::MODEL`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplingDistribution {
    pub temperature: f64,
    pub top_p: f64,
}

impl SamplingDistribution {
    /// The model as is: temperature 1, no nucleus.
    pub const MODEL: Self = Self {
        temperature: 1.0,
        top_p: 1.0,
    };

    /// The distribution [`crate::sampling::generate`] draws from with `params`.
    pub fn of(params: &SamplingParams) -> Self {
        if params.temperature <= 0.0 {
            Self::MODEL
        } else {
            Self {
                temperature: params.temperature,
                top_p: params.top_p,
            }
        }
    }

    fn is_model(&self) -> bool {
        (self.temperature <= 0.0 || self.temperature == 1.0) && self.top_p >= 1.0
    }
}

/// Rows of prompt + response, as the trainer feeds them to a model.
pub struct SequenceBatch<'a> {
    /// `[B, L]` left-padded prompt ids and their validity.
    pub prompt_ids: &'a Tensor,
    pub prompt_valid: &'a Tensor,
    /// `[B, C]` response ids and validity (false after the response ended).
    pub completion_ids: &'a Tensor,
    pub completion_valid: &'a Tensor,
}

impl SequenceBatch<'_> {
    /// Rows `start..start+len` of every tensor, as owned handles.
    pub fn rows(&self, start: i64, len: i64) -> OwnedSequenceBatch {
        OwnedSequenceBatch {
            prompt_ids: self.prompt_ids.narrow(0, start, len),
            prompt_valid: self.prompt_valid.narrow(0, start, len),
            completion_ids: self.completion_ids.narrow(0, start, len),
            completion_valid: self.completion_valid.narrow(0, start, len),
        }
    }
}

impl SequenceBatch<'_> {
    /// Rows `rows` (in that order), trimmed to the columns they use: the prompt
    /// columns left of every row's prompt and the response columns after every
    /// row's end are dropped. Positions count real tokens and attention skips
    /// padding, so every row computes what it computes in the whole batch; response
    /// column `j` stays column `j` (only the right end is cut).
    pub fn select_trimmed(&self, rows: &[i64]) -> OwnedSequenceBatch {
        let idx = Tensor::from_slice(rows).to_device(self.prompt_ids.device());
        let pick = |t: &Tensor| t.index_select(0, &idx);
        let (prompt_ids, prompt_valid) = (pick(self.prompt_ids), pick(self.prompt_valid));
        let (completion_ids, completion_valid) =
            (pick(self.completion_ids), pick(self.completion_valid));
        let used = |valid: &Tensor| -> Vec<bool> {
            Vec::try_from(valid.any_dim(0, false)).unwrap_or_default()
        };
        let prompt_used = used(&prompt_valid);
        let first = prompt_used
            .iter()
            .position(|u| *u)
            .unwrap_or(0)
            .min(prompt_used.len().saturating_sub(1)) as i64;
        let width = prompt_used.len() as i64 - first;
        let response_used = used(&completion_valid);
        let end = response_used
            .iter()
            .rposition(|u| *u)
            .map_or(1, |last| last + 1) as i64;
        let end = end.min(response_used.len() as i64);
        OwnedSequenceBatch {
            prompt_ids: prompt_ids.narrow(1, first, width),
            prompt_valid: prompt_valid.narrow(1, first, width),
            completion_ids: completion_ids.narrow(1, 0, end),
            completion_valid: completion_valid.narrow(1, 0, end),
        }
    }
}

/// How a pass splits a batch's rows into micro-batches (one forward and backward
/// each): the recipes' `micro_batch` (rows) or `micro_batch_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MicroBatching {
    /// At most this many rows each (0 counts as 1).
    Rows(usize),
    /// At most this many tokens each, padding included: rows × the longest row's
    /// prompt plus response, once trimmed ([`SequenceBatch::select_trimmed`]). A unit
    /// of rows longer than that alone is a micro-batch by itself.
    Tokens(usize),
}

impl MicroBatching {
    /// Whether `unit` consecutive rows (a group sharing its prompt) can stay together
    /// in every micro-batch, given each row's `lengths`.
    pub fn keeps_units(&self, lengths: &[usize], unit: usize) -> bool {
        let unit = unit.max(1);
        match *self {
            MicroBatching::Rows(rows) => rows.max(1).is_multiple_of(unit),
            MicroBatching::Tokens(budget) => lengths
                .chunks(unit)
                .all(|g| g.len() * g.iter().copied().max().unwrap_or(0) <= budget),
        }
    }
}

/// Micro-batches over rows of `lengths` (each row's prompt plus response tokens),
/// bucketed by length: units of `unit` consecutive rows (a group that shares its
/// prompt) are sorted longest first and cut as `micro` says, so each micro-batch holds
/// rows of similar length and pads little once trimmed
/// ([`SequenceBatch::select_trimmed`]). A batch that fits in one micro-batch stays
/// one, in its order.
pub fn bucketed_micro_batches(
    lengths: &[usize],
    unit: usize,
    micro: MicroBatching,
) -> Vec<Vec<i64>> {
    let n = lengths.len();
    let unit = unit.max(1);
    let longest = lengths.iter().copied().max().unwrap_or(0);
    let fits_one = match micro {
        MicroBatching::Rows(rows) => rows.max(1) >= n,
        MicroBatching::Tokens(budget) => n * longest <= budget,
    };
    if fits_one || !n.is_multiple_of(unit) {
        let rows = match micro {
            MicroBatching::Rows(rows) => rows,
            MicroBatching::Tokens(_) if fits_one => n,
            MicroBatching::Tokens(_) => 1,
        };
        return micro_batches(n as i64, rows)
            .map(|(start, len)| (start..start + len).collect())
            .collect();
    }
    let unit_len = |u: usize| {
        lengths[u * unit..(u + 1) * unit]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    };
    let mut units: Vec<usize> = (0..n / unit).collect();
    units.sort_by_key(|&u| std::cmp::Reverse(unit_len(u)));
    let cut: Vec<Vec<usize>> = match micro {
        MicroBatching::Rows(rows) => units
            .chunks((rows.max(1) / unit).max(1))
            .map(<[usize]>::to_vec)
            .collect(),
        MicroBatching::Tokens(budget) => fill_by_tokens(&units, unit, budget, unit_len),
    };
    cut.into_iter()
        .map(|batch| {
            batch
                .iter()
                .flat_map(|&u| (u * unit..(u + 1) * unit).map(|r| r as i64))
                .collect()
        })
        .collect()
}

/// `units` (longest first) cut in order into runs whose rows × longest length stays
/// within `budget`; a unit over it alone is a run.
fn fill_by_tokens(
    units: &[usize],
    unit: usize,
    budget: usize,
    unit_len: impl Fn(usize) -> usize,
) -> Vec<Vec<usize>> {
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &u in units {
        match runs.last_mut() {
            // Sorted longest first: a run's first unit is its longest.
            Some(run) if (run.len() + 1) * unit * unit_len(run[0]) <= budget => run.push(u),
            _ => runs.push(vec![u]),
        }
    }
    runs
}

/// A row slice of a [`SequenceBatch`].
pub struct OwnedSequenceBatch {
    pub prompt_ids: Tensor,
    pub prompt_valid: Tensor,
    pub completion_ids: Tensor,
    pub completion_valid: Tensor,
}

impl OwnedSequenceBatch {
    /// Prompt plus response tokens that are not padding (what a training pass runs on,
    /// for tokens/s).
    pub fn valid_tokens(&self) -> f64 {
        f64::try_from(self.prompt_valid.sum(Kind::Float) + self.completion_valid.sum(Kind::Float))
            .unwrap_or(0.0)
    }

    pub fn view(&self) -> SequenceBatch<'_> {
        SequenceBatch {
            prompt_ids: &self.prompt_ids,
            prompt_valid: &self.prompt_valid,
            completion_ids: &self.completion_ids,
            completion_valid: &self.completion_valid,
        }
    }
}

/// The `(start, len)` row ranges that split `rows` rows into micro-batches of `micro`
/// rows in order (the last one shorter; `micro` 0 counts as 1).
fn micro_batches(rows: i64, micro: usize) -> impl Iterator<Item = (i64, i64)> {
    let micro = micro.max(1) as i64;
    (0..rows)
        .step_by(micro as usize)
        .map(move |start| (start, micro.min(rows - start)))
}

/// A frozen model's pass over `batch` (reference model, MOPD teacher): `logprobs` on
/// each micro-batch (bucketed by length as `micro` says), without gradients and under
/// `model`'s autocast, the results put back in row order as `[B, C]`. Columns past a
/// trimmed micro-batch's longest response are 0: no row there has a response token.
pub fn frozen_pass(
    batch: &SequenceBatch,
    micro: MicroBatching,
    model: &Transformer,
    logprobs: impl Fn(&SequenceBatch) -> Tensor,
) -> Tensor {
    let lengths = batch_lengths(batch);
    let parts = bucketed_micro_batches(&lengths, 1, micro);
    tch::no_grad(|| {
        if parts.len() == 1 {
            // One micro-batch in order: the batch as it is, untrimmed.
            return model.autocast(|| logprobs(batch));
        }
        let (rows, width) = (lengths.len() as i64, batch.completion_ids.size()[1]);
        let device = batch.completion_ids.device();
        let out = Tensor::zeros([rows, width], (Kind::Float, device));
        for part_rows in parts {
            let part = batch.select_trimmed(&part_rows);
            let lp = model
                .autocast(|| logprobs(&part.view()))
                .to_kind(Kind::Float);
            let padded = lp.constant_pad_nd([0, width - lp.size()[1]]);
            let idx = Tensor::from_slice(&part_rows).to_device(device);
            let _ = out.shallow_clone().index_copy_(0, &idx, &padded);
        }
        out
    })
}

/// Each row's prompt plus response tokens (not padding).
pub fn batch_lengths(batch: &SequenceBatch) -> Vec<usize> {
    let count = |t: &Tensor| t.sum_dim_intlist(1, false, Kind::Int64);
    let total = count(batch.prompt_valid) + count(batch.completion_valid);
    Vec::<i64>::try_from(total)
        .unwrap_or_default()
        .into_iter()
        .map(|n| n.max(0) as usize)
        .collect()
}

/// `(logp [B, C], entropy [B, C])`: the log-probability of each response token and
/// the entropy of the distribution it was drawn from (detached; for metrics).
/// Gradients flow through `logp` when the model's parameters require them.
pub fn token_logprobs(model: &Transformer, batch: &SequenceBatch) -> (Tensor, Tensor) {
    token_logprobs_at(model, batch, SamplingDistribution::MODEL)
}

/// [`token_logprobs`] under the sampling distribution `dist` (entropy included).
pub fn token_logprobs_at(
    model: &Transformer,
    batch: &SequenceBatch,
    dist: SamplingDistribution,
) -> (Tensor, Tensor) {
    token_logprobs_of_pass(model, batch, PromptPass::PerRow, dist)
}

/// `(logp, entropy)` of `batch`'s response tokens at `dist`, the prompts run as
/// `pass` says, the head within the default [`LogitBudget`].
fn token_logprobs_of_pass(
    model: &Transformer,
    batch: &SequenceBatch,
    pass: PromptPass,
    dist: SamplingDistribution,
) -> (Tensor, Tensor) {
    let hidden = response_hidden_for(model, batch, pass);
    let ids = batch.completion_ids;
    logprobs_of_hidden(model, &hidden, ids, dist, LogitBudget::default())
}

/// How a pass runs the prompts of its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptPass {
    /// Each row's prompt and response together.
    PerRow,
    /// Rows come in groups of this many sharing one prompt (as GRPO samples them),
    /// and each prompt runs once (see [`token_logprobs_grouped`]). Falls back to
    /// [`PromptPass::PerRow`] when the rows do not split into whole groups.
    SharedByGroup(i64),
}

/// The hidden states that predict the response tokens, `[B, C, H]`, run as `pass`
/// says.
pub(crate) fn response_hidden_for(
    model: &Transformer,
    batch: &SequenceBatch,
    pass: PromptPass,
) -> Tensor {
    let rows = batch.prompt_ids.size()[0];
    match pass {
        PromptPass::SharedByGroup(group) if group > 1 && rows % group == 0 => {
            grouped_response_hidden(model, batch, group)
        }
        _ => response_hidden(model, batch),
    }
}

/// `(logp, entropy)` of the tokens `ids` `[B, C]` from the hidden states `[B, C, H]`
/// that predict them, read at `dist`; the head runs on at most `budget`'s worth of
/// positions at a time and the results are joined. With gradients on, every chunk's
/// graph stays alive until the backward pass: training passes that must not hold all
/// the logits use [`backward_by_chunks`] instead.
pub(crate) fn logprobs_of_hidden(
    model: &Transformer,
    hidden: &Tensor,
    ids: &Tensor,
    dist: SamplingDistribution,
    budget: LogitBudget,
) -> (Tensor, Tensor) {
    let (rows, c) = (hidden.size()[0], hidden.size()[1]);
    let span = budget.positions(rows, model.vocab_size());
    if span >= c {
        let logits = model.logits(hidden).to_kind(Kind::Float);
        return sampled_logprobs(&logits, ids, dist);
    }
    let (logp, entropy): (Vec<Tensor>, Vec<Tensor>) = chunks::spans(c, span)
        .map(|(start, len)| span_logprobs(model, hidden, ids, dist, (start, len)))
        .unzip();
    (Tensor::cat(&logp, 1), Tensor::cat(&entropy, 1))
}

/// [`logprobs_of_hidden`] of response positions `start..start + len` only.
pub(crate) fn span_logprobs(
    model: &Transformer,
    hidden: &Tensor,
    ids: &Tensor,
    dist: SamplingDistribution,
    (start, len): (i64, i64),
) -> (Tensor, Tensor) {
    let logits = model
        .logits(&hidden.narrow(1, start, len))
        .to_kind(Kind::Float);
    sampled_logprobs(&logits, &ids.narrow(1, start, len), dist)
}

/// The hidden states at the positions that predict the response tokens, `[B, C, H]`.
pub(crate) fn response_hidden(model: &Transformer, batch: &SequenceBatch) -> Tensor {
    let l = batch.prompt_ids.size()[1];
    let c = batch.completion_ids.size()[1];
    let ids = Tensor::cat(&[batch.prompt_ids, batch.completion_ids], 1);
    let valid = Tensor::cat(&[batch.prompt_valid, batch.completion_valid], 1);
    let hidden = model.forward_hidden(&ids, &valid, None);
    // Position t predicts token t+1: positions L-1 .. L+C-2 predict the response.
    // (The last position's pass is wasted; the grouped path below, which GRPO trains
    // with, skips it. This one keeps it so its rounding, and the supervised warm-ups
    // and MOPD runs built on it, stay exactly as they were.)
    hidden.narrow(1, l - 1, c)
}

/// `(logp, entropy)` of the tokens `ids` `[B, C]` under float `logits` `[B, C, V]`
/// read at `dist`: the log-probability of each token, and the entropy of the
/// distribution it was drawn from (detached; for metrics).
pub(crate) fn sampled_logprobs(
    logits: &Tensor,
    ids: &Tensor,
    dist: SamplingDistribution,
) -> (Tensor, Tensor) {
    if dist.is_model() {
        // Exactly the untempered operations, so T = 1 runs round as they always have.
        return gather_with_entropy(&logits.log_softmax(-1, Kind::Float), ids, None);
    }
    // The sampler's own operations (`sampling::sample_next`), in the same order, so
    // the recorded and the trained log-probabilities round alike.
    let tempered = (logits / dist.temperature).log_softmax(-1, Kind::Float);
    if dist.top_p >= 1.0 {
        return gather_with_entropy(&tempered, ids, None);
    }
    // The nucleus is a choice made from the detached distribution (no gradient flows
    // through which tokens are in it); the gradient flows through the renormalised
    // log-probabilities of the kept ones. The sampled token is always kept: should
    // rounding put it just outside the training pass's nucleus, it would otherwise
    // get −∞ (NeMo-RL masks such tokens out of the loss instead).
    let drop = tch::no_grad(|| {
        nucleus_drop_mask(&tempered.detach(), dist.top_p).scatter_value(-1, &ids.unsqueeze(-1), 0)
    });
    let nucleus = tempered
        .masked_fill(&drop, f64::NEG_INFINITY)
        .log_softmax(-1, Kind::Float);
    gather_with_entropy(&nucleus, ids, Some(&drop))
}

/// Gathers `ids` from `logp_all`; the entropy skips the `dropped` (−∞) entries, whose
/// `0 · −∞` would be NaN.
fn gather_with_entropy(
    logp_all: &Tensor,
    ids: &Tensor,
    dropped: Option<&Tensor>,
) -> (Tensor, Tensor) {
    let logp = logp_all
        .gather(-1, &ids.unsqueeze(-1), false)
        .squeeze_dim(-1);
    let entropy = tch::no_grad(|| {
        let finite = match dropped {
            Some(d) => logp_all.masked_fill(d, 0.0),
            None => logp_all.shallow_clone(),
        };
        -(finite.exp() * &finite).sum_dim_intlist(-1, false, Kind::Float)
    });
    (logp, entropy)
}

/// The same as [`token_logprobs`] for a batch whose rows come in groups of `group`
/// sharing one prompt (as GRPO samples them): each prompt is run once and its keys
/// and values repeated for its group. The result and its gradients are identical to
/// the unshared pass (the repeat's backward sums the group's contributions), for a
/// fraction of the prompt compute.
pub fn token_logprobs_grouped(
    model: &Transformer,
    batch: &SequenceBatch,
    group: i64,
) -> (Tensor, Tensor) {
    token_logprobs_grouped_at(model, batch, group, SamplingDistribution::MODEL)
}

/// [`token_logprobs_grouped`] under the sampling distribution `dist`.
pub fn token_logprobs_grouped_at(
    model: &Transformer,
    batch: &SequenceBatch,
    group: i64,
    dist: SamplingDistribution,
) -> (Tensor, Tensor) {
    token_logprobs_of_pass(model, batch, PromptPass::SharedByGroup(group), dist)
}

/// [`response_hidden`] for rows in groups of `group` sharing a prompt, each prompt
/// run once (`batch` has a whole number of groups).
fn grouped_response_hidden(model: &Transformer, batch: &SequenceBatch, group: i64) -> Tensor {
    let rows = batch.prompt_ids.size()[0];
    let c = batch.completion_ids.size()[1];
    let prompt_ids = batch.prompt_ids.slice(0, 0, rows, group);
    let prompt_valid = batch.prompt_valid.slice(0, 0, rows, group);
    let mut cache = model.new_cache();
    let prompt_hidden = model.forward_hidden(&prompt_ids, &prompt_valid, Some(&mut cache));
    cache.repeat_rows(group);
    let last_prompt = prompt_hidden
        .narrow(1, prompt_hidden.size()[1] - 1, 1)
        .repeat_interleave_self_int(group, 0, None);
    // Position t predicts token t+1: the prompt's last position, then the response's
    // first C-1 (the last response token is never an input, so it is not run).
    if c > 1 {
        let completion_hidden = model.forward_hidden(
            &batch.completion_ids.narrow(1, 0, c - 1),
            &batch.completion_valid.narrow(1, 0, c - 1),
            Some(&mut cache),
        );
        Tensor::cat(&[last_prompt, completion_hidden], 1)
    } else {
        last_prompt.narrow(1, 0, c) // c is 0 or 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_budgets_bucket_whole_groups_longest_first() {
        // Three groups of 2; group 1 is the longest, group 2 the shortest.
        let lengths = [5, 6, 9, 3, 2, 2];
        let cut = bucketed_micro_batches(&lengths, 2, MicroBatching::Rows(2));
        assert_eq!(cut, [vec![2, 3], vec![0, 1], vec![4, 5]]);
        let one = bucketed_micro_batches(&lengths, 2, MicroBatching::Rows(8));
        assert_eq!(
            one,
            [vec![0, 1, 2, 3, 4, 5]],
            "one micro-batch keeps its order"
        );
        // Rows that do not split into whole groups stay in order.
        let ragged = bucketed_micro_batches(&lengths[..5], 2, MicroBatching::Rows(2));
        assert_eq!(ragged, [vec![0, 1], vec![2, 3], vec![4]]);
    }

    #[test]
    fn token_budgets_count_padded_tokens_per_micro_batch() {
        let lengths = [5, 6, 9, 3, 2, 2];
        // 6 rows × 9 = 54 fit at once, in order.
        let one = bucketed_micro_batches(&lengths, 2, MicroBatching::Tokens(54));
        assert_eq!(one, [vec![0, 1, 2, 3, 4, 5]]);
        // 4 rows × 9 = 36 ≤ 40: groups 1 and 0 together, then group 2.
        let two = bucketed_micro_batches(&lengths, 2, MicroBatching::Tokens(40));
        assert_eq!(two, [vec![2, 3, 0, 1], vec![4, 5]]);
        // Under one group's 18 padded tokens, a group is alone.
        let alone = bucketed_micro_batches(&lengths, 2, MicroBatching::Tokens(12));
        assert_eq!(alone, [vec![2, 3], vec![0, 1], vec![4, 5]]);
        // Single rows (unit 1): 9 + 6 + 5 don't fit 2 × 9 = 18 with a third row.
        let rows = bucketed_micro_batches(&lengths, 1, MicroBatching::Tokens(18));
        assert_eq!(rows, [vec![2, 1], vec![0, 3, 4], vec![5]]);
        for cut in [&two, &alone, &rows] {
            let mut seen: Vec<i64> = cut.iter().flatten().copied().collect();
            seen.sort_unstable();
            assert_eq!(seen, [0, 1, 2, 3, 4, 5], "every row once");
        }
    }

    #[test]
    fn groups_stay_together_only_where_the_budget_holds_them() {
        let lengths = [5, 6, 9, 3];
        assert!(MicroBatching::Rows(4).keeps_units(&lengths, 2));
        assert!(!MicroBatching::Rows(3).keeps_units(&lengths, 2));
        assert!(MicroBatching::Tokens(18).keeps_units(&lengths, 2));
        assert!(!MicroBatching::Tokens(17).keeps_units(&lengths, 2));
    }
}
