//! Batched generation with a KV cache: temperature, top-p, a new-token cap, stop
//! tokens and stop strings, ragged prompts left-padded with an attention mask, and
//! the log-probability of every sampled token under the distribution it was drawn
//! from (temperature- and top-p-adjusted), which importance weights need.
//!
//! Sampling runs under `no_grad` and keeps every tensor on the model's device; the
//! host only reads one "all finished?" flag per step (and decodes text when stop
//! strings are set). Seeded: the same seed gives the same samples on the same device.
//!
//! [`multi_turn`] runs the same decoding turn after turn, tool results in between.

use tch::{Device, Kind, Tensor};

use crate::model::{KvCache, Transformer};

pub mod multi_turn;

/// How to sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingParams {
    /// 0 means greedy (argmax).
    pub temperature: f64,
    /// Nucleus sampling: keep the smallest set of tokens whose probability reaches this.
    pub top_p: f64,
    pub max_new_tokens: usize,
    /// Token ids that end a response (kept as its last token).
    pub stop_ids: Vec<i64>,
    /// Texts that end a response once the decoded completion contains them.
    pub stop_strings: Vec<String>,
    /// Used to pad finished rows and ragged prompts.
    pub pad_id: i64,
    pub seed: i64,
    /// Drop finished rows from the forward pass as a batch decodes (the samples are
    /// the same either way; see `LiveRows`). On by default; off to compare.
    pub compact_finished: bool,
    /// Rows decoded at once; 0 = every row of the call. Larger calls are decoded in
    /// turns of whole groups, one after another on the same random stream, so memory
    /// (KV cache, logits) is bounded by this many rows, not by prompts × group size.
    pub max_decode_rows: usize,
    /// Decoding steps between host reads of which rows have finished (0 = auto: 1 on
    /// the CPU, [`CUDA_FINISHED_CHECK_EVERY`] on CUDA). A read blocks the host until
    /// the device catches up, so on a GPU every step's read keeps the CPU from queuing
    /// the next steps' kernels ahead. Between reads, finished rows decode padding; the
    /// columns after the last row ended are cut off, so the samples are the same for
    /// any value. Stop strings need the text every step and read every step.
    pub finished_check_every: usize,
}

/// [`SamplingParams::finished_check_every`]'s automatic value on CUDA.
pub const CUDA_FINISHED_CHECK_EVERY: usize = 8;

impl SamplingParams {
    /// Steps between host reads of the finished rows on `device`.
    pub fn check_every(&self, device: Device) -> usize {
        match self.finished_check_every {
            0 if device.is_cuda() => CUDA_FINISHED_CHECK_EVERY,
            0 => 1,
            k => k,
        }
    }
}

impl Default for SamplingParams {
    fn default() -> Self {
        Self {
            temperature: 1.0,
            top_p: 1.0,
            max_new_tokens: 16,
            stop_ids: Vec::new(),
            stop_strings: Vec::new(),
            pad_id: 0,
            seed: 0,
            compact_finished: true,
            max_decode_rows: 0,
            finished_check_every: 0,
        }
    }
}

/// Left-padded prompts as the model sees them.
pub struct PromptBatch {
    /// `[B, L]`, padding on the left.
    pub ids: Tensor,
    /// `[B, L]`, false at padding.
    pub valid: Tensor,
}

impl PromptBatch {
    pub fn new(prompts: &[Vec<i64>], pad_id: i64, device: Device) -> Self {
        let len = prompts.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(prompts.len() * len);
        let mut valid = Vec::with_capacity(prompts.len() * len);
        for p in prompts {
            let pad = len - p.len();
            ids.extend(std::iter::repeat_n(pad_id, pad).chain(p.iter().copied()));
            valid.extend(std::iter::repeat_n(false, pad).chain(std::iter::repeat_n(true, p.len())));
        }
        let shape = [prompts.len() as i64, len as i64];
        Self {
            ids: Tensor::from_slice(&ids).view(shape).to_device(device),
            valid: Tensor::from_slice(&valid).view(shape).to_device(device),
        }
    }
}

