//! Text ↔ token ids through `tokenizer.json` (the `tokenizers` crate), and chat
//! prompts rendered with the checkpoint's own Jinja chat template (`minijinja`, set up
//! like transformers: `trim_blocks`, `lstrip_blocks`, Python string methods).
//!
//! The template comes from `chat_template.jinja` (transformers 5) or the
//! `chat_template` key of `tokenizer_config.json` (older layout). Without a template,
//! a prompt is its messages' contents joined by newlines.

use std::path::{Path, PathBuf};

use cascade_envs::ChatMessage;
use minijinja::{context, Environment};
use serde_json::Value;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TokenizerError {
    #[error("cannot read {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("chat template of {path} does not render: {message}")]
    Template { path: PathBuf, message: String },
    #[error("tokenizer failed on {what}: {message}")]
    Encode { what: String, message: String },
}

/// A checkpoint's tokenizer plus its chat template and special tokens.
pub struct TextTokenizer {
    inner: tokenizers::Tokenizer,
    template: Option<String>,
    bos_token: String,
    eos_token: String,
    /// Ids that end a response: the eos token and any extra the caller adds.
    pub stop_ids: Vec<i64>,
    /// The id used for padding (pad token, else eos, else 0).
    pub pad_id: i64,
    dir: PathBuf,
}

fn token_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("content").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

