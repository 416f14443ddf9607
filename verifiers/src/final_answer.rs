//! Where the final answer of a response is: the one rule every environment grades by.
//!
//! Reasoning models write a thinking block (tentative answers, corrections, hedges),
//! then the answer. Only the answer is graded:
//! - the response is first cut at the first end-of-turn token of a common chat
//!   template ([`END_TOKENS`]: DeepSeek's `<｜end▁of▁sentence｜>`, Qwen's `<|im_end|>`
//!   and `<|endoftext|>`, Llama's `<|eot_id|>` and `<|end_of_text|>`, Nemotron's
//!   `<extra_id_1>`, Gemma's `<end_of_turn>`, `</s>`): what follows is the model
//!   talking to itself. A leading turn opener (`<|im_start|>assistant`) is skipped;
//! - closed thinking: the final answer is the text after the last `</think>` (a
//!   template that opens `<think>` in the prompt leaves only the closing tag), less
//!   the line breaks that separate it from the tag: they are the template's, as the
//!   chat templates' own `content.split('</think>')[-1].lstrip('\n')` says. Kept,
//!   they made IFEval's paragraph checks see an empty first paragraph;
//! - a `<think>` that never closes means the response was cut off while thinking: it
//!   has **no** final answer ([`AnswerStatus::Truncated`]; environments give reward 0
//!   with `details.error` saying so), whatever tentative answers the thinking holds;
//! - gpt-oss (harmony) responses: the final answer is the `final` channel's message
//!   (`<|channel|>final<|message|>…`, up to `<|return|>` or `<|end|>`); a response
//!   with only `analysis` messages never reached its answer (truncated);
//! - a response without thinking is all final answer.
//!
//! Pure and linear in the response length; the text is returned as a slice of the
//! response, otherwise untrimmed (leading indentation matters to YAML and code).
//!
//! ```
//! use cascade_verifiers::final_answer::{final_answer, AnswerStatus};
//! let a = final_answer("<think>maybe \\boxed{8}</think>\nAnswer: 6<|im_end|>");
//! assert_eq!(a.text(), Some("Answer: 6"));
//! assert_eq!(a.status, AnswerStatus::AfterThinking);
//! assert_eq!(final_answer("<think>so \\boxed{8}").text(), None);
//! assert_eq!(final_answer("42").status, AnswerStatus::NoThinking);
//! ```

use serde::{Deserialize, Serialize};
use thiserror::Error;

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";

/// End-of-turn and end-of-sentence tokens of common model families: the response
/// ends at the first one.
pub const END_TOKENS: [&str; 13] = [
    "<｜end▁of▁sentence｜>", // DeepSeek (full-width bars)
    "<|end▁of▁sentence|>",   // DeepSeek, ASCII bars
    "<|im_end|>",            // Qwen, Nemotron (ChatML)
    "<|im_start|>",          // a next ChatML turn
    "<|endoftext|>",         // Qwen, GPT-2 family
    "<|eot_id|>",            // Llama 3, Llama-Nemotron
    "<|end_of_text|>",       // Llama 3
    "<|start_header_id|>",   // a next Llama 3 turn
    "<extra_id_1>",          // Nemotron-4 turn separator
    "<end_of_turn>",         // Gemma
    "</s>",                  // Llama 2, Mistral
    "<|return|>",            // gpt-oss, end of the final message
    "<|end|>",               // gpt-oss, Phi: end of a message
];

/// Turn openers a response may start with (a decoded rollout that kept them).
const OPENERS: [&str; 4] = [
    "<|im_start|>assistant",
    "<|start|>assistant",
    "<|start_header_id|>assistant<|end_header_id|>",
    "<｜Assistant｜>",
];

/// How the final answer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// No thinking: the whole response is the answer.
    NoThinking,
    /// The text after the last `</think>` (or gpt-oss's final channel).
    AfterThinking,
    /// Cut off while thinking: there is no final answer.
    Truncated(Truncation),
}

/// Why a response has no final answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    #[error("truncated: the response ends inside its <think> block, so it has no final answer")]
    UnclosedThink,
    #[error("truncated: the response has only gpt-oss analysis messages and no final answer")]
    NoFinalChannel,
}

/// Which text of a response an environment grades. Every built-in environment grades
/// the final answer; `WholeResponse` is for a task whose grader must read the
/// reasoning too (a plugin, or a reward model judging the reasoning).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Graded {
    #[default]
    FinalAnswer,
    WholeResponse,
}

/// A response's final answer and how it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalAnswer<'a> {
    /// The answer text (empty when truncated).
    text: &'a str,
    pub status: AnswerStatus,
}

impl<'a> FinalAnswer<'a> {
    /// The answer text; `None` when the response was cut off while thinking.
    pub fn text(&self) -> Option<&'a str> {
        match self.status {
            AnswerStatus::Truncated(_) => None,
            _ => Some(self.text),
        }
    }

    /// The answer text, or why there is none.
    pub fn answer(&self) -> Result<&'a str, Truncation> {
        match self.status {
            AnswerStatus::Truncated(why) => Err(why),
            _ => Ok(self.text),
        }
    }

    /// Whether the response had thinking (closed or not).
    pub fn had_thinking(&self) -> bool {
        self.status != AnswerStatus::NoThinking
    }
}

/// The final answer of `response` (see the module docs).
pub fn final_answer(response: &str) -> FinalAnswer<'_> {
    let body = without_opener(response);
    if body.contains("<|channel|>") {
        return harmony(body);
    }
    let body = before_end_token(body);
    let (after, closed) = match body.rfind(THINK_CLOSE) {
        Some(at) => (
            body[at + THINK_CLOSE.len()..].trim_start_matches(['\n', '\r']),
            true,
        ),
        None => (body, false),
    };
    // A `<think>` after the last `</think>` (or with none) was opened and never closed.
    if after.contains(THINK_OPEN) {
        return truncated(Truncation::UnclosedThink);
    }
    let status = if closed {
        AnswerStatus::AfterThinking
    } else {
        AnswerStatus::NoThinking
    };
    FinalAnswer {
        text: after,
        status,
    }
}