/// What one `generate` call produced, on the model's device plus host copies.
pub struct Generation {
    pub prompts: PromptBatch,
    /// `[B, C]` sampled ids, `pad_id` after a row finished.
    pub completion_ids: Tensor,
    /// `[B, C]` true for the tokens that belong to the response (stop token included).
    pub completion_valid: Tensor,
    /// `[B, C]` log-probabilities of the sampled tokens under the sampling distribution.
    pub sampling_logprobs: Tensor,
    /// Per row: the response's token ids.
    pub completions: Vec<Vec<i64>>,
    /// Per row: whether it ended on a stop token/string (false = cut at the cap);
    /// multi-turn: whether the environment ended the conversation (false = a limit did).
    pub finished: Vec<bool>,
    /// `[B, C]` the loss mask: true for the tokens the model sampled. Equal to
    /// `completion_valid` for single-turn rows; a multi-turn row's tool results and
    /// template tokens are valid (attended to) but not trained.
    pub completion_trained: Tensor,
    /// Per row: which of its response tokens the model sampled (the host copy of
    /// `completion_trained`).
    pub trained: Vec<Vec<bool>>,
    /// Per row: model turns taken (1 for single-turn rows).
    pub turns: Vec<usize>,
}

impl Generation {
    /// Total response tokens across the batch (tool results included).
    pub fn num_tokens(&self) -> usize {
        self.completions.iter().map(Vec::len).sum()
    }

    /// Row `row`'s tokens the model sampled (what the loss covers).
    pub fn trained_tokens(&self, row: usize) -> usize {
        self.trained[row].iter().filter(|t| **t).count()
    }

    /// Rows padded to the longest: the `[B, C]` ids (right-padded with `pad_id`),
    /// validity and loss-mask tensors on `device`.
    fn padded(
        completions: &[Vec<i64>],
        trained: &[Vec<bool>],
        pad_id: i64,
        device: Device,
    ) -> (Tensor, Tensor, Tensor) {
        let width = completions.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(completions.len() * width);
        let mut valid = Vec::with_capacity(completions.len() * width);
        let mut mask = Vec::with_capacity(completions.len() * width);
        for (c, t) in completions.iter().zip(trained) {
            let pad = width - c.len();
            ids.extend(c.iter().copied().chain(std::iter::repeat_n(pad_id, pad)));
            valid.extend(std::iter::repeat_n(true, c.len()).chain(std::iter::repeat_n(false, pad)));
            mask.extend(t.iter().copied().chain(std::iter::repeat_n(false, pad)));
        }
        let shape = [completions.len() as i64, width as i64];
        let tensor = |t: Tensor| t.view(shape).to_device(device);
        (
            tensor(Tensor::from_slice(&ids)),
            tensor(Tensor::from_slice(&valid)),
            tensor(Tensor::from_slice(&mask)),
        )
    }

    /// Rows `rows` of each generation in `parts`, in order, as one generation padded
    /// to the longest response (dynamic sampling's batch, gathered from several
    /// rounds). `prompts[k]` is the k-th selected row's prompt, without padding.
    pub fn select_rows(
        parts: &[(&Generation, Vec<i64>)],
        prompts: &[Vec<i64>],
        pad_id: i64,
    ) -> Self {
        let device = parts
            .first()
            .map_or(Device::Cpu, |(g, _)| g.completion_ids.device());
        let mut completions = Vec::new();
        let mut finished = Vec::new();
        let mut trained = Vec::new();
        let mut turns = Vec::new();
        for (g, rows) in parts {
            for &r in rows {
                completions.push(g.completions[r as usize].clone());
                finished.push(g.finished[r as usize]);
                trained.push(g.trained[r as usize].clone());
                turns.push(g.turns[r as usize]);
            }
        }
        let width = completions.iter().map(Vec::len).max().unwrap_or(0);
        let (completion_ids, completion_valid, completion_trained) =
            Self::padded(&completions, &trained, pad_id, device);
        let logprobs: Vec<(&Tensor, &[i64])> = parts
            .iter()
            .map(|(g, rows)| (&g.sampling_logprobs, rows.as_slice()))
            .collect();
        Generation {
            prompts: PromptBatch::new(prompts, pad_id, device),
            completion_ids,
            completion_valid,
            sampling_logprobs: select_padded_rows(&logprobs).narrow(1, 0, width as i64),
            completions,
            finished,
            completion_trained,
            trained,
            turns,
        }
    }
}

