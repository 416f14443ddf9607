//! The `Environment` trait: one domain's prompt rendering and reward.

use cascade_verifiers::{FieldError, Reward, Sample};
use serde::{Deserialize, Serialize};

/// One chat message of a prompt, in the usual `{role, content}` shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    /// A row's chat prompt in any layout `cascade_datasets::preference::prompt_messages`
    /// reads (`prompt` as a string or messages, `messages`, `context`, NeMo Gym's
    /// `responses_create_params.input`): the prompts of the model-judged envs.
    pub fn chat_prompt(row: &Sample) -> Result<Vec<Self>, FieldError> {
        let messages = cascade_datasets::preference::prompt_messages(row.value()).map_err(|e| {
            FieldError::Invalid {
                field: "prompt".into(),
                problem: format!("cannot be read: {e}"),
            }
        })?;
        Ok(messages
            .into_iter()
            .map(|m| Self {
                role: m.role,
                content: m.content,
            })
            .collect())
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: "system".into(),
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: "assistant".into(),
            content: content.into(),
        }
    }
    /// A tool's result, answering a call of the model's turn before it.
    pub fn tool(content: impl Into<String>) -> Self {
        Self {
            role: "tool".into(),
            content: content.into(),
        }
    }

    /// A one-turn prompt: the system message, unless it is empty (an env configured
    /// with `system_prompt = ""`), then the user's.
    pub fn system_then_user(system: &str, user: impl Into<String>) -> Vec<Self> {
        let mut messages = Vec::with_capacity(2);
        if !system.is_empty() {
            messages.push(Self::system(system));
        }
        messages.push(Self::user(user));
        messages
    }
}

/// A domain environment. Implementations are shared across threads and called
/// concurrently; they must be deterministic and must not panic on any sample.
pub trait Environment: Send + Sync {
    /// The registry name, e.g. `math`.
    fn name(&self) -> &str;

    /// Turns a dataset row (a sample without `response`) into the chat prompt the
    /// policy sees.
    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError>;

    /// Scores one sample: the row plus the model's `response`. A malformed sample is
    /// `Reward::error(..)`, never a panic.
    fn score(&self, sample: &Sample) -> Reward;

    /// The multi-turn form, for environments whose model turns call tools.
    fn multi_turn(&self) -> Option<&dyn crate::multi_turn::MultiTurnEnvironment> {
        None
    }

    /// The reward model whose score is this environment's reward (`rlhf`), for a
    /// consumer that runs models (the trainer); `None` for environments that check.
    fn model_reward(&self) -> Option<&crate::rlhf::ModelReward> {
        None
    }

    /// The group form, for environments whose reward compares the responses to one
    /// prompt with each other (`genrm`); consumers score their groups through
    /// `scoring::guard_group`.
    fn group(&self) -> Option<&dyn crate::group::GroupEnvironment> {
        None
    }
}
