//! A blocking client for OpenAI-compatible chat endpoints (`POST {endpoint}/chat/completions`:
//! vLLM, SGLang, TGI, NIM, OpenAI itself), the judge's transport. Bounded: every
//! request has a deadline and a body limit, failures are values, never panics.

use std::time::Duration;

use serde_json::{json, Map, Value};

/// Largest judge reply read (a reply past it is an error, not a truncation).
const REPLY_LIMIT_BYTES: u64 = 16 << 20;

/// Why one request got no answer.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestError {
    pub message: String,
    /// Worth trying again (transport errors, 429, 5xx), as opposed to a request the
    /// endpoint refuses as such (other 4xx).
    pub retryable: bool,
}

/// The endpoint, the key and the transport settings.
#[derive(Debug, Clone)]
pub struct ChatClient {
    url: String,
    authorization: Option<String>,
    agent: ureq::Agent,
}

impl ChatClient {
    /// `endpoint` is the API base (`http://host:port/v1`); `api_key` is sent as a
    /// bearer token when given.
    pub fn new(endpoint: &str, api_key: Option<String>, timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Self {
            url: format!("{}/chat/completions", endpoint.trim_end_matches('/')),
            authorization: api_key.map(|k| format!("Bearer {k}")),
            agent,
        }
    }

    /// Posts one chat request and returns the first choice's message content.
    pub fn complete(&self, body: &Value) -> Result<String, RequestError> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if let Some(auth) = &self.authorization {
            request = request.header("Authorization", auth);
        }
        let transport = |e: ureq::Error| RequestError {
            message: format!("{}: {e}", self.url),
            retryable: true,
        };
        let mut reply = request.send(body.to_string()).map_err(transport)?;
        let status = reply.status().as_u16();
        let text = reply
            .body_mut()
            .with_config()
            .limit(REPLY_LIMIT_BYTES)
            .read_to_string()
            .map_err(transport)?;
        if !(200..300).contains(&status) {
            return Err(RequestError {
                message: format!("{}: HTTP {status}: {}", self.url, preview(&text, 200)),
                retryable: status == 429 || status >= 500,
            });
        }
        content_of(&text).map_err(|message| RequestError {
            message: format!("{}: {message}", self.url),
            retryable: false,
        })
    }
}

/// The body of a chat completion request: the standard fields, then `extra` (a
/// server's own keys, e.g. vLLM's `structured_outputs`) on top.
pub fn request_body(
    model: &str,
    messages: Vec<Value>,
    sampling: &Map<String, Value>,
    extra: &Map<String, Value>,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    body.extend(sampling.clone());
    body.extend(extra.clone());
    Value::Object(body)
}

/// `choices[0].message.content` of a chat completion.
fn content_of(text: &str) -> Result<String, String> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("reply is not JSON ({e}): {}", preview(text, 200)))?;
    value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            format!(
                "reply has no `choices[0].message.content`: {}",
                preview(text, 200)
            )
        })
}

/// The first `chars` characters of `text`, `…` marking a cut.
pub(super) fn preview(text: &str, chars: usize) -> String {
    let cut: String = text.chars().take(chars).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_content_of_the_first_choice_is_the_answer() {
        let reply = r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"ranking\": 2}"}}]}"#;
        assert_eq!(content_of(reply).unwrap(), "{\"ranking\": 2}");
        assert!(content_of("{\"choices\": []}")
            .unwrap_err()
            .contains("choices[0]"));
        assert!(content_of("<html>").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn extra_keys_go_on_top_of_the_standard_ones() {
        let mut sampling = Map::new();
        sampling.insert("temperature".into(), json!(0.0));
        let mut extra = Map::new();
        extra.insert("temperature".into(), json!(0.6));
        extra.insert("structured_outputs".into(), json!({"choice": ["a"]}));
        let body = request_body(
            "judge",
            vec![json!({"role": "user", "content": "hi"})],
            &sampling,
            &extra,
        );
        assert_eq!(body["model"], "judge");
        assert_eq!(body["temperature"], 0.6);
        assert_eq!(body["structured_outputs"]["choice"][0], "a");
    }

    #[test]
    fn a_closed_port_is_a_retryable_error_not_a_panic() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // The listener is dropped: nothing listens on `port` now.
        let client = ChatClient::new(
            &format!("http://127.0.0.1:{port}/v1"),
            None,
            Duration::from_secs(5),
        );
        let err = client
            .complete(&json!({"model": "m", "messages": []}))
            .unwrap_err();
        assert!(err.retryable, "{err:?}");
        assert!(
            err.message.contains("/v1/chat/completions"),
            "{}",
            err.message
        );
    }
}