impl TextTokenizer {
    /// Loads the tokenizer files of the checkpoint folder `dir`.
    pub fn load(dir: &Path) -> Result<Self, TokenizerError> {
        let path = dir.join("tokenizer.json");
        let inner = tokenizers::Tokenizer::from_file(&path).map_err(|e| TokenizerError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let config_path = dir.join("tokenizer_config.json");
        let config: Value = match std::fs::read_to_string(&config_path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| TokenizerError::Read {
                path: config_path.clone(),
                message: e.to_string(),
            })?,
            Err(_) => Value::Null,
        };
        let jinja_path = dir.join("chat_template.jinja");
        let template = match std::fs::read_to_string(&jinja_path) {
            Ok(text) => Some(text),
            Err(_) => match config.get("chat_template") {
                Some(Value::String(s)) => Some(s.clone()),
                // A list of named templates: the one called "default" is the chat template.
                Some(Value::Array(items)) => items
                    .iter()
                    .find(|t| t.get("name").and_then(Value::as_str) == Some("default"))
                    .and_then(|t| t.get("template").and_then(Value::as_str))
                    .map(str::to_owned),
                _ => None,
            },
        };
        let bos_token = token_text(config.get("bos_token")).unwrap_or_default();
        let eos_token = token_text(config.get("eos_token")).unwrap_or_default();
        let pad_token = token_text(config.get("pad_token"));
        let id = |t: &str| inner.token_to_id(t).map(i64::from);
        let eos_id = id(&eos_token);
        let pad_id = pad_token.as_deref().and_then(id).or(eos_id).unwrap_or(0);
        Ok(Self {
            stop_ids: eos_id.into_iter().collect(),
            pad_id,
            bos_token,
            eos_token,
            template,
            inner,
            dir: dir.to_owned(),
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// Token ids of `text`, without adding special tokens (templates add their own).
    pub fn encode(&self, text: &str) -> Result<Vec<i64>, TokenizerError> {
        let enc = self
            .inner
            .encode(text, false)
            .map_err(|e| TokenizerError::Encode {
                what: format!("{:?}", truncate(text)),
                message: e.to_string(),
            })?;
        Ok(enc.get_ids().iter().map(|&i| i64::from(i)).collect())
    }

    /// The text of `ids`, special tokens dropped.
    pub fn decode(&self, ids: &[i64]) -> Result<String, TokenizerError> {
        let ids: Vec<u32> = ids.iter().map(|&i| i as u32).collect();
        self.inner
            .decode(&ids, true)
            .map_err(|e| TokenizerError::Encode {
                what: format!("ids {ids:?}"),
                message: e.to_string(),
            })
    }

    /// The id of a token string, if it is one token.
    pub fn token_id(&self, token: &str) -> Option<i64> {
        self.inner.token_to_id(token).map(i64::from)
    }

    pub fn has_chat_template(&self) -> bool {
        self.template.is_some()
    }

    /// Renders `messages` as the model's prompt, ending with the assistant's turn
    /// opener. `enable_thinking` is passed to templates that switch thinking on/off
    /// (Qwen3); `None` leaves it undefined, the template's default.
    pub fn render_chat(
        &self,
        messages: &[ChatMessage],
        enable_thinking: Option<bool>,
    ) -> Result<String, TokenizerError> {
        let Some(template) = &self.template else {
            let contents: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
            return Ok(contents.join("\n"));
        };
        self.render(template, messages, enable_thinking)
    }

    /// The text that follows a model turn when `results` (tool messages) answer it,
    /// as the chat template renders them: the rest of the assistant turn after its
    /// `stop` token (when it ended on one; the template's own end otherwise), the
    /// results (Cascade 2's template puts `<tool_response>` blocks in a user turn),
    /// and the next assistant turn's opener. The model's own turn is never
    /// re-rendered: its sampled tokens stay as they were.
    pub fn render_tool_results(
        &self,
        results: &[ChatMessage],
        stop: Option<i64>,
        enable_thinking: Option<bool>,
    ) -> Result<String, TokenizerError> {
        let Some(template) = &self.template else {
            let contents: Vec<&str> = results.iter().map(|m| m.content.as_str()).collect();
            return Ok(format!("\n{}\n", contents.join("\n")));
        };
        // A stand-in conversation ending in an assistant turn whose content is a
        // marker: what the template writes after the marker is what follows a turn.
        const MARKER: &str = "\u{1}cascade-turn\u{1}";
        let mut messages = vec![ChatMessage::user("."), ChatMessage::assistant(MARKER)];
        messages.extend(results.iter().cloned());
        let text = self.render(template, &messages, enable_thinking)?;
        let Some(at) = text.rfind(MARKER) else {
            return Err(TokenizerError::Template {
                path: self.dir.clone(),
                message: "the template drops the assistant's content, so the text after a model turn cannot be found".into(),
            });
        };
        let after = &text[at + MARKER.len()..];
        let stop_text = stop.and_then(|id| self.inner.id_to_token(id as u32));
        Ok(match stop_text {
            Some(stop) if after.starts_with(stop.as_str()) => after[stop.len()..].to_owned(),
            _ => after.to_owned(),
        })
    }

    fn render(
        &self,
        template: &str,
        messages: &[ChatMessage],
        enable_thinking: Option<bool>,
    ) -> Result<String, TokenizerError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function(
            "raise_exception",
            |msg: String| -> Result<String, minijinja::Error> {
                Err(minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    msg,
                ))
            },
        );
        let err = |e: minijinja::Error| TokenizerError::Template {
            path: self.dir.clone(),
            message: format!("{e:#}"),
        };
        env.add_template("chat", template).map_err(err)?;
        let tmpl = env.get_template("chat").map_err(err)?;
        let ctx = match enable_thinking {
            Some(flag) => context! {
                messages => messages, add_generation_prompt => true,
                bos_token => &self.bos_token, eos_token => &self.eos_token,
                enable_thinking => flag,
            },
            None => context! {
                messages => messages, add_generation_prompt => true,
                bos_token => &self.bos_token, eos_token => &self.eos_token,
            },
        };
        tmpl.render(ctx).map_err(err)
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tool results follow a model turn as the template renders a conversation: in
    /// one user turn of `<tool_response>` blocks, then the next assistant opener; the
    /// stop token the model sampled is not written twice, and a turn ended without it
    /// (a stop string) gets the template's own end of turn.
    #[test]
    fn tool_results_render_as_the_template_continues_a_turn() {
        let dir = crate::toy::assets_dir().with_file_name("tiny-chatml");
        let tok = TextTokenizer::load(&dir).expect("tiny-chatml");
        let results = [ChatMessage::tool("A"), ChatMessage::tool("B")];
        let eos = tok.stop_ids[0];
        let after = tok.render_tool_results(&results, Some(eos), None).unwrap();
        let tail = "\n<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
        assert_eq!(after, tail);
        let unstopped = tok.render_tool_results(&results, None, None).unwrap();
        assert_eq!(unstopped, format!("<|im_end|>{tail}"));
        // The whole conversation, rendered at once, is the prompt, the turn and this.
        let turn = "<tool_call>{}</tool_call>";
        let mut messages = vec![ChatMessage::user("q")];
        let prompt = tok.render_chat(&messages, None).unwrap();
        messages.push(ChatMessage::assistant(turn));
        messages.extend(results.iter().cloned());
        let whole = tok.render_chat(&messages, None).unwrap();
        assert_eq!(whole, format!("{prompt}{turn}<|im_end|>{after}"));
    }
}