/// The rows `rows` of each `[B, C]` float tensor of `parts`, in order, right-padded
/// with zeros to the widest, as one tensor.
pub fn select_padded_rows(parts: &[(&Tensor, &[i64])]) -> Tensor {
    let width = parts.iter().map(|(t, _)| t.size()[1]).max().unwrap_or(0);
    let pieces: Vec<Tensor> = parts
        .iter()
        .map(|(t, rows)| {
            let idx = Tensor::from_slice(rows).to_device(t.device());
            t.index_select(0, &idx)
                .constant_pad_nd([0, width - t.size()[1]])
        })
        .collect();
    Tensor::cat(&pieces, 0)
}

/// The tokens outside the top-p nucleus of `logp` (log-probabilities over the last
/// dimension): true for every token after the smallest prefix of the sorted
/// distribution whose mass reaches `top_p`. The training pass calls this on the same
/// tempered log-probabilities to rebuild the distribution a token was drawn from.
pub(crate) fn nucleus_drop_mask(logp: &Tensor, top_p: f64) -> Tensor {
    let (sorted, order) = logp.sort(-1, true);
    let cumulative = sorted.exp().cumsum(-1, Kind::Float);
    // A token is dropped when the mass before it already reaches top_p.
    let drop_sorted = (cumulative - sorted.exp()).ge(top_p);
    drop_sorted.scatter(-1, &order, &drop_sorted)
}

/// Keeps the top-p nucleus; returns log-probabilities renormalised over it.
fn top_p_filter(logp: &Tensor, top_p: f64) -> Tensor {
    logp.masked_fill(&nucleus_drop_mask(logp, top_p), f64::NEG_INFINITY)
        .log_softmax(-1, Kind::Float)
}

/// Samples one token per row from `logits` `[B, V]`; returns `(ids [B], logprobs [B])`.
fn sample_next(logits: &Tensor, params: &SamplingParams) -> (Tensor, Tensor) {
    let logits = logits.to_kind(Kind::Float);
    if params.temperature <= 0.0 {
        let logp = logits.log_softmax(-1, Kind::Float);
        let ids = logits.argmax(-1, false);
        let lp = logp.gather(-1, &ids.unsqueeze(-1), false).squeeze_dim(-1);
        return (ids, lp);
    }
    let mut logp = (logits / params.temperature).log_softmax(-1, Kind::Float);
    if params.top_p < 1.0 {
        logp = top_p_filter(&logp, params.top_p);
    }
    let ids = logp.exp().multinomial(1, true);
    let lp = logp.gather(-1, &ids, false).squeeze_dim(-1);
    (ids.squeeze_dim(-1), lp)
}

/// Generates a response for every prompt (token ids, without padding).
/// `decode` turns ids into text; it is only called when stop strings are set.
pub fn generate(
    model: &Transformer,
    prompts: &[Vec<i64>],
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
) -> Generation {
    generate_groups(model, prompts, 1, params, decode)
}

/// Generates `group_size` responses to each prompt; rows come out grouped
/// (`p0, p0, …, p1, p1, …`). Each prompt is run through the model once and its KV
/// cache shared by its group, so prefill costs one row per prompt, not per response.
pub fn generate_groups(
    model: &Transformer,
    prompts: &[Vec<i64>],
    group_size: usize,
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
) -> Generation {
    generate_groups_reporting(model, prompts, group_size, params, decode, None)
}