/// The text an environment configured with `graded` reads: the final answer, or the
/// whole response (end tokens still cut).
pub fn graded_text(response: &str, graded: Graded) -> Result<&str, Truncation> {
    match graded {
        Graded::FinalAnswer => final_answer(response).answer(),
        Graded::WholeResponse => Ok(before_end_token(without_opener(response))),
    }
}

fn truncated(why: Truncation) -> FinalAnswer<'static> {
    FinalAnswer {
        text: "",
        status: AnswerStatus::Truncated(why),
    }
}

fn without_opener(response: &str) -> &str {
    let trimmed = response.trim_start();
    OPENERS
        .iter()
        .find_map(|o| trimmed.strip_prefix(o))
        .unwrap_or(response)
}

/// The text up to the first end token.
fn before_end_token(text: &str) -> &str {
    let cut = END_TOKENS
        .iter()
        .filter_map(|t| text.find(t))
        .min()
        .unwrap_or(text.len());
    &text[..cut]
}

/// A gpt-oss (harmony) response: the last message that is not on the `analysis`
/// channel. `final` gives its message; another channel (a `commentary` tool call) keeps
/// its header, which names the tool.
fn harmony(body: &str) -> FinalAnswer<'_> {
    const CHANNEL: &str = "<|channel|>";
    const MESSAGE: &str = "<|message|>";
    let last = body
        .match_indices(CHANNEL)
        .map(|(at, _)| &body[at + CHANNEL.len()..])
        .filter(|m| !m.starts_with("analysis"))
        .last();
    let Some(message) = last else {
        return truncated(Truncation::NoFinalChannel);
    };
    let text = match message.strip_prefix("final") {
        Some(rest) => rest
            .find(MESSAGE)
            .map_or(rest, |at| &rest[at + MESSAGE.len()..]),
        None => message,
    };
    let end = ["<|return|>", "<|end|>", "<|call|>", "<|start|>"]
        .iter()
        .filter_map(|t| text.find(t))
        .min()
        .unwrap_or(text.len());
    FinalAnswer {
        text: &text[..end],
        status: AnswerStatus::AfterThinking,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<&str> {
        final_answer(s).text()
    }

    #[test]
    fn closed_thinking_gives_the_text_after_the_last_close() {
        assert_eq!(
            text("<think>\\boxed{8}</think>Answer: 6"),
            Some("Answer: 6")
        );
        assert_eq!(text("<think>a</think>x<think>b</think>y"), Some("y"));
        // A template that opened <think> in the prompt: only the close is generated.
        assert_eq!(
            text("draft \\boxed{1}\n</think>\n\\boxed{2}"),
            Some("\\boxed{2}")
        );
        // The line breaks after the tag are the template's; indentation is the answer's.
        assert_eq!(text("<think>a</think>\r\n\n  key: 1\n"), Some("  key: 1\n"));
        assert_eq!(
            final_answer("<think>a</think>b").status,
            AnswerStatus::AfterThinking
        );
    }

    #[test]
    fn unclosed_thinking_has_no_final_answer() {
        for cut in [
            "<think>so \\boxed{13}",
            "  <think>\nthe answer is 180... wait",
            "<think>a</think>b<think>\\boxed{2}",
            "<think>x<|im_end|></think>y",
        ] {
            let a = final_answer(cut);
            assert_eq!(a.text(), None, "{cut}");
            assert_eq!(a.answer(), Err(Truncation::UnclosedThink), "{cut}");
        }
        assert!(Truncation::UnclosedThink.to_string().contains("truncated"));
    }

    #[test]
    fn end_tokens_of_common_families_end_the_response() {
        for end in END_TOKENS {
            let r = format!("<think>t</think>Answer: 16 days{end}\n<|im_start|>user\n\\boxed{{3}}");
            assert_eq!(text(&r), Some("Answer: 16 days"), "{end}");
        }
        assert_eq!(text("<|im_start|>assistant\n42<|im_end|>"), Some("\n42"));
        assert_eq!(
            text("Answer: 16 days<｜end▁of▁sentence｜>"),
            Some("Answer: 16 days")
        );
    }

    #[test]
    fn gpt_oss_channels() {
        let r = "<|channel|>analysis<|message|>maybe 8<|end|><|start|>assistant<|channel|>final<|message|>It is 6.<|return|>";
        assert_eq!(text(r), Some("It is 6."));
        let cut = "<|channel|>analysis<|message|>maybe \\boxed{8}";
        assert_eq!(final_answer(cut).answer(), Err(Truncation::NoFinalChannel));
        let call = "<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|call|>";
        assert_eq!(text(call), Some("commentary to=functions.f<|message|>{}"));
    }

    #[test]
    fn no_thinking_is_all_answer() {
        let a = final_answer("The answer is 4.");
        assert_eq!(a.text(), Some("The answer is 4."));
        assert_eq!(a.status, AnswerStatus::NoThinking);
        assert!(!a.had_thinking());
        assert_eq!(
            graded_text("<think>a", Graded::WholeResponse),
            Ok("<think>a")
        );
        assert!(graded_text("<think>a", Graded::FinalAnswer).is_err());
    }

    #[test]
    fn linear_on_long_input() {
        let long = format!(
            "<think>{}</think>{}",
            "x".repeat(1 << 20),
            "y</think>".repeat(1 << 16)
        );
        assert_eq!(text(&long), Some(""));
    }
}
