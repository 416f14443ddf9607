//! The runner's conversations: one [`Episode`] per row of a batch that holds a
//! multi-turn environment's rows. A multi-turn row talks to its environment through
//! the guarded calls (`guard_start`, `guard_step`, `guard_finish`), so a faulty
//! environment costs its conversation, never the step; its tool results are rendered
//! by the chat template. A single-turn row in the same batch is a conversation of one
//! turn, scored as [`EnvData::reward`] scores it.
//!
//! A conversation that could not be scored (an environment fault or limit, a failed
//! judge, a template that cannot render tool results) ends [`UNSCORED`], which GRPO
//! leaves out of its advantages and loss and evaluation leaves out of its mean; a
//! model's own error stays a 0.

use cascade_envs::{guard_finish, guard_start, guard_step, Fault, Reward, Session, Turn};

use super::data::EnvData;
use crate::grpo::UNSCORED;
use crate::sampling::multi_turn::Episode;
use crate::tokenizer::TextTokenizer;

/// Where a row's conversation stands.
enum State {
    Talking(Session),
    /// A single-turn environment's row: its one turn is scored as a response.
    OneTurn,
    Over(f64),
}

/// Row `row` of `data`, as a conversation.
pub struct EnvEpisode<'a> {
    data: &'a EnvData,
    row: usize,
    tokenizer: &'a TextTokenizer,
    state: State,
}

impl<'a> EnvEpisode<'a> {
    pub fn new(data: &'a EnvData, row: usize, tokenizer: &'a TextTokenizer) -> Self {
        let state = match data.env.multi_turn() {
            None => State::OneTurn,
            Some(env) => match guard_start(env, &data.rows[row]) {
                Ok(session) => State::Talking(session),
                Err(refused) => {
                    report(data, row, refused.fault.as_ref());
                    State::Over(score_of(&refused.reward))
                }
            },
        };
        Self {
            data,
            row,
            tokenizer,
            state,
        }
    }

    /// Takes the model's turn `text` in a conversation: the ids to append, or the
    /// conversation's end and reward.
    fn talk(&mut self, text: &str, stop: Option<i64>) -> Result<Vec<i64>, f64> {
        let (data, row) = (self.data, self.row);
        let (State::Talking(session), Some(env)) = (&mut self.state, data.env.multi_turn()) else {
            return Err(UNSCORED);
        };
        let guarded = guard_step(env, session, text);
        report(data, row, guarded.fault.as_ref());
        match guarded.turn {
            Turn::Done(reward) => Err(score_of(&reward)),
            Turn::ToolResults(results) => self
                .tokenizer
                .render_tool_results(&results, stop, data.enable_thinking)
                .and_then(|text| self.tokenizer.encode(&text))
                .map_err(|e| {
                    // The template cannot render tool results: a setup error, shown.
                    eprintln!("[{}] row {row}: {e}; not scored", data.domain);
                    UNSCORED
                }),
        }
    }
}

/// A reward's score, or [`UNSCORED`] when it is a failure rather than a verdict.
fn score_of(reward: &Reward) -> f64 {
    if reward.is_failed() {
        UNSCORED
    } else {
        reward.score
    }
}

/// Prints a fault of the environment (a bug, unlike a sample's own errors).
fn report(data: &EnvData, row: usize, fault: Option<&Fault>) {
    if let Some(fault) = fault {
        eprintln!(
            "[{}] row {row}: environment fault {fault:?}; not scored",
            data.domain
        );
    }
}

impl Episode for EnvEpisode<'_> {
    fn next(&mut self, turn: &[i64], stop: Option<i64>) -> Option<Vec<i64>> {
        let text = self.tokenizer.decode(turn).unwrap_or_default();
        let outcome = match self.state {
            State::Over(_) => return None,
            State::OneTurn => Err(self.data.reward(self.row, &text).unwrap_or(UNSCORED)),
            State::Talking(_) => self.talk(&text, stop),
        };
        match outcome {
            Ok(ids) => Some(ids),
            Err(score) => {
                self.state = State::Over(score);
                None
            }
        }
    }

    fn stop(&mut self, unfinished_turn: &[i64]) {
        let score = match &mut self.state {
            State::Talking(session) => match self.data.env.multi_turn() {
                Some(env) => {
                    let guarded = guard_finish(env, session);
                    report(self.data, self.row, guarded.fault.as_ref());
                    score_of(&guarded.reward)
                }
                None => UNSCORED,
            },
            // A response cut at the cap is scored as it stands, as single-turn
            // sampling scores it (the stage's `unfinished` setting decides the rest).
            State::OneTurn => {
                let text = self.tokenizer.decode(unfinished_turn).unwrap_or_default();
                self.data.reward(self.row, &text).unwrap_or(UNSCORED)
            }
            State::Over(score) => *score,
        };
        self.state = State::Over(score);
    }

    fn reward(&self) -> f64 {
        match self.state {
            State::Over(score) => score,
            _ => 0.0,
        }
    }
}

/// Whether any drawn `(env, row)` pick is a multi-turn environment's.
pub fn any_multi_turn(data: &[EnvData], picks: &[(usize, usize)]) -> bool {
    picks
        .iter()
        .any(|&(e, _)| data[e].env.multi_turn().is_some())
}

/// The conversations of a batch of `picks`, `group_size` rows per pick, in order.
pub fn episodes<'a>(
    data: &'a [EnvData],
    picks: &[(usize, usize)],
    group_size: usize,
    tokenizer: &'a TextTokenizer,
) -> Vec<Box<dyn Episode + 'a>> {
    picks
        .iter()
        .flat_map(|&(e, r)| std::iter::repeat_n((e, r), group_size.max(1)))
        .map(|(e, r)| Box::new(EnvEpisode::new(&data[e], r, tokenizer)) as Box<dyn Episode + 'a>)
        .collect()
}