/// [`generate_groups`], handing each group's responses to `report` (group index,
/// its rows' response ids) as soon as all of them have ended, while the rest of the
/// batch is still sampled, so their rewards can be computed meanwhile. Groups that
/// end on the last step are not reported: the caller has them in the result. The
/// samples are the same as without `report`.
pub fn generate_groups_reporting(
    model: &Transformer,
    prompts: &[Vec<i64>],
    group_size: usize,
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
    report: Option<&mut dyn FnMut(usize, Vec<Vec<i64>>)>,
) -> Generation {
    tch::manual_seed(params.seed);
    let g = group_size.max(1);
    let per_turn = match params.max_decode_rows {
        0 => prompts.len(),
        rows => (rows / g).max(1),
    };
    if per_turn >= prompts.len() {
        return generate_turn(model, prompts, g, params, decode, report);
    }
    let mut report = report;
    let mut parts = Vec::new();
    for (k, chunk) in prompts.chunks(per_turn).enumerate() {
        let offset = k * per_turn;
        let mut shifted = report
            .as_mut()
            .map(|report| move |group: usize, rows: Vec<Vec<i64>>| report(offset + group, rows));
        let shifted = shifted
            .as_mut()
            .map(|f| f as &mut dyn FnMut(usize, Vec<Vec<i64>>));
        parts.push(generate_turn(model, chunk, g, params, decode, shifted));
    }
    let rows: Vec<(&Generation, Vec<i64>)> = parts
        .iter()
        .map(|part| (part, (0..part.completions.len() as i64).collect()))
        .collect();
    let grouped: Vec<Vec<i64>> = prompts
        .iter()
        .flat_map(|p| std::iter::repeat_n(p.clone(), g))
        .collect();
    Generation::select_rows(&rows, &grouped, params.pad_id)
}

/// One decoding turn of [`generate_groups_reporting`]: every row of `prompts` at once,
/// on the random stream as the caller left it.
fn generate_turn(
    model: &Transformer,
    prompts: &[Vec<i64>],
    group_size: usize,
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
    report: Option<&mut dyn FnMut(usize, Vec<Vec<i64>>)>,
) -> Generation {
    let mut watch = report.map(|report| GroupWatch::new(prompts.len(), group_size, report));
    let device = model.device();
    let (batch, steps) = tch::no_grad(|| {
        model.autocast(|| {
            let mut prefilled = prefill(model, prompts, group_size, params.pad_id);
            let b = prefilled.batch.ids.size()[0];
            let done = Tensor::zeros([b], (Kind::Bool, device));
            let steps = decode_steps(
                model,
                &mut prefilled.cache,
                prefilled.logits,
                done,
                None,
                params,
                decode,
                watch.as_mut(),
                params.compact_finished,
            );
            (prefilled.batch, steps)
        })
    });
    let (completion_ids, completion_valid, sampling_logprobs) = steps.stacked();
    let host = HostSteps::of(&completion_ids, &completion_valid, &sampling_logprobs);
    let rows = completion_ids.size()[0] as usize;
    let (completions, finished) = host_rows(&host, rows, params, decode);
    let trained = completions.iter().map(|c| vec![true; c.len()]).collect();
    Generation {
        prompts: batch,
        completion_trained: completion_valid.shallow_clone(),
        completion_ids,
        completion_valid,
        sampling_logprobs,
        turns: vec![1; completions.len()],
        completions,
        finished,
        trained,
    }
}

/// The prompts run through the model once each, their cache repeated for their group.
pub(crate) struct Prefilled {
    /// The prompts as rows, each repeated `group_size` times.
    pub batch: PromptBatch,
    pub cache: KvCache,
    /// `[B, V]` the logits of every row's next token.
    pub logits: Tensor,
}

pub(crate) fn prefill(
    model: &Transformer,
    prompts: &[Vec<i64>],
    group_size: usize,
    pad_id: i64,
) -> Prefilled {
    let unique = PromptBatch::new(prompts, pad_id, model.device());
    let g = group_size.max(1) as i64;
    let batch = PromptBatch {
        ids: unique.ids.repeat_interleave_self_int(g, 0, None),
        valid: unique.valid.repeat_interleave_self_int(g, 0, None),
    };
    let mut cache = model.new_cache();
    let last = prefill_last_hidden(model, &unique.ids, &unique.valid, &mut cache, PREFILL_CHUNK);
    let logits = model.logits(&last).repeat_interleave_self_int(g, 0, None);
    cache.repeat_rows(g);
    Prefilled {
        batch,
        cache,
        logits,
    }
}

/// Prompt positions per forward pass when prefilling: a prompt of T tokens then holds
/// the attention mask `[B, 1, chunk, T]` (not `[B, 1, T, T]`) and the MLP activations
/// of `chunk` positions at a time. Prompts this long or shorter run in one pass, as
/// they always have.
pub const PREFILL_CHUNK: i64 = 2048;

