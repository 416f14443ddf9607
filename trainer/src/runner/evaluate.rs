//! Evaluation: greedy responses to a domain's eval rows, scored by its environment;
//! the domain's score is the mean reward.

use super::data::EnvData;
use crate::model::Transformer;
use crate::sampling::{generate, SamplingParams};
use crate::tokenizer::TextTokenizer;

/// Rows per generation batch during evaluation.
const EVAL_BATCH: usize = 32;

/// Mean reward of greedy responses over every row of `data`.
pub fn evaluate(
    model: &Transformer,
    tokenizer: &TextTokenizer,
    data: &EnvData,
    max_new_tokens: usize,
) -> f64 {
    let params = SamplingParams {
        temperature: 0.0,
        top_p: 1.0,
        max_new_tokens,
        stop_ids: tokenizer.stop_ids.clone(),
        stop_strings: Vec::new(),
        pad_id: tokenizer.pad_id,
        seed: 0,
    };
    let decode = |ids: &[i64]| tokenizer.decode(ids).unwrap_or_default();
    let mut total = 0.0;
    for (chunk_index, chunk) in data.prompts.chunks(EVAL_BATCH).enumerate() {
        let g = generate(model, chunk, &params, &decode);
        for (k, ids) in g.completions.iter().enumerate() {
            total += data.score(chunk_index * EVAL_BATCH + k, &decode(ids));
        }
    }
    total / data.prompts.len().max(1) as f64
}
