//! Preference rows (a prompt, a chosen and a rejected response) in the common public
//! layouts, for reward-model training, and the prompt of an RLHF row.
//!
//! Layouts read ([`preference_pair`]):
//! - **strings**: `prompt`, `chosen`, `rejected` (TRL's explicit standard layout);
//! - **chat lists**: `chosen`/`rejected` as message lists whose last message is the
//!   assistant's response, with the prompt either explicit (`prompt`, a string or a
//!   list) or implicit (the messages before the response, which both lists must
//!   share), as in UltraFeedback-binarized and TRL's conversational layout;
//! - **HelpSteer3 preference**: `context` (messages), `response1`, `response2` and
//!   `overall_preference` (−3…3; negative prefers `response1`, 0 is a tie).
//!
//! A row that fits none of them, or whose two responses are identical or tied, is a
//! [`RowError`] naming the field: callers report it per row and skip it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::RowError;

/// One chat message, `{role, content}` with text content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// A prompt with the response preferred over the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreferencePair {
    pub prompt: Vec<Message>,
    pub chosen: String,
    pub rejected: String,
}

/// Reads one preference row in any of the layouts above.
pub fn preference_pair(row: &Value) -> Result<PreferencePair, RowError> {
    let obj = row.as_object().ok_or(RowError::NotObject)?;
    let pair = if obj.contains_key("response1") || obj.contains_key("overall_preference") {
        helpsteer_pair(row)?
    } else {
        chosen_rejected_pair(row)?
    };
    if pair.chosen == pair.rejected {
        return Err(invalid("rejected", "is identical to the chosen response"));
    }
    Ok(pair)
}

/// The prompt of an RLHF (or any chat) row: `prompt` (a string or messages),
/// `messages` or `context` (messages; a trailing assistant turn is dropped), or
/// NeMo Gym's `responses_create_params.input`.
pub fn prompt_messages(row: &Value) -> Result<Vec<Message>, RowError> {
    if let Some(prompt) = row.get("prompt") {
        return prompt_field(prompt, "prompt");
    }
    for field in ["messages", "context"] {
        if let Some(list) = row.get(field) {
            let mut messages = messages(list, field)?;
            if messages.last().is_some_and(|m| m.role == "assistant") {
                messages.pop();
            }
            return non_empty(messages, field);
        }
    }
    if let Some(input) = row.pointer("/responses_create_params/input") {
        return prompt_field(input, "responses_create_params.input");
    }
    Err(RowError::Absent {
        field: "prompt".into(),
        what: "(a string or messages; or `messages`, `context`, `responses_create_params.input`)",
    })
}

fn chosen_rejected_pair(row: &Value) -> Result<PreferencePair, RowError> {
    let chosen = required(row, "chosen")?;
    let rejected = required(row, "rejected")?;
    let (chosen_prefix, chosen) = response_of(chosen, "chosen")?;
    let (rejected_prefix, rejected) = response_of(rejected, "rejected")?;
    let prompt = match row.get("prompt") {
        Some(prompt) => prompt_field(prompt, "prompt")?,
        None => {
            if chosen_prefix != rejected_prefix {
                return Err(invalid(
                    "rejected",
                    "does not share the chosen list's prompt messages (and there is no `prompt`)",
                ));
            }
            non_empty(chosen_prefix, "chosen")?
        }
    };
    Ok(PreferencePair {
        prompt,
        chosen,
        rejected,
    })
}

fn helpsteer_pair(row: &Value) -> Result<PreferencePair, RowError> {
    let prompt = non_empty(messages(required(row, "context")?, "context")?, "context")?;
    let first = text(required(row, "response1")?, "response1")?;
    let second = text(required(row, "response2")?, "response2")?;
    let preference = required(row, "overall_preference")?
        .as_f64()
        .ok_or_else(|| invalid("overall_preference", "is not a number"))?;
    let (chosen, rejected) = match preference {
        p if p < 0.0 => (first, second),
        p if p > 0.0 => (second, first),
        _ => return Err(invalid("overall_preference", "is 0: a tie prefers neither")),
    };
    Ok(PreferencePair {
        prompt,
        chosen,
        rejected,
    })
}

/// A response field: a string (no prompt messages), or a message list whose last
/// message is the assistant's response (the messages before it, the prompt).
fn response_of(value: &Value, field: &str) -> Result<(Vec<Message>, String), RowError> {
    if let Some(s) = value.as_str() {
        return Ok((Vec::new(), s.to_owned()));
    }
    let mut list = messages(value, field)?;
    match list.pop() {
        Some(last) if last.role == "assistant" => Ok((list, last.content)),
        Some(last) => Err(invalid(
            field,
            &format!("ends with a `{}` message, not the assistant's", last.role),
        )),
        None => Err(invalid(field, "is an empty message list")),
    }
}

