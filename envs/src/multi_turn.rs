//! The multi-turn form of an environment: a conversation in which the model's turns
//! may call tools, the environment answers each turn with the tool results to append,
//! until the model stops calling tools and the environment gives the reward.
//!
//! ```text
//! let mut session = env.start(&row)?;          // session.messages = the prompt
//! loop {
//!     let turn = generate(&session.messages);  // the trainer's model turn
//!     match env.step(&mut session, &turn) {
//!         Turn::ToolResults(results) => continue, // already appended to the session
//!         Turn::Done(reward) => break reward,
//!     }
//! }
//! ```
//!
//! A tool result is a [`ChatMessage`] with role `tool`; how it is rendered (Cascade 2's
//! template puts `<tool_response>` in a user turn) is the chat template's business, not
//! the environment's. Turn and token budgets are the driver's; the environment bounds
//! its own work (e.g. how many tool calls it executes per session).
//!
//! The single-shot [`Environment::score`] of such an environment scores a finished,
//! recorded conversation by replaying it ([`replay`]), so `cascade score` reproduces
//! the reward the loop gave. Drivers call these through the guarded forms in
//! [`crate::scoring`], so a panicking environment costs its conversation only.

use std::any::Any;

use cascade_verifiers::{FieldError, Reward, Sample};

use crate::environment::{ChatMessage, Environment};

/// One conversation in progress: its messages so far and the environment's live state
/// (e.g. the workplace's databases), which only the environment reads.
pub struct Session {
    /// The prompt, then each model turn (role `assistant`) and its tool results.
    pub messages: Vec<ChatMessage>,
    /// Model turns taken so far.
    pub turns: usize,
    state: Box<dyn Any + Send>,
}

impl Session {
    pub fn new(messages: Vec<ChatMessage>, state: impl Any + Send) -> Self {
        Self {
            messages,
            turns: 0,
            state: Box::new(state),
        }
    }

    /// The environment's state, when it is of type `T`.
    pub fn state_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.state.downcast_mut()
    }
}

/// What the environment answers to one model turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// The turn called tools: their results, in call order, to append before the
    /// model's next turn.
    ToolResults(Vec<ChatMessage>),
    /// The conversation is over (the model called no tool, or a limit was hit).
    Done(Reward),
}

/// An environment the model talks to over several turns.
pub trait MultiTurnEnvironment: Environment {
    /// Starts a conversation on a dataset row: the prompt and a fresh state.
    fn start(&self, row: &Sample) -> Result<Session, FieldError>;

    /// Takes one model turn: records it and its tool results in `session.messages`,
    /// and says whether the conversation goes on. Never panics on any turn text.
    fn step(&self, session: &mut Session, model_turn: &str) -> Turn;

    /// The driver stops the conversation before the environment ended it (its turn or
    /// token budget ran out): the reward of where the conversation stands.
    fn finish(&self, session: &mut Session) -> Reward;
}

/// Replays a recorded conversation's model turns on a fresh session of `row`: the
/// reward the loop gave, or, when the turns run out before the environment ended the
/// conversation, [`MultiTurnEnvironment::finish`]'s. Turns after the end are ignored,
/// as the loop would never have sampled them.
pub fn replay<'a>(
    env: &dyn MultiTurnEnvironment,
    row: &Sample,
    model_turns: impl IntoIterator<Item = &'a str>,
) -> Result<Reward, FieldError> {
    let mut session = env.start(row)?;
    for turn in model_turns {
        if let Turn::Done(reward) = env.step(&mut session, turn) {
            return Ok(reward);
        }
    }
    Ok(env.finish(&mut session))
}
