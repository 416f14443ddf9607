//! `POST /v1/score`: cascade's own batch protocol.
//!
//! `{"env": NAME, "samples": [sample line, …], "config": {…}}` →
//! `{"results": [result line, …]}`, in input order. Each result is written with
//! `ResultLine::to_json`, the very bytes `cascade score` prints for that line.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use cascade_envs::{ResultLine, Sample};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::body::JsonBody;
use crate::error::ApiError;
use crate::metrics::EnvLabel;
use crate::AppState;

/// The body of `POST /v1/score`. Samples are any JSON: a line that is not an object is
/// scored as the CLI scores it (reward 0, `details.error`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreRequest {
    pub env: String,
    pub samples: Vec<Value>,
    #[serde(default)]
    pub config: Map<String, Value>,
}

pub async fn score(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<ScoreRequest>,
) -> Result<Response, Response> {
    let label = state.env_label(&request.env);
    // A sample without an id is named by its 1-based position in the batch.
    let samples = (request.samples.into_iter().enumerate())
        .map(|(i, value)| Sample::at_line(value, i + 1))
        .collect();
    let results = score_samples(&state, request.env, request.config, samples)
        .await
        .map_err(|e| labelled(e.into_response(), &label))?;
    let body = results_json(&results);
    let response = ([(header::CONTENT_TYPE, "application/json")], body).into_response();
    Ok(labelled(response, &label))
}

/// Scores `samples` through the queue: 404 for an unknown env, 429 when full.
pub async fn score_samples(
    state: &Arc<AppState>,
    env: String,
    config: Map<String, Value>,
    samples: Vec<Sample>,
) -> Result<Vec<ResultLine>, ApiError> {
    state.envs.check_known(&env)?;
    let config = crate::envs::request_config(state.operator_config(&env), config)?;
    let admission = state.queue.admit(samples.len())?;
    let n = samples.len();
    let results = state
        .queue
        .score(
            admission,
            state.envs.clone(),
            (env.clone(), config),
            state.config.ceilings,
            samples,
        )
        .await?;
    state.metrics.add_samples(&env, n);
    let failed = results.iter().filter(|r| r.is_failed()).count();
    state.metrics.add_failed(&env, failed);
    Ok(results)
}

/// `{"results":[…]}` with each line exactly as `cascade score` writes it.
fn results_json(results: &[ResultLine]) -> String {
    let lines: Vec<String> = results.iter().map(ResultLine::to_json).collect();
    format!("{{\"results\":[{}]}}", lines.join(","))
}

/// The result lines of a `/v1/score` reply, each as its exact text (the bytes
/// `cascade score` prints for that sample), or `None` if `body` is not such a reply.
pub fn result_lines(body: &str) -> Option<Vec<&str>> {
    let inner = body.strip_prefix("{\"results\":[")?.strip_suffix("]}")?;
    let (mut lines, mut depth, mut start) = (Vec::new(), 0usize, 0);
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in inner.char_indices() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_string = false,
            (true, false, _) => {}
            (false, _, '"') => in_string = true,
            (false, _, '{' | '[') => depth += 1,
            (false, _, '}' | ']') => depth = depth.checked_sub(1)?,
            (false, _, ',') if depth == 0 => {
                lines.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !inner.is_empty() {
        lines.push(&inner[start..]);
    }
    Some(lines)
}

/// Tags a response with its environment for the metrics.
pub fn labelled(mut response: Response, label: &EnvLabel) -> Response {
    response.extensions_mut().insert(label.clone());
    response
}