/// Runs `ids` `[B, T]` into `cache`, `chunk` positions per pass, and returns the final
/// hidden state of the last position, `[B, H]`.
pub(crate) fn prefill_last_hidden(
    model: &Transformer,
    ids: &Tensor,
    valid: &Tensor,
    cache: &mut KvCache,
    chunk: i64,
) -> Tensor {
    let t = ids.size()[1];
    let chunk = chunk.max(1);
    let mut start = 0;
    loop {
        let len = chunk.min(t - start);
        let (ids, valid) = (ids.narrow(1, start, len), valid.narrow(1, start, len));
        let hidden = model.forward_hidden(&ids, &valid, Some(cache));
        start += len;
        if start >= t {
            return hidden.select(1, -1);
        }
    }
}

/// One decoding run's `[B]` tensors, step by step.
pub(crate) struct Steps {
    pub tokens: Vec<Tensor>,
    pub logprobs: Vec<Tensor>,
    /// Per step: the rows still generating (their token is part of the response).
    pub valids: Vec<Tensor>,
    /// Per row: whether a stop string ended it (empty without stop strings).
    pub stopped_by_string: Vec<bool>,
}

impl Steps {
    /// Cuts the steps after the last one in which some row still generated (the
    /// padding decoded between host reads), keeping at least one.
    fn drop_idle_tail(&mut self) {
        if self.valids.len() <= 1 {
            return;
        }
        let any: Vec<bool> =
            Vec::try_from(Tensor::stack(&self.valids, 1).any_dim(0, false)).unwrap_or_default();
        let keep = any.iter().rposition(|v| *v).map_or(1, |last| last + 1);
        self.tokens.truncate(keep);
        self.logprobs.truncate(keep);
        self.valids.truncate(keep);
    }

    /// The `[B, steps]` ids, validity and (float) log-probabilities.
    pub(crate) fn stacked(&self) -> (Tensor, Tensor, Tensor) {
        (
            Tensor::stack(&self.tokens, 1),
            Tensor::stack(&self.valids, 1),
            Tensor::stack(&self.logprobs, 1).to_kind(Kind::Float),
        )
    }
}

/// Watches a grouped batch while it decodes and reports each group whose rows have
/// all ended (one host read of the `[B]` done flags per step).
pub(crate) struct GroupWatch<'a> {
    group_size: usize,
    reported: Vec<bool>,
    report: &'a mut dyn FnMut(usize, Vec<Vec<i64>>),
}

impl<'a> GroupWatch<'a> {
    fn new(
        groups: usize,
        group_size: usize,
        report: &'a mut dyn FnMut(usize, Vec<Vec<i64>>),
    ) -> Self {
        Self {
            group_size: group_size.max(1),
            reported: vec![false; groups],
            report,
        }
    }

    /// Reports the groups all of whose rows are `done` after `steps`.
    fn check(&mut self, done: &Tensor, steps: &Steps) {
        if self.reported.iter().all(|r| *r) {
            return;
        }
        let done: Vec<bool> = Vec::try_from(done).unwrap_or_default();
        let size = self.group_size;
        let ended: Vec<usize> = (0..self.reported.len())
            .filter(|&g| !self.reported[g])
            .filter(|&g| {
                done.get(g * size..(g + 1) * size)
                    .is_some_and(|rows| rows.iter().all(|d| *d))
            })
            .collect();
        if ended.is_empty() {
            return;
        }
        let ids = Tensor::stack(&steps.tokens, 1);
        let valid = Tensor::stack(&steps.valids, 1);
        let logprobs = Tensor::stack(&steps.logprobs, 1);
        for g in ended {
            let rows = |t: &Tensor| t.narrow(0, (g * size) as i64, size as i64);
            let host = HostSteps::of(&rows(&ids), &rows(&valid), &rows(&logprobs));
            let responses = (0..size).map(|r| host.row(r).0).collect();
            self.reported[g] = true;
            (self.report)(g, responses);
        }
    }
}

