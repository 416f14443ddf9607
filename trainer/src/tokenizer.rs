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
    /// Ids that end a response, as transformers' `generate` resolves them (see
    /// [`stop_ids`]), the tokenizer's eos first when it is one of them (what the
    /// template writes at the end of a turn); callers may add more.
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
            stop_ids: stop_ids(dir, eos_id)?,
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
        self.render_prompt(messages, None, enable_thinking)
    }

    /// [`Self::render_chat`] with the row's function `tools` passed to the template
    /// as transformers' `apply_chat_template(tools=…)` does: in the chat-completions
    /// form `{"type": "function", "function": {…}}` (see [`chat_tools`]); templates
    /// that know tools (Qwen2.5, Qwen3, Llama 3.1) write their own tool section.
    pub fn render_prompt(
        &self,
        messages: &[ChatMessage],
        tools: Option<&[Value]>,
        enable_thinking: Option<bool>,
    ) -> Result<String, TokenizerError> {
        let Some(template) = &self.template else {
            let contents: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
            return Ok(contents.join("\n"));
        };
        let tools = tools.filter(|t| !t.is_empty()).map(chat_tools);
        self.render(template, messages, tools, enable_thinking)
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
        let text = self.render(template, &messages, None, enable_thinking)?;
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
        tools: Option<Vec<Value>>,
        enable_thinking: Option<bool>,
    ) -> Result<String, TokenizerError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", py_tojson);
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
        // As transformers: `tools` is always passed (none without tools), while an
        // unset `enable_thinking` stays undefined, so `is defined` sees the default.
        let base = context! {
            messages => messages, tools => tools, add_generation_prompt => true,
            bos_token => &self.bos_token, eos_token => &self.eos_token,
        };
        let ctx = match enable_thinking {
            Some(flag) => context! { enable_thinking => flag, ..base },
            None => base,
        };
        tmpl.render(ctx).map_err(err)
    }
}

/// Function tools in the chat-completions form chat templates read
/// (`{"type": "function", "function": {"name", "description", "parameters"}}`): a
/// Responses-API tool (NeMo Gym rows: `{"type": "function", "name", …}`) is wrapped,
/// one already in that form is kept.
pub fn chat_tools(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| match tool {
            Value::Object(map) if !map.contains_key("function") && map.contains_key("name") => {
                let mut function = map.clone();
                function.remove("type");
                serde_json::json!({"type": "function", "function": function})
            }
            other => other.clone(),
        })
        .collect()
}

/// transformers' template `tojson`: `json.dumps(x, ensure_ascii=False, indent=…)`.
fn py_tojson(
    value: minijinja::Value,
    kwargs: minijinja::value::Kwargs,
) -> Result<minijinja::Value, minijinja::Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    kwargs.assert_all_used()?;
    let json = serde_json::to_value(&value).map_err(|e| {
        minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, e.to_string())
    })?;
    Ok(minijinja::Value::from_safe_string(crate::pyjson::dumps(
        &json, indent,
    )))
}

/// The end-of-sequence ids of a checkpoint, in transformers' order of precedence:
/// `generation_config.json`'s `eos_token_id`, else `config.json`'s, else the
/// tokenizer's eos token; each may be one id or a list. The tokenizer's eos is moved
/// first when the list holds it, since callers that need one end token take the first.
fn stop_ids(dir: &Path, tokenizer_eos: Option<i64>) -> Result<Vec<i64>, TokenizerError> {
    let mut ids = Vec::new();
    for file in ["generation_config.json", "config.json"] {
        let path = dir.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let value: Value = serde_json::from_str(&text).map_err(|e| TokenizerError::Read {
            path: path.clone(),
            message: e.to_string(),
        })?;
        ids = match value.get("eos_token_id") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_i64).collect(),
            Some(v) => v.as_i64().into_iter().collect(),
            None => Vec::new(),
        };
        if !ids.is_empty() {
            break;
        }
    }
    if ids.is_empty() {
        ids.extend(tokenizer_eos);
    }
    if let Some(at) = tokenizer_eos.and_then(|eos| ids.iter().position(|&id| id == eos)) {
        let eos = ids.remove(at);
        ids.insert(0, eos);
    }
    ids.dedup();
    Ok(ids)
}

fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of the tiny ChatML tokenizer with `files` (name, text) written beside it.
    fn tiny_with(files: &[(&str, &str)]) -> (tempfile::TempDir, TextTokenizer) {
        let src = crate::toy::assets_dir().with_file_name("tiny-chatml");
        let dir = tempfile::tempdir().expect("temp dir");
        for name in ["tokenizer.json", "tokenizer_config.json"] {
            std::fs::copy(src.join(name), dir.path().join(name)).expect("copy");
        }
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        let tok = TextTokenizer::load(dir.path()).expect("load");
        (dir, tok)
    }

    /// generation_config.json wins over config.json, which wins over the tokenizer;
    /// lists are kept whole, the tokenizer's eos first when listed.
    #[test]
    fn stop_ids_follow_transformers_precedence() {
        let (_d, plain) = tiny_with(&[]);
        let eos = plain.stop_ids[0];
        assert_eq!(plain.stop_ids.len(), 1);
        let (_d, tok) = tiny_with(&[("config.json", r#"{"eos_token_id": [7, 9]}"#)]);
        assert_eq!(tok.stop_ids, vec![7, 9]);
        let generation = format!(r#"{{"eos_token_id": [5, {eos}]}}"#);
        let both = [
            ("config.json", r#"{"eos_token_id": 7}"#),
            ("generation_config.json", generation.as_str()),
        ];
        let (_d, tok) = tiny_with(&both);
        assert_eq!(tok.stop_ids, vec![eos, 5]);
        let (_d, tok) = tiny_with(&[("generation_config.json", r#"{"do_sample": true}"#)]);
        assert_eq!(tok.stop_ids, vec![eos]);
    }

    /// A tool-aware template gets the row's tools in the chat-completions form and
    /// dumps them as Python's json.dumps does; without tools it sees `none`.
    #[test]
    fn tools_reach_the_template_like_transformers() {
        let template = "{% if tools %}{% for t in tools %}{{ t | tojson }}\n{% endfor %}{% else %}none{% endif %}|{{ tools | tojson(indent=1) }}";
        let (_d, tok) = tiny_with(&[("chat_template.jinja", template)]);
        let gym = serde_json::json!({"type": "function", "name": "add", "description": "Adds <a>",
            "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}});
        let out = tok
            .render_prompt(
                &[ChatMessage::user("q")],
                Some(std::slice::from_ref(&gym)),
                None,
            )
            .unwrap();
        assert_eq!(
            out,
            "{\"function\": {\"description\": \"Adds <a>\", \"name\": \"add\", \"parameters\": {\"properties\": {\"a\": {\"type\": \"number\"}}, \"type\": \"object\"}}, \"type\": \"function\"}\n|[\n {\n  \"function\": {\n   \"description\": \"Adds <a>\",\n   \"name\": \"add\",\n   \"parameters\": {\n    \"properties\": {\n     \"a\": {\n      \"type\": \"number\"\n     }\n    },\n    \"type\": \"object\"\n   }\n  },\n  \"type\": \"function\"\n }\n]"
        );
        let none = tok
            .render_prompt(&[ChatMessage::user("q")], None, None)
            .unwrap();
        assert_eq!(none, "none|null");
    }

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
