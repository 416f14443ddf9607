//! The multi-turn rollout: each row is a conversation. The model generates a turn (up
//! to a stop token or string, or the per-turn cap); the row's [`Episode`] answers it
//! with the tokens to append (tool results rendered by the chat template, and the next
//! assistant opener) or ends the conversation; the model continues, up to `max_turns`
//! turns and `max_tokens` tokens per conversation.
//!
//! The KV cache lives across turns: only the appended tokens are run through the model
//! before the next turn, never the conversation so far. Rows are ragged (their turns
//! and results differ in length), so the cache holds padding in the middle of rows;
//! positions count real tokens only and attention skips padding, so each row computes
//! exactly what it would alone.
//!
//! The result is a [`Generation`] laid out without that padding: a row's response is
//! every token after its prompt (model turns and tool results), and its loss mask
//! (`completion_trained`) covers the model's own tokens only. The sampling
//! log-probabilities of appended tokens are 0, as they are not trained.

use rayon::prelude::*;
use tch::Tensor;

use super::{decode_steps, prefill, Generation, HostSteps, PromptBatch, SamplingParams, Steps};
use crate::model::{KvCache, Transformer};

/// How long a conversation may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnLimits {
    /// Model turns per conversation (each at most `max_new_tokens`).
    pub max_turns: usize,
    /// Tokens after the prompt per conversation: model turns and tool results.
    pub max_tokens: usize,
}

/// One conversation, as the rollout drives it. Implementations hold the environment's
/// session and the tokenizer; the rollout only sees token ids.
pub trait Episode: Send {
    /// The model's turn ended (on a stop token or string): `turn` is its ids, `stop`
    /// the stop token it ended on, if it did. Returns the ids to append before the
    /// model's next turn, or `None` when the conversation is over.
    fn next(&mut self, turn: &[i64], stop: Option<i64>) -> Option<Vec<i64>>;

    /// The rollout stopped the conversation before it was over: the model's turn was
    /// cut at the cap or the token budget (`unfinished_turn` is what it wrote), or the
    /// turn or token limit was reached after a turn the episode answered (it is empty).
    fn stop(&mut self, unfinished_turn: &[i64]);

    /// The conversation's reward, once it is over (MOPD samples without one);
    /// [`crate::grpo::UNSCORED`] when it could not be scored.
    fn reward(&self) -> f64;
}

/// One row's conversation so far, after its prompt.
#[derive(Debug, Clone, Default)]
struct RowLog {
    ids: Vec<i64>,
    trained: Vec<bool>,
    logprobs: Vec<f32>,
    turns: usize,
    /// Still generating.
    active: bool,
    /// Ended by its episode (not by a limit: a row that reaches one is stopped in
    /// [`answer_turn`]).
    finished: bool,
}

