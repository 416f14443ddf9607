//! Evaluation: greedy responses to a domain's eval rows, scored by its environment
//! (a multi-turn environment's rows are greedy conversations); the domain's score is
//! the mean reward.

use super::data::EnvData;
use super::episodes::episodes;
use crate::model::Transformer;
use crate::sampling::multi_turn::{generate_episodes, TurnLimits};
use crate::sampling::{generate, SamplingParams};
use crate::tokenizer::TextTokenizer;

/// Rows per generation batch during evaluation.
const EVAL_BATCH: usize = 32;

/// Model turns per conversation when evaluating a multi-turn environment (each at
/// most the run's `max_new_tokens`).
const EVAL_MAX_TURNS: usize = 8;

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
    let limits = TurnLimits {
        max_turns: EVAL_MAX_TURNS,
        max_tokens: max_new_tokens * EVAL_MAX_TURNS,
    };
    let mut total = 0.0;
    for (chunk_index, chunk) in data.prompts.chunks(EVAL_BATCH).enumerate() {
        let first = chunk_index * EVAL_BATCH;
        if data.env.multi_turn().is_some() {
            let picks: Vec<(usize, usize)> = (first..first + chunk.len()).map(|r| (0, r)).collect();
            let mut episodes = episodes(std::slice::from_ref(data), &picks, 1, tokenizer);
            generate_episodes(model, chunk, 1, &params, limits, &mut episodes, &decode);
            total += episodes.iter().map(|e| e.reward()).sum::<f64>();
            continue;
        }
        let g = generate(model, chunk, &params, &decode);
        for (k, ids) in g.completions.iter().enumerate() {
            total += data.score(first + k, &decode(ids));
        }
    }
    total / data.prompts.len().max(1) as f64
}
