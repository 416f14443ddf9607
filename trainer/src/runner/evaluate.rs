//! Evaluation: greedy responses to a domain's eval rows, scored by its environment
//! (a multi-turn environment's rows are greedy conversations); the domain's score is
//! the mean reward. A model-judged domain (`rlhf`) scores the win rate of the
//! greedy responses against the base model's, judged by its reward model.

use rayon::prelude::*;

use super::data::EnvData;
use super::episodes::episodes;
use crate::grpo::{is_scored, UNSCORED};
use crate::model::Transformer;
use crate::sampling::multi_turn::{generate_episodes, TurnLimits};
use crate::sampling::{generate, SamplingParams};
use crate::tokenizer::TextTokenizer;

/// Rows per generation batch during evaluation.
const EVAL_BATCH: usize = 32;

/// Model turns per conversation when evaluating a multi-turn environment (each at
/// most the run's `max_new_tokens`).
const EVAL_MAX_TURNS: usize = 8;

/// Greedy decoding with the run's cap, as every eval decodes.
fn greedy(tokenizer: &TextTokenizer, max_new_tokens: usize) -> SamplingParams {
    SamplingParams {
        temperature: 0.0,
        top_p: 1.0,
        max_new_tokens,
        stop_ids: tokenizer.stop_ids.clone(),
        stop_strings: Vec::new(),
        pad_id: tokenizer.pad_id,
        seed: 0,
        compact_finished: true,
        max_decode_rows: 0,
        finished_check_every: 0,
    }
}

/// Mean reward of greedy responses over the rows of `data` that could be scored; a
/// row that could not (an environment failure, not the model's error) is left out of
/// the mean, as GRPO leaves it out of the loss, and counted on stderr.
pub fn evaluate(
    model: &Transformer,
    tokenizer: &TextTokenizer,
    data: &EnvData,
    max_new_tokens: usize,
) -> f64 {
    let params = greedy(tokenizer, max_new_tokens);
    let decode = |ids: &[i64]| tokenizer.decode(ids).unwrap_or_default();
    let limits = TurnLimits {
        max_turns: EVAL_MAX_TURNS,
        max_tokens: max_new_tokens * EVAL_MAX_TURNS,
    };
    let mut rewards = Vec::with_capacity(data.prompts.len());
    for (chunk_index, chunk) in data.prompts.chunks(EVAL_BATCH).enumerate() {
        let first = chunk_index * EVAL_BATCH;
        if data.env.multi_turn().is_some() {
            let picks: Vec<(usize, usize)> = (first..first + chunk.len()).map(|r| (0, r)).collect();
            let mut episodes = episodes(std::slice::from_ref(data), &picks, 1, tokenizer);
            generate_episodes(model, chunk, 1, &params, limits, &mut episodes, &decode);
            rewards.extend(episodes.iter().map(|e| e.reward()));
            continue;
        }
        let g = generate(model, chunk, &params, &decode);
        for (k, ids) in g.completions.iter().enumerate() {
            rewards.push(data.reward(first + k, &decode(ids)).unwrap_or(UNSCORED));
        }
    }
    scored_mean(&data.domain, &rewards)
}

/// The mean of the scored rewards (0 when none is), saying how many were not scored.
fn scored_mean(domain: &str, rewards: &[f64]) -> f64 {
    let scored: Vec<f64> = rewards.iter().copied().filter(|r| is_scored(*r)).collect();
    let unscored = rewards.len() - scored.len();
    if unscored > 0 {
        eprintln!(
            "[{domain}] eval: {unscored} of {} rows could not be scored; left out of the mean",
            rewards.len()
        );
    }
    scored.iter().sum::<f64>() / scored.len().max(1) as f64
}

/// Greedy responses to every prompt of `data`, in order.
pub fn greedy_responses(
    model: &Transformer,
    tokenizer: &TextTokenizer,
    data: &EnvData,
    max_new_tokens: usize,
) -> Vec<Vec<i64>> {
    let params = greedy(tokenizer, max_new_tokens);
    let decode = |ids: &[i64]| tokenizer.decode(ids).unwrap_or_default();
    data.prompts
        .chunks(EVAL_BATCH)
        .flat_map(|chunk| generate(model, chunk, &params, &decode).completions)
        .collect()
}

/// A model-judged domain's score (`rlhf`): the win rate of `model`'s greedy
/// responses against `baseline` (the base model's, same prompts), judged by
/// `reward_model`; a tie counts half, so the base model scores 0.5.
pub fn win_rate(
    model: &Transformer,
    reward_model: &Transformer,
    tokenizer: &TextTokenizer,
    data: &EnvData,
    baseline: &[Vec<i64>],
    max_new_tokens: usize,
) -> f64 {
    let responses = greedy_responses(model, tokenizer, data, max_new_tokens);
    let with_prompt = |answers: &[Vec<i64>]| -> Vec<Vec<i64>> {
        data.prompts
            .iter()
            .zip(answers)
            .map(|(p, a)| p.iter().chain(a).copied().collect())
            .collect()
    };
    let mine = crate::reward_model::score_all(reward_model, &with_prompt(&responses), EVAL_BATCH);
    let theirs = crate::reward_model::score_all(reward_model, &with_prompt(baseline), EVAL_BATCH);
    let wins: f64 = mine.iter().zip(&theirs).map(|(a, b)| win(*a, *b)).sum();
    wins / mine.len().max(1) as f64
}

/// A group-judged domain's score (`genrm`): the win rate of `model`'s greedy
/// responses against `baseline`'s, each prompt's pair judged as a group of two by
/// the env's judge (the policy's shown first); a tie, an identical pair, or a pair
/// the judge could not score counts half.
pub fn group_win_rate(
    model: &Transformer,
    tokenizer: &TextTokenizer,
    data: &EnvData,
    baseline: &[Vec<i64>],
    max_new_tokens: usize,
) -> f64 {
    let responses = greedy_responses(model, tokenizer, data, max_new_tokens);
    let decode = |ids: &[i64]| tokenizer.decode(ids).unwrap_or_default();
    let wins: f64 = responses
        .par_iter()
        .zip(baseline)
        .enumerate()
        .map(|(r, (mine, theirs))| {
            // A response does not beat itself (and the judge is not asked).
            if mine == theirs {
                return 0.5;
            }
            let pair = [decode(mine), decode(theirs)];
            match data.score_group(r, &pair).as_deref() {
                Some([a, b]) => win(*a, *b),
                _ => 0.5,
            }
        })
        .sum();
    wins / responses.len().max(1) as f64
}

/// One comparison's share of a win: 1 if `mine` scores higher, ½ on a tie or when
/// either could not be scored (no judge answered: no verdict either way), else 0.
fn win(mine: f64, theirs: f64) -> f64 {
    match mine.partial_cmp(&theirs) {
        Some(std::cmp::Ordering::Greater) => 1.0,
        Some(std::cmp::Ordering::Equal) | None => 0.5,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_that_could_not_be_scored_are_left_out_of_the_mean() {
        assert_eq!(scored_mean("d", &[1.0, UNSCORED, 0.0, 1.0]), 2.0 / 3.0);
        assert_eq!(scored_mean("d", &[UNSCORED, UNSCORED]), 0.0);
        assert_eq!(scored_mean("d", &[]), 0.0);
    }
}