/// Samples from `logits` on, feeding each token back through `cache`, until every row
/// is `done` (stop token or string; with `budget` `[B]`, also after that many tokens)
/// or `params.max_new_tokens` steps. The last step's tokens are not fed to the cache.
/// With `watch`, groups are reported as they end (not on the last step). With
/// `compact`, finished rows leave the forward pass (see [`LiveRows`]); the cache then
/// ends with the live rows only, so callers that keep using it pass `false`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn decode_steps(
    model: &Transformer,
    cache: &mut KvCache,
    logits: Tensor,
    mut done: Tensor,
    budget: Option<&Tensor>,
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
    mut watch: Option<&mut GroupWatch>,
    compact: bool,
) -> Steps {
    let device = model.device();
    let b = done.size()[0];
    let stop_ids = Tensor::from_slice(&params.stop_ids).to_device(device);
    let mut used = Tensor::zeros([b], (Kind::Int64, device));
    let mut steps = Steps {
        tokens: Vec::with_capacity(params.max_new_tokens),
        logprobs: Vec::with_capacity(params.max_new_tokens),
        valids: Vec::with_capacity(params.max_new_tokens),
        stopped_by_string: Vec::new(),
    };
    // The cache's buffers sized once for the whole run (each step writes in place).
    cache.reserve(params.max_new_tokens as i64);
    let _fused = model.fuse_for_decoding();
    let mut strings = StopStrings::new(b as usize);
    let mut live = LiveRows::all(b, device, compact);
    let check_every = params.check_every(device);
    let mut logits = logits;
    for step in 0..params.max_new_tokens {
        let (ids, lp) = sample_next(&logits, params);
        let alive = done.logical_not();
        let ids = ids.where_self(&alive, &Tensor::from(params.pad_id).to_device(device));
        let mut now_done = done.logical_or(&Tensor::isin(&ids, &stop_ids, false, false));
        if !params.stop_strings.is_empty() {
            strings.push(&ids, &alive, &params.stop_strings, decode);
            let flags = Tensor::from_slice(&strings.stopped).to_device(device);
            now_done = now_done.logical_or(&flags);
        }
        if let Some(budget) = budget {
            used += alive.to_kind(Kind::Int64);
            now_done = now_done.logical_or(&used.ge_tensor(budget));
        }
        steps.tokens.push(ids.shallow_clone());
        steps.logprobs.push(lp);
        steps.valids.push(alive.shallow_clone());
        done = now_done;
        if step + 1 == params.max_new_tokens {
            break;
        }
        if (step + 1) % check_every == 0 || !params.stop_strings.is_empty() {
            // The host read: how many rows still generate.
            let alive_rows = i64::try_from(done.logical_not().sum(Kind::Int64)).unwrap_or(0);
            if alive_rows == 0 {
                break;
            }
            if let Some(watch) = watch.as_deref_mut() {
                watch.check(&done, &steps);
            }
            live.compact_if_worth_it(&done, alive_rows, cache);
        }
        let hidden = model.forward_hidden(
            &live.pick(&ids).view([-1, 1]),
            &live.pick(&alive).view([-1, 1]),
            Some(cache),
        );
        logits = live.spread(&model.logits(&hidden.select(1, -1)), b);
    }
    if check_every > 1 {
        steps.drop_idle_tail();
    }
    if !params.stop_strings.is_empty() {
        steps.stopped_by_string = strings.stopped;
    }
    steps
}

/// The rows of a decoding batch that still run through the model. Once a quarter or
/// more of them have finished, the finished ones are dropped from the KV cache and
/// from every later forward pass (their tokens are padding from then on anyway), so
/// a batch whose responses end at different lengths stops paying for the ended ones.
/// Sampling still sees every row: the live rows' logits are spread back to `[B, V]`
/// (finished rows get zeros), so the random stream, and so the samples, are those of
/// the uncompacted batch.
struct LiveRows {
    /// Full-batch indices of the rows in the model's batch, in order; `None` while
    /// that is every row.
    rows: Option<Tensor>,
    /// How many rows the model's batch has.
    len: i64,
    enabled: bool,
    device: Device,
}

impl LiveRows {
    fn all(rows: i64, device: Device, enabled: bool) -> Self {
        Self {
            rows: None,
            len: rows,
            enabled,
            device,
        }
    }

    /// Drops the `done` rows from `cache` and the model's batch once `alive_rows`
    /// (of the whole batch) is at most three quarters of it.
    fn compact_if_worth_it(&mut self, done: &Tensor, alive_rows: i64, cache: &mut KvCache) {
        if !self.enabled || alive_rows * 4 > self.len * 3 {
            return;
        }
        let alive_here = self.pick(&done.logical_not());
        let keep = alive_here.nonzero().squeeze_dim(-1);
        cache.select_rows(&keep);
        self.rows = Some(match &self.rows {
            Some(rows) => rows.index_select(0, &keep),
            None => keep.to_device(self.device),
        });
        self.len = alive_rows;
    }