/// Generates a conversation per row: `group_size` rows per prompt, grouped as
/// [`super::generate_groups`] does, row `r` driven by `episodes[r]`.
pub fn generate_episodes(
    model: &Transformer,
    prompts: &[Vec<i64>],
    group_size: usize,
    params: &SamplingParams,
    limits: TurnLimits,
    episodes: &mut [Box<dyn Episode + '_>],
    decode: &(dyn Fn(&[i64]) -> String + Sync),
) -> Generation {
    tch::manual_seed(params.seed);
    let (batch, rows) = tch::no_grad(|| {
        model.autocast(|| {
            let prefilled = prefill(model, prompts, group_size, params.pad_id);
            let mut cache = prefilled.cache;
            let mut logits = prefilled.logits;
            let b = prefilled.batch.ids.size()[0] as usize;
            assert_eq!(episodes.len(), b, "one episode per row");
            let mut rows = vec![
                RowLog {
                    active: true,
                    ..Default::default()
                };
                b
            ];
            for _ in 0..limits.max_turns.max(1) {
                let steps = run_turn(model, &mut cache, logits, &rows, limits, params, decode);
                let appended = answer_turn(&mut rows, &steps, episodes, limits, params);
                if appended.iter().all(Option::is_none) {
                    break;
                }
                logits = append(model, &mut cache, &steps, &appended, params.pad_id);
            }
            (prefilled.batch, rows)
        })
    });
    assemble(batch, rows, params.pad_id)
}

/// One turn of every active row, each within its remaining token budget.
fn run_turn(
    model: &Transformer,
    cache: &mut KvCache,
    logits: Tensor,
    rows: &[RowLog],
    limits: TurnLimits,
    params: &SamplingParams,
    decode: &dyn Fn(&[i64]) -> String,
) -> Steps {
    let device = model.device();
    let done: Vec<bool> = rows.iter().map(|r| !r.active).collect();
    let budget: Vec<i64> = rows
        .iter()
        .map(|r| {
            limits
                .max_tokens
                .saturating_sub(r.ids.len())
                .clamp(1, i64::MAX as usize) as i64
        })
        .collect();
    let done = Tensor::from_slice(&done).to_device(device);
    let budget = Tensor::from_slice(&budget).to_device(device);
    decode_steps(
        model,
        cache,
        logits,
        done,
        Some(&budget),
        params,
        decode,
        None,
        // The conversation's cache lives on after the turn: every row stays in it.
        false,
    )
}

/// Records the turn in every active row and asks its episode what follows. Returns,
/// per row, the ids to append when its conversation goes on.
fn answer_turn(
    rows: &mut [RowLog],
    steps: &Steps,
    episodes: &mut [Box<dyn Episode + '_>],
    limits: TurnLimits,
    params: &SamplingParams,
) -> Vec<Option<Vec<i64>>> {
    let (ids, valid, logprobs) = steps.stacked();
    let host = HostSteps::of(&ids, &valid, &logprobs);
    let by_string = &steps.stopped_by_string;
    rows.par_iter_mut()
        .zip(episodes.par_iter_mut())
        .enumerate()
        .map(|(r, (row, episode))| {
            if !row.active {
                return None;
            }
            let (turn, lp) = host.row(r);
            row.trained.extend(std::iter::repeat_n(true, turn.len()));
            row.ids.extend_from_slice(&turn);
            row.logprobs.extend(lp);
            row.turns += 1;
            let stop = turn
                .last()
                .copied()
                .filter(|id| params.stop_ids.contains(id));
            let ended = stop.is_some() || by_string.get(r).copied().unwrap_or(false);
            let next = if ended {
                episode.next(&turn, stop)
            } else {
                None
            };
            let Some(appended) = next else {
                row.active = false;
                row.finished = ended;
                if !ended {
                    episode.stop(&turn); // cut at the cap or the budget mid-turn
                }
                return None;
            };
            let room =
                row.turns < limits.max_turns && row.ids.len() + appended.len() < limits.max_tokens;
            if !room {
                episode.stop(&[]);
                row.active = false;
                return None;
            }
            row.ids.extend_from_slice(&appended);
            row.trained
                .extend(std::iter::repeat_n(false, appended.len()));
            row.logprobs
                .extend(std::iter::repeat_n(0.0, appended.len()));
            Some(appended)
        })
        .collect()
}

/// Runs the turn's last tokens (decoding never feeds them) and each continuing row's
/// appended ids through the model, right-aligned so every such row ends on a real
/// token; returns the logits of every row's next token.
fn append(
    model: &Transformer,
    cache: &mut KvCache,
    steps: &Steps,
    appended: &[Option<Vec<i64>>],
    pad_id: i64,
) -> Tensor {
    let b = appended.len() as i64;
    let width = appended.iter().flatten().map(Vec::len).max().unwrap_or(0);
    let mut ids = Vec::with_capacity(appended.len() * width);
    let mut valid = Vec::with_capacity(appended.len() * width);
    for a in appended {
        let a = a.as_deref().unwrap_or(&[]);
        let pad = width - a.len();
        ids.extend(std::iter::repeat_n(pad_id, pad).chain(a.iter().copied()));
        valid.extend(std::iter::repeat_n(false, pad).chain(std::iter::repeat_n(true, a.len())));
    }
    let device = model.device();
    let shape = [b, width as i64];
    let last = steps.tokens.len() - 1;
    let chunk = Tensor::cat(
        &[
            steps.tokens[last].view([b, 1]),
            Tensor::from_slice(&ids).view(shape).to_device(device),
        ],
        1,
    );
    let chunk_valid = Tensor::cat(
        &[
            steps.valids[last].view([b, 1]),
            Tensor::from_slice(&valid).view(shape).to_device(device),
        ],
        1,
    );
    let hidden = model.forward_hidden(&chunk, &chunk_valid, Some(cache));
    model.logits(&hidden.select(1, -1))
}

/// The rows as a [`Generation`], without the rollout's interior padding.
fn assemble(prompts: PromptBatch, rows: Vec<RowLog>, pad_id: i64) -> Generation {
    let device = prompts.ids.device();
    let completions: Vec<Vec<i64>> = rows.iter().map(|r| r.ids.clone()).collect();
    let trained: Vec<Vec<bool>> = rows.iter().map(|r| r.trained.clone()).collect();
    let (completion_ids, completion_valid, completion_trained) =
        Generation::padded(&completions, &trained, pad_id, device);
    let width = completion_ids.size()[1] as usize;
    let mut logprobs = Vec::with_capacity(rows.len() * width);
    for r in &rows {
        logprobs.extend(r.logprobs.iter().copied());
        logprobs.extend(std::iter::repeat_n(0.0f32, width - r.logprobs.len()));
    }
    let sampling_logprobs = Tensor::from_slice(&logprobs)
        .view([rows.len() as i64, width as i64])
        .to_device(device);
    Generation {
        prompts,
        completion_ids,
        completion_valid,
        sampling_logprobs,
        finished: rows.iter().map(|r| r.finished).collect(),
        turns: rows.iter().map(|r| r.turns).collect(),
        completions,
        completion_trained,
        trained,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::*;
    use crate::grpo::step::{grpo_update, sample_episodes};
    use crate::logprobs::{token_logprobs, SequenceBatch};
    use crate::optim::AdamW;
    use crate::toy::bench::ToyTask;
    use tch::Kind;

    /// What a scripted episode saw: the (ids, trained) segments the rollout should
    /// have laid out, and whether it was stopped.
    #[derive(Default)]
    struct Log {
        segments: Vec<(Vec<i64>, bool)>,
        stopped: bool,
    }

    impl Log {
        fn laid_out(&self) -> (Vec<i64>, Vec<bool>) {
            let mut ids = Vec::new();
            let mut trained = Vec::new();
            for (seg, t) in &self.segments {
                ids.extend(seg);
                trained.extend(std::iter::repeat_n(*t, seg.len()));
            }
            (ids, trained)
        }
    }

    type Logs = Vec<Arc<Mutex<Log>>>;

    /// Answers the first `answers` turns with `tail`, then ends.
    struct Scripted {
        tail: Vec<i64>,
        answers: usize,
        log: Arc<Mutex<Log>>,
    }

    impl Episode for Scripted {
        fn next(&mut self, turn: &[i64], _stop: Option<i64>) -> Option<Vec<i64>> {
            let mut log = self.log.lock().unwrap();
            log.segments.push((turn.to_vec(), true));
            if self.answers == 0 {
                return None;
            }
            self.answers -= 1;
            log.segments.push((self.tail.clone(), false));
            Some(self.tail.clone())
        }
        fn stop(&mut self, unfinished_turn: &[i64]) {
            let mut log = self.log.lock().unwrap();
            log.stopped = true;
            if unfinished_turn.is_empty() {
                log.segments.pop(); // the last tail was refused: no room left
            } else {
                log.segments.push((unfinished_turn.to_vec(), true));
            }
        }
        fn reward(&self) -> f64 {
            (self.log.lock().unwrap().segments.len() % 3) as f64
        }
    }

    fn scripted(task: &ToyTask, rows: &[(&str, usize)]) -> (Vec<Box<dyn Episode>>, Logs) {
        let logs: Vec<Arc<Mutex<Log>>> = rows.iter().map(|_| Arc::default()).collect();
        let episodes = rows
            .iter()
            .zip(&logs)
            .map(|((tail, answers), log)| {
                Box::new(Scripted {
                    tail: task.tokenizer.encode(tail).expect("encode"),
                    answers: *answers,
                    log: Arc::clone(log),
                }) as Box<dyn Episode>
            })
            .collect();
        (episodes, logs)
    }

    /// Ragged conversations (different prompts, turn counts and tool-result lengths)
    /// come out as each row's turns and tool results in order, the loss mask on the
    /// model's tokens only; the log-probabilities recorded through the cache, padding
    /// in the middle of rows included, are those a fresh pass over the laid-out rows
    /// computes, so the GRPO update is on-policy (drift is rounding).
    #[test]
    fn conversations_lay_out_their_turns_and_train_on_policy() {
        crate::numerics::pin_for_tests();
        let task = ToyTask::new().expect("toy task");
        let warm = crate::toy::assets_dir().with_file_name("toy-qwen2-warm");
        let mut model =
            Transformer::load(&warm, tch::Device::Cpu, Kind::Float).expect("warm toy model");
        model.set_trainable(true);
        let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
        let prompts: Vec<Vec<i64>> = ["1+2=", "13+4="]
            .iter()
            .map(|p| task.tokenizer.encode(p).expect("encode"))
            .collect();
        let rows = [("5+1=", 2), ("+2+2=", 1), ("1=", 2), ("9+9+9=", 0)];
        let mut cfg = task.grpo.clone();
        cfg.group_size = 2;
        cfg.sampling.seed = 3;
        let limits = TurnLimits {
            max_turns: 3,
            max_tokens: 40,
        };
        let (mut episodes, logs) = scripted(&task, &rows);
        let scored = sample_episodes(&model, None, &prompts, &mut episodes, limits, &decode, &cfg);
        let g = &scored.generation;
        for (r, log) in logs.iter().enumerate() {
            let (ids, trained) = log.lock().unwrap().laid_out();
            assert_eq!(g.completions[r], ids, "row {r}");
            assert_eq!(g.trained[r], trained, "row {r}");
            assert!(
                g.turns[r] >= 1 && g.turns[r] <= rows[r].1 + 1,
                "row {r}: {:?}",
                g.turns
            );
        }
        assert!(g.turns.iter().any(|&t| t > 1), "{:?}", g.turns);
        assert_eq!(
            scored.rewards,
            episodes.iter().map(|e| e.reward()).collect::<Vec<_>>()
        );
        // A fresh pass over the laid-out rows gives the recorded log-probabilities.
        let batch = SequenceBatch {
            prompt_ids: &g.prompts.ids,
            prompt_valid: &g.prompts.valid,
            completion_ids: &g.completion_ids,
            completion_valid: &g.completion_valid,
        };
        let (fresh, _) = tch::no_grad(|| token_logprobs(&model, &batch));
        let gap = ((fresh - &g.sampling_logprobs).abs()
            * g.completion_trained.to_kind(Kind::Float))
        .max();
        assert!(f64::try_from(gap).unwrap() < 1e-4);
        let mut optimizer = AdamW::new(model.parameters(), Default::default());
        let stats = grpo_update(&model, &mut optimizer, 1e-3, scored, &cfg, Instant::now());
        // Tool results carry sampling log-probability 0: trained on, the drift would be
        // their whole log-probability.
        assert!(stats.logprob_drift_max < 1e-4, "{stats:?}");
        assert!(stats.grad_norm > 0.0, "{stats:?}");
        assert!(stats.turns_mean > 1.0, "{stats:?}");
    }

    /// The token budget and the turn limit stop conversations: no row runs past them,
    /// and the episodes the rollout stopped are told, their rows unfinished.
    #[test]
    fn limits_stop_conversations_and_say_so() {
        crate::numerics::pin_for_tests();
        let task = ToyTask::new().expect("toy task");
        let warm = crate::toy::assets_dir().with_file_name("toy-qwen2-warm");
        let model = Transformer::load(&warm, tch::Device::Cpu, Kind::Float).expect("model");
        let decode = |ids: &[i64]| task.tokenizer.decode(ids).unwrap_or_default();
        let prompts = vec![task.tokenizer.encode("2+2=").expect("encode")];
        let params = SamplingParams {
            temperature: 0.0,
            ..task.grpo.sampling.clone()
        };
        // `usize::MAX`: no budget (it once wrapped to a negative one).
        for (limits, answers) in [
            ((2, 100), 5),
            ((5, 9), 5),
            ((4, 100), 1),
            ((4, usize::MAX), 1),
        ] {
            let limits = TurnLimits {
                max_turns: limits.0,
                max_tokens: limits.1,
            };
            let (mut episodes, logs) = scripted(&task, &[("3+3=", answers)]);
            let g = generate_episodes(&model, &prompts, 1, &params, limits, &mut episodes, &decode);
            assert!(g.completions[0].len() <= limits.max_tokens, "{limits:?}");
            assert!(g.turns[0] <= limits.max_turns, "{limits:?}");
            let log = logs[0].lock().unwrap();
            assert_eq!(log.laid_out().0, g.completions[0], "{limits:?}");
            assert_eq!(log.stopped, !g.finished[0], "{limits:?}");
            assert_eq!(
                g.finished[0],
                answers < limits.max_turns && limits.max_tokens >= 100,
                "{limits:?}: {:?}",
                g.turns
            );
        }
    }
}
