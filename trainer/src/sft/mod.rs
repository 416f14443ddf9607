//! Supervised fine-tuning: one AdamW step on the cross-entropy of given reference
//! responses ([`supervised_step`]). The runner's `sft` stages and the toy task's
//! warm-up (`toy::warmup`) are built on it.

use tch::{Kind, Tensor};

use crate::logprobs::{
    backward_by_chunks, PassMemory, PromptPass, SamplingDistribution, SequenceBatch,
};
use crate::model::Transformer;
use crate::optim::AdamW;
use crate::sampling::PromptBatch;

/// What one supervised step did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupervisedStats {
    /// Mean cross-entropy per target token (nats), before the update.
    pub loss: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    /// Target tokens in the batch.
    pub tokens: usize,
}

/// One AdamW step on the mean token cross-entropy of `targets[i]` (complete responses,
/// end-of-turn token included) after `prompts[i]`, at learning rate `lr`, with the
/// gradient clipped to `max_grad_norm`. Prompts are left-padded, targets right-padded
/// with `pad_id`; padding is masked out of the loss.
pub fn supervised_step(
    model: &Transformer,
    optimizer: &mut AdamW,
    prompts: &[Vec<i64>],
    targets: &[Vec<i64>],
    pad_id: i64,
    lr: f64,
    max_grad_norm: f64,
) -> SupervisedStats {
    let prompt_batch = PromptBatch::new(prompts, pad_id, model.device());
    let width = targets.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut ids = Vec::with_capacity(targets.len() * width);
    let mut valid = Vec::with_capacity(targets.len() * width);
    for t in targets {
        ids.extend(
            t.iter()
                .copied()
                .chain(std::iter::repeat_n(pad_id, width - t.len())),
        );
        valid.extend(
            std::iter::repeat_n(true, t.len()).chain(std::iter::repeat_n(false, width - t.len())),
        );
    }
    let tokens = valid.iter().filter(|v| **v).count();
    let shape = [targets.len() as i64, width as i64];
    let completion_ids = Tensor::from_slice(&ids)
        .view(shape)
        .to_device(model.device());
    let completion_valid = Tensor::from_slice(&valid)
        .view(shape)
        .to_device(model.device());
    let seq = SequenceBatch {
        prompt_ids: &prompt_batch.ids,
        prompt_valid: &prompt_batch.valid,
        completion_ids: &completion_ids,
        completion_valid: &completion_valid,
    };
    optimizer.zero_grad();
    let mask = completion_valid.to_kind(Kind::Float);
    // max(1): a batch of empty targets has no loss rather than a NaN one.
    let denominator = mask.sum(Kind::Float).clamp_min(1.0);
    let mut loss_sum = 0.0;
    let (pass, dist) = (PromptPass::PerRow, SamplingDistribution::MODEL);
    backward_by_chunks(model, &seq, pass, dist, PassMemory::default(), |chunk| {
        let loss = -(&chunk.logp * chunk.columns(&mask)).sum(Kind::Float) / &denominator;
        loss_sum += f64::try_from(&loss).unwrap_or(f64::NAN);
        loss
    });
    let grad_norm = optimizer.clip_grad_norm(max_grad_norm);
    optimizer.step(lr);
    SupervisedStats {
        loss: loss_sum,
        grad_norm,
        tokens,
    }
}
