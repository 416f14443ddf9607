//! OpenRLHF's remote reward (`--remote_rm_url http://HOST:PORT/math/get_reward`):
//! `{"query": [...], "prompts": [...], "labels": [...]}` →
//! `{"rewards": [...], "scores": [...], "extra_logs": {...}}`, as OpenRLHF's
//! `SingleTurnAgentExecutor` posts and reads it.
//!
//! A `query` is the decoded prompt plus response; the response is the query with its
//! `prompts[i]` prefix removed (the whole query when it does not start with it). A
//! label is the row's gold: a JSON object (or a string holding one) is a set of task
//! fields (`{"instruction_id_list": …, "kwargs": …}` for ifeval, `{"language", "tests"}`
//! for code); any other label is the `answer` (math, exact_match). `details` (one per
//! query, cascade's) is added beside OpenRLHF's fields, and `extra_logs.cascade_error`
//! marks the samples that could not be scored.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cascade_envs::Sample;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::body::JsonBody;
use crate::error::ApiError;
use crate::score::{labelled, score_samples};
use crate::AppState;

/// The body OpenRLHF posts.
#[derive(Debug, Deserialize)]
pub struct RewardRequest {
    pub query: Vec<String>,
    #[serde(default)]
    pub prompts: Option<Vec<String>>,
    #[serde(default)]
    pub labels: Option<Vec<Value>>,
}

/// The server's default environment (`--env`) and its config, or 404 saying how to
/// name one.
pub fn default_env(state: &AppState) -> Result<(String, Map<String, Value>), ApiError> {
    match &state.config.default_env {
        Some(env) => Ok((env.clone(), state.config.default_config.clone())),
        None => Err(ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            format!(
                "this server has no default environment (start it with --env NAME); name one in the route, /{{env}}/…; known: {}",
                state.envs.names().join(", ")
            ),
        )),
    }
}

/// `POST /{env}/get_reward`.
pub async fn get_reward(
    State(state): State<Arc<AppState>>,
    Path(env): Path<String>,
    JsonBody(request): JsonBody<RewardRequest>,
) -> Response {
    rewarded(state, env, Map::new(), request).await
}

/// `POST /get_reward`: the default environment.
pub async fn get_reward_default(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<RewardRequest>,
) -> Response {
    match default_env(&state) {
        Ok((env, config)) => rewarded(state, env, config, request).await,
        Err(e) => e.into_response(),
    }
}

async fn rewarded(
    state: Arc<AppState>,
    env: String,
    config: Map<String, Value>,
    request: RewardRequest,
) -> Response {
    let label = state.env_label(&env);
    let reply = async {
        let samples = samples(&request)?;
        let results = score_samples(&state, env, config, samples).await?;
        let rewards: Vec<f64> = results.iter().map(|r| r.reward).collect();
        let errors: Vec<f64> = results
            .iter()
            .map(|r| f64::from(u8::from(r.details.contains_key("error"))))
            .collect();
        let details: Vec<&Map<String, Value>> = results.iter().map(|r| &r.details).collect();
        Ok::<_, ApiError>(Json(json!({
            "rewards": rewards,
            "scores": rewards,
            "extra_logs": {"cascade_error": errors},
            "details": details,
        })))
    };
    labelled(reply.await.into_response(), &label)
}

/// One cascade sample per query (see the module docs).
pub fn samples(request: &RewardRequest) -> Result<Vec<Sample>, ApiError> {
    let n = request.query.len();
    for (field, len) in [
        ("prompts", request.prompts.as_ref().map(Vec::len)),
        ("labels", request.labels.as_ref().map(Vec::len)),
    ] {
        if let Some(len) = len.filter(|len| *len != n) {
            return Err(ApiError::unprocessable(format!(
                "{field}: {len} entries for {n} queries"
            )));
        }
    }
    Ok((0..n)
        .map(|i| {
            let query = &request.query[i];
            let prompt = request.prompts.as_ref().map(|p| p[i].as_str());
            let response = prompt.and_then(|p| query.strip_prefix(p)).unwrap_or(query);
            let mut fields = label_fields(request.labels.as_ref().map(|l| &l[i]));
            fields.insert("id".into(), json!(i.to_string()));
            fields.insert("response".into(), json!(response));
            Sample::new(Value::Object(fields))
        })
        .collect())
}

fn label_fields(label: Option<&Value>) -> Map<String, Value> {
    match label {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => m,
            _ => Map::from_iter([("answer".to_owned(), json!(s))]),
        },
        Some(other) => Map::from_iter([("answer".to_owned(), json!(other.to_string()))]),
    }
}
