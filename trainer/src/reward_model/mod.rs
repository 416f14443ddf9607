//! Scalar reward models in Hugging Face's `*ForSequenceClassification` layout: the
//! policy's trunk (Qwen2, Qwen3, Llama) under a `score` head of `[1, hidden]`, read at
//! the last token that is not `pad_token_id`, exactly as transformers pools it. The
//! model is a [`Transformer`] whose head is [`Head::SequenceClassification`], so it
//! loads, trains and saves like the policy, in the same layout public reward models
//! ship in.
//!
//! - [`sequence_scores`]: one score per token sequence (prompt and response).
//! - [`bradley_terry`]: training on preference pairs, `−log σ(r_chosen − r_rejected)`,
//!   and pairwise accuracy.
//! - [`pairs`]: preference rows in the public layouts, tokenized as the policy sees
//!   them.
//! - [`load_reward_model`] refuses a checkpoint of the wrong shape, or one whose
//!   tokenizer is not the policy's, naming the file and the field.

pub mod bradley_terry;
pub mod pairs;

use std::path::{Path, PathBuf};

use serde_json::Value;
use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::model::{Head, ModelError, Transformer};

#[derive(Debug, Error)]
pub enum RewardModelError {
    #[error("reward model {path}: {message}")]
    Refused { path: PathBuf, message: String },
    #[error("reward model: {0}")]
    Model(#[from] ModelError),
}

fn refused(path: &Path, message: impl Into<String>) -> RewardModelError {
    RewardModelError::Refused {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Loads the reward model in `dir` onto `device` (float32, frozen), after checking
/// that it is a one-label sequence classifier whose tokenizer is the policy's (the
/// one in `policy_tokenizer_dir`): its scores are of token ids the policy sampled.
pub fn load_reward_model(
    dir: &Path,
    policy_tokenizer_dir: &Path,
    device: Device,
) -> Result<Transformer, RewardModelError> {
    let config_path = dir.join("config.json");
    let config = crate::model::ModelConfig::from_file(&config_path)?;
    match config.head {
        Head::SequenceClassification { num_labels: 1 } => {}
        Head::SequenceClassification { num_labels } => {
            return Err(refused(
                &config_path,
                format!("`id2label` has {num_labels} labels; a reward model has 1"),
            ))
        }
        Head::CausalLm => {
            return Err(refused(
                &config_path,
                format!(
                    "`architectures` {} is not a *ForSequenceClassification",
                    config.raw["architectures"]
                ),
            ))
        }
    }
    check_same_tokenizer(dir, policy_tokenizer_dir)?;
    let mut model =
        Transformer::load(dir, device, Kind::Float).map_err(|e| refused(dir, e.to_string()))?;
    model.set_trainable(false);
    Ok(model)
}

/// Refuses a reward model whose `tokenizer.json` maps tokens to other ids than the
/// policy's (its `model.vocab` or `added_tokens` differ), or that has none.
pub fn check_same_tokenizer(dir: &Path, policy_dir: &Path) -> Result<(), RewardModelError> {
    let read = |d: &Path| -> Result<Value, RewardModelError> {
        let path = d.join("tokenizer.json");
        let text = std::fs::read_to_string(&path).map_err(|e| refused(&path, e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| refused(&path, e.to_string()))
    };
    let (mine, policy) = (read(dir)?, read(policy_dir)?);
    for field in ["model.vocab", "added_tokens"] {
        let pointer = format!("/{}", field.replace('.', "/"));
        if mine.pointer(&pointer) != policy.pointer(&pointer) {
            return Err(refused(
                &dir.join("tokenizer.json"),
                format!(
                    "`{field}` differs from the policy's ({}): the reward model must read the policy's token ids",
                    policy_dir.join("tokenizer.json").display()
                ),
            ));
        }
    }
    Ok(())
}

/// Where transformers reads a sequence's score: its last token that is not
/// `pad_token_id` (so a sequence ending in the pad token is read before it); the
/// last token when there is no pad id or every token is one.
pub fn score_position(sequence: &[i64], pad_token_id: Option<i64>) -> usize {
    let last = sequence.len().saturating_sub(1);
    match pad_token_id {
        Some(pad) => sequence.iter().rposition(|&t| t != pad).unwrap_or(last),
        None => last,
    }
}

/// The scores `[B]` of `sequences` (each a prompt followed by its response), in one
/// pass with gradients when the model is trainable. Sequences are left-padded.
pub fn sequence_scores(model: &Transformer, sequences: &[Vec<i64>]) -> Tensor {
    let pad = model.config.pad_token_id;
    let batch = crate::sampling::PromptBatch::new(sequences, pad.unwrap_or(0), model.device());
    let width = batch.ids.size()[1] as usize;
    let positions: Vec<i64> = sequences
        .iter()
        .map(|s| (width - s.len() + score_position(s, pad)) as i64)
        .collect();
    let hidden = model.forward_hidden(&batch.ids, &batch.valid, None);
    let h = hidden.size()[2];
    let index = Tensor::from_slice(&positions)
        .to_device(model.device())
        .view([-1, 1, 1])
        .expand([sequences.len() as i64, 1, h], false);
    let last = hidden.gather(1, &index, false).squeeze_dim(1);
    model.logits(&last).select(1, 0)
}

/// [`sequence_scores`] without gradients, `batch` sequences per pass, as host
/// numbers in input order.
pub fn score_all(model: &Transformer, sequences: &[Vec<i64>], batch: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(sequences.len());
    for chunk in sequences.chunks(batch.max(1)) {
        let scores = tch::no_grad(|| sequence_scores(model, chunk));
        out.extend(Vec::<f64>::try_from(scores.to_kind(Kind::Double)).unwrap_or_default());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_is_read_at_the_last_token_that_is_not_padding() {
        crate::numerics::pin_for_tests();
        assert_eq!(score_position(&[5, 6, 7], Some(0)), 2);
        assert_eq!(score_position(&[5, 0, 7, 0, 0], Some(0)), 2);
        assert_eq!(score_position(&[5, 6, 0], None), 2);
        assert_eq!(score_position(&[0, 0], Some(0)), 1);
        assert_eq!(score_position(&[], Some(0)), 0);
    }
}