    /// The model's batch's rows of a full-batch `[B, …]` tensor.
    fn pick(&self, full: &Tensor) -> Tensor {
        match &self.rows {
            Some(rows) => full.index_select(0, rows),
            None => full.shallow_clone(),
        }
    }

    /// The model's batch's `[b, V]` logits as `[rows, V]`, zeros for dropped rows.
    fn spread(&self, logits: &Tensor, rows: i64) -> Tensor {
        match &self.rows {
            Some(live) => {
                let full = Tensor::zeros([rows, logits.size()[1]], (logits.kind(), self.device));
                full.index_copy(0, live, logits)
            }
            None => logits.shallow_clone(),
        }
    }
}

/// Each row's tokens so far on the host, for stop strings (they need decoded text).
struct StopStrings {
    tokens: Vec<Vec<i64>>,
    /// Per row: a stop string has appeared.
    stopped: Vec<bool>,
}

impl StopStrings {
    fn new(rows: usize) -> Self {
        Self {
            tokens: vec![Vec::new(); rows],
            stopped: vec![false; rows],
        }
    }

    /// Appends the step's `ids` to the rows still `alive` and marks those whose text
    /// now contains one of `stops`.
    fn push(
        &mut self,
        ids: &Tensor,
        alive: &Tensor,
        stops: &[String],
        decode: &dyn Fn(&[i64]) -> String,
    ) {
        let host: Vec<i64> = Vec::try_from(ids).unwrap_or_default();
        let alive_host: Vec<bool> = Vec::try_from(alive).unwrap_or_default();
        for (row, (&id, &a)) in host.iter().zip(&alive_host).enumerate() {
            if a && !self.stopped[row] {
                self.tokens[row].push(id);
                let text = decode(&self.tokens[row]);
                if stops.iter().any(|s| text.contains(s.as_str())) {
                    self.stopped[row] = true;
                }
            }
        }
    }
}

/// The host copies of `[B, steps]` sampled ids, validity and log-probabilities.
pub(crate) struct HostSteps {
    ids: Vec<i64>,
    valid: Vec<bool>,
    logprobs: Vec<f32>,
    steps: usize,
}

impl HostSteps {
    pub(crate) fn of(ids: &Tensor, valid: &Tensor, logprobs: &Tensor) -> Self {
        let flat = |t: &Tensor| t.flatten(0, -1);
        Self {
            ids: Vec::try_from(flat(ids)).unwrap_or_default(),
            valid: Vec::try_from(flat(valid)).unwrap_or_default(),
            logprobs: Vec::try_from(flat(&logprobs.to_kind(Kind::Float))).unwrap_or_default(),
            steps: ids.size()[1] as usize,
        }
    }

    /// Row `r`'s valid tokens: their ids and log-probabilities.
    pub(crate) fn row(&self, r: usize) -> (Vec<i64>, Vec<f32>) {
        let span = r * self.steps..(r + 1) * self.steps;
        self.ids[span.clone()]
            .iter()
            .zip(&self.valid[span.clone()])
            .zip(&self.logprobs[span])
            .filter(|((_, v), _)| **v)
            .map(|((id, _), lp)| (*id, *lp))
            .unzip()
    }
}

/// Each row's response ids (its valid tokens) and whether it ended on a stop token or
/// string.
fn host_rows(
    host: &HostSteps,
    rows: usize,
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
) -> (Vec<Vec<i64>>, Vec<bool>) {
    let mut completions = Vec::with_capacity(rows);
    let mut finished = Vec::with_capacity(rows);
    for row in 0..rows {
        let (ids, _) = host.row(row);
        let ended_on_stop = ids.last().is_some_and(|id| params.stop_ids.contains(id))
            || (!params.stop_strings.is_empty()
                && params
                    .stop_strings
                    .iter()
                    .any(|s| decode(&ids).contains(s.as_str())));
        finished.push(ended_on_stop);
        completions.push(ids);
    }
    (completions, finished)
}

#[cfg(test)]
#[path = "prefill_tests.rs"]
mod prefill_tests;