fn prompt_field(value: &Value, field: &str) -> Result<Vec<Message>, RowError> {
    match value {
        Value::String(s) => Ok(vec![Message {
            role: "user".into(),
            content: s.clone(),
        }]),
        other => non_empty(messages(other, field)?, field),
    }
}

fn messages(value: &Value, field: &str) -> Result<Vec<Message>, RowError> {
    let list = value
        .as_array()
        .ok_or_else(|| invalid(field, "is not a string or a list of messages"))?;
    list.iter()
        .enumerate()
        .map(|(i, m)| {
            let role = m.get("role").and_then(Value::as_str);
            let content = m.get("content").and_then(Value::as_str);
            match (role, content) {
                (Some(role), Some(content)) => Ok(Message {
                    role: role.to_owned(),
                    content: content.to_owned(),
                }),
                _ => Err(invalid(
                    &format!("{field}[{i}]"),
                    "is not a {role, content} message with text content",
                )),
            }
        })
        .collect()
}

fn non_empty(messages: Vec<Message>, field: &str) -> Result<Vec<Message>, RowError> {
    if messages.is_empty() {
        return Err(invalid(field, "holds no prompt message"));
    }
    Ok(messages)
}

fn required<'a>(row: &'a Value, field: &str) -> Result<&'a Value, RowError> {
    row.get(field).ok_or_else(|| RowError::Absent {
        field: field.into(),
        what: "(a preference row needs it)",
    })
}

fn text(value: &Value, field: &str) -> Result<String, RowError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| invalid(field, "is not a string"))
}

fn invalid(field: &str, problem: &str) -> RowError {
    RowError::Invalid {
        field: field.into(),
        problem: problem.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(s: &str) -> Message {
        Message {
            role: "user".into(),
            content: s.into(),
        }
    }

    #[test]
    fn reads_strings_chat_lists_and_helpsteer3() {
        let want = PreferencePair {
            prompt: vec![user("hi")],
            chosen: "hello".into(),
            rejected: "go away".into(),
        };
        let strings = json!({"prompt": "hi", "chosen": "hello", "rejected": "go away"});
        assert_eq!(preference_pair(&strings).unwrap(), want);
        let implicit = json!({
            "chosen": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            "rejected": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "go away"}],
        });
        assert_eq!(preference_pair(&implicit).unwrap(), want);
        // UltraFeedback-binarized: a string prompt and full conversations.
        let mut ultra = implicit.clone();
        ultra["prompt"] = json!("hi");
        ultra["score_chosen"] = json!(8.0);
        assert_eq!(preference_pair(&ultra).unwrap(), want);
        let helpsteer = json!({"context": [{"role": "user", "content": "hi"}],
            "response1": "go away", "response2": "hello", "overall_preference": 2});
        assert_eq!(preference_pair(&helpsteer).unwrap(), want);
        let mut first = helpsteer.clone();
        first["overall_preference"] = json!(-1);
        assert_eq!(preference_pair(&first).unwrap().chosen, "go away");
    }

    #[test]
    fn bad_rows_name_the_field() {
        let cases = [
            (json!({"prompt": "hi", "chosen": "a"}), "rejected"),
            (
                json!({"prompt": "hi", "chosen": "a", "rejected": "a"}),
                "identical",
            ),
            (
                json!({"context": [{"role": "user", "content": "q"}], "response1": "a",
                       "response2": "b", "overall_preference": 0}),
                "tie",
            ),
            (
                json!({"chosen": [{"role": "user", "content": "x"}, {"role": "assistant", "content": "a"}],
                       "rejected": [{"role": "user", "content": "y"}, {"role": "assistant", "content": "b"}]}),
                "share",
            ),
            (
                json!({"prompt": "q", "chosen": [{"role": "user", "content": "a"}], "rejected": "b"}),
                "ends with a `user` message",
            ),
            (
                json!({"prompt": 3, "chosen": "a", "rejected": "b"}),
                "`prompt`",
            ),
            (json!([1]), "not a JSON object"),
        ];
        for (row, needle) in cases {
            let err = preference_pair(&row).unwrap_err().to_string();
            assert!(err.contains(needle), "{row}: {err}");
        }
    }

    #[test]
    fn rlhf_prompts_come_from_every_chat_layout() {
        let want = vec![user("hi")];
        for row in [
            json!({"prompt": "hi"}),
            json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]}),
            json!({"context": [{"role": "user", "content": "hi"}]}),
            json!({"responses_create_params": {"input": [{"role": "user", "content": "hi"}]}}),
        ] {
            assert_eq!(prompt_messages(&row).unwrap(), want, "{row}");
        }
        let err = prompt_messages(&json!({"id": "x"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing `prompt`"), "{err}");
    }
}
