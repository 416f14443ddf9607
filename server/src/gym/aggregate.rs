//! `POST /{env}/aggregate_metrics`: Gym's `AggregateMetricsRequest`
//! (`verify_responses`, each with `_ng_task_index` and `reward`) → `AggregateMetrics`
//! (`group_level_metrics`, `agent_metrics`, `key_metrics`), with the baseline
//! statistics of Gym's `RewardProfiler`: `mean/`, `max/`, `min/`, `median/` and `std/`
//! (sample standard deviation, 0 for one value) of every numeric top-level field, per
//! task and over all; `key_metrics` are the `mean/` entries, as Gym's default.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::body::{parse, RawBody};
use crate::error::ApiError;
use crate::score::labelled;
use crate::AppState;

const TASK_INDEX: &str = "_ng_task_index";
const ROLLOUT_INDEX: &str = "_ng_rollout_index";

#[derive(Debug, Deserialize)]
pub struct AggregateMetricsRequest {
    pub verify_responses: Vec<Map<String, Value>>,
}

/// Bytes of body that count as one sample against `--max-queue`: the statistics of a
/// large request are work like scoring, so they queue like it.
const BYTES_PER_UNIT: usize = 64 << 10;

/// `POST /{env}/aggregate_metrics`.
pub async fn aggregate_metrics(
    State(state): State<Arc<AppState>>,
    Path(env): Path<String>,
    RawBody(body): RawBody,
) -> Response {
    let label = state.env_label(&env);
    labelled(aggregated(&state, env, body).await.into_response(), &label)
}

/// `POST /aggregate_metrics` for the default environment.
pub async fn aggregate_metrics_default(
    State(state): State<Arc<AppState>>,
    RawBody(body): RawBody,
) -> Response {
    match crate::openrlhf::default_env(&state) {
        Ok((env, _)) => {
            let label = state.env_label(&env);
            labelled(aggregated(&state, env, body).await.into_response(), &label)
        }
        Err(e) => e.into_response(),
    }
}

/// Parses and aggregates `body` on `env`'s scoring pool, admitted like samples.
async fn aggregated(
    state: &Arc<AppState>,
    env: String,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    state.envs.check_known(&env)?;
    let units = (body.len() / BYTES_PER_UNIT + 1).min(state.queue.capacity());
    let admission = state.queue.admit(units)?;
    let work = move || -> Result<Json<Value>, ApiError> {
        let request: AggregateMetricsRequest = parse(&body)?;
        Ok(Json(aggregate(&request.verify_responses)))
    };
    state.queue.run(admission, &env, work).await?
}

/// The `AggregateMetrics` of `responses`.
pub fn aggregate(responses: &[Map<String, Value>]) -> Value {
    if responses.is_empty() {
        return json!({"group_level_metrics": [], "agent_metrics": {}, "key_metrics": {}});
    }
    let mut by_task: BTreeMap<i64, Vec<&Map<String, Value>>> = BTreeMap::new();
    for r in responses {
        let task = r.get(TASK_INDEX).and_then(Value::as_i64).unwrap_or(0);
        by_task.entry(task).or_default().push(r);
    }
    let groups: Vec<Value> = by_task
        .iter()
        .map(|(task, rows)| {
            let mut m = describe(rows);
            m.insert(TASK_INDEX.into(), json!(task));
            Value::Object(m)
        })
        .collect();
    let all: Vec<&Map<String, Value>> = responses.iter().collect();
    let agent = describe(&all);
    let key: Map<String, Value> = agent
        .iter()
        .filter(|(k, _)| k.starts_with("mean/"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    json!({"group_level_metrics": groups, "agent_metrics": agent, "key_metrics": key})
}

/// The statistics of every numeric (or boolean) top-level field of `rows`.
fn describe(rows: &[&Map<String, Value>]) -> Map<String, Value> {
    let mut columns: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for row in rows {
        for (k, v) in row.iter() {
            if k == TASK_INDEX || k == ROLLOUT_INDEX {
                continue;
            }
            let x = match v {
                Value::Number(n) => n.as_f64(),
                Value::Bool(b) => Some(f64::from(u8::from(*b))),
                _ => None,
            };
            if let Some(x) = x.filter(|x| x.is_finite()) {
                columns.entry(k).or_default().push(x);
            }
        }
    }
    let mut out = Map::new();
    for (name, mut xs) in columns {
        xs.sort_by(f64::total_cmp);
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = if xs.len() > 1 {
            xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let mid = xs.len() / 2;
        let median = if xs.len() % 2 == 0 {
            (xs[mid - 1] + xs[mid]) / 2.0
        } else {
            xs[mid]
        };
        for (stat, value) in [
            ("mean", mean),
            ("max", xs[xs.len() - 1]),
            ("min", xs[0]),
            ("median", median),
            ("std", var.sqrt()),
        ] {
            out.insert(format!("{stat}/{name}"), json!(value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_per_task_and_over_all() {
        let rows: Vec<Map<String, Value>> = [(0, 1.0), (0, 0.0), (1, 1.0)]
            .iter()
            .map(|(t, r)| {
                json!({"_ng_task_index": t, "reward": r, "details": {}})
                    .as_object()
                    .cloned()
                    .unwrap()
            })
            .collect();
        let m = aggregate(&rows);
        assert_eq!(m["group_level_metrics"][0]["mean/reward"], json!(0.5));
        assert_eq!(m["group_level_metrics"][1]["std/reward"], json!(0.0));
        assert_eq!(m["group_level_metrics"][1]["_ng_task_index"], json!(1));
        assert_eq!(m["agent_metrics"]["median/reward"], json!(1.0));
        assert_eq!(m["key_metrics"], json!({"mean/reward": 2.0 / 3.0}));
    }
}
