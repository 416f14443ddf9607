//! A NeMo Gym resources server: `POST /{env}/verify`, `/{env}/seed_session` and
//! `/{env}/aggregate_metrics`, following nemo-gym's `BaseVerifyRequest` /
//! `BaseVerifyResponse` (unchanged from 0.4 to 0.7).
//!
//! A verify request is a Gym dataset row (its task fields) plus
//! `responses_create_params` (the OpenAI Responses API input) and `response` (a
//! Responses API object). The text scored is the last assistant `output_text` of
//! `response.output`; the output items themselves travel in the sample's
//! `response_output` (tool calling reads its `function_call` items). The row is read by
//! its environment as `cascade score` reads it ([`verify_sample`]; Gym's field names,
//! ids and layouts are the environments' own), so Gym datasets need no conversion. The
//! reply is the request echoed, plus `reward` and cascade's `details`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use crate::body::JsonBody;
use crate::error::ApiError;
use crate::score::{labelled, score_samples};
use crate::AppState;

mod aggregate;
mod row;

pub use aggregate::aggregate_metrics;
pub use aggregate::aggregate_metrics_default;
pub use row::{last_output_text, verify_sample, RESPONSE_OUTPUT};

/// `POST /{env}/verify`.
pub async fn verify(
    State(state): State<Arc<AppState>>,
    Path(env): Path<String>,
    body: JsonBody<Map<String, Value>>,
) -> Response {
    let config = Map::new();
    verify_with(state, env, config, body.0).await
}

/// `POST /verify`: the server's default environment (`--env`).
pub async fn verify_default(
    State(state): State<Arc<AppState>>,
    body: JsonBody<Map<String, Value>>,
) -> Response {
    match crate::openrlhf::default_env(&state) {
        Ok((env, config)) => verify_with(state, env, config, body.0).await,
        Err(e) => e.into_response(),
    }
}

async fn verify_with(
    state: Arc<AppState>,
    env: String,
    config: Map<String, Value>,
    body: Map<String, Value>,
) -> Response {
    let label = state.env_label(&env);
    let result = match state.envs.check_known(&env) {
        Ok(()) => verified(&state, env, config, body).await,
        Err(e) => Err(e),
    };
    labelled(result.into_response(), &label)
}

async fn verified(
    state: &Arc<AppState>,
    env: String,
    config: Map<String, Value>,
    mut body: Map<String, Value>,
) -> Result<Json<Value>, ApiError> {
    let (params, response) = ("responses_create_params", "response");
    let reply = match (body.get(params), body.get(response)) {
        (Some(Value::Object(_)), Some(Value::Object(r))) => r.clone(),
        (None, _) => return Err(missing(params)),
        (_, None) => return Err(missing(response)),
        (Some(Value::Object(_)), _) => return Err(not_object(response)),
        _ => return Err(not_object(params)),
    };
    // The row stays whole, `responses_create_params` included (its `tools` are task
    // fields for tool calling), as `cascade score` sees a Gym row.
    let mut task = body.clone();
    task.remove(response);
    let sample = verify_sample(&task, &reply);
    let mut results = score_samples(state, env, config, vec![sample]).await?;
    let result = results
        .pop()
        .ok_or_else(|| ApiError::internal("the scoring pool returned no result"))?;
    body.insert("reward".into(), json!(result.reward));
    body.insert("details".into(), Value::Object(result.details));
    Ok(Json(Value::Object(body)))
}

fn missing(field: &str) -> ApiError {
    ApiError::unprocessable(format!("missing field `{field}`"))
}

fn not_object(field: &str) -> ApiError {
    ApiError::unprocessable(format!(
        "{field}: expected an object (a Responses API object)"
    ))
}

/// `POST /{env}/seed_session`: cascade's environments keep no per-rollout state, so
/// this is Gym's default, an empty `BaseSeedSessionResponse`.
pub async fn seed_session(
    State(state): State<Arc<AppState>>,
    Path(env): Path<String>,
    _body: JsonBody<Value>,
) -> Response {
    let label = state.env_label(&env);
    let result = state.envs.check_known(&env).map(|()| Json(json!({})));
    labelled(result.into_response(), &label)
}

/// `POST /seed_session` for the default environment.
pub async fn seed_session_default(
    State(state): State<Arc<AppState>>,
    _body: JsonBody<Value>,
) -> Response {
    match crate::openrlhf::default_env(&state) {
        Ok((env, _)) => labelled(Json(json!({})).into_response(), &state.env_label(&env)),
        Err(e) => e.into_response(),
    }
}
