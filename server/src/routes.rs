//! The router: every route, the body limit, authentication and metrics.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, State};
use axum::http::header;
use axum::middleware::from_fn_with_state;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Router;

use crate::{gym, metrics, openrlhf, score, AppState};

/// Every route of `cascade serve` over `state`.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/metrics", get(render_metrics))
        .route("/v1/score", post(score::score))
        .route("/{env}/verify", post(gym::verify))
        .route("/{env}/seed_session", post(gym::seed_session))
        .route("/{env}/aggregate_metrics", post(gym::aggregate_metrics))
        .route("/{env}/get_reward", post(openrlhf::get_reward))
        // The default environment's routes (`--env`); 404 naming the flag without one.
        .route("/verify", post(gym::verify_default))
        .route("/seed_session", post(gym::seed_session_default))
        .route("/aggregate_metrics", post(gym::aggregate_metrics_default))
        .route("/get_reward", post(openrlhf::get_reward_default))
        .layer(from_fn_with_state(
            state.clone(),
            crate::body::refuse_oversized,
        ))
        .layer(from_fn_with_state(
            state.clone(),
            crate::auth::require_token,
        ))
        .layer(from_fn_with_state(state.clone(), metrics::record))
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes))
        .with_state(state)
}

async fn health() -> &'static str {
    "ok\n"
}

async fn render_metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    let mut text = state
        .metrics
        .render(state.queue.depth(), state.queue.capacity());
    text.push_str(&metrics::render_protection(
        state.queue.cancelled(),
        state.metrics.refused_connections(),
    ));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text)
}
