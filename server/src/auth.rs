//! Bearer-token authentication (`--token-file`): every route but `/health` needs
//! `Authorization: Bearer TOKEN`, compared in constant time; anything else is 401.
//! A request with more than one `Authorization` header is 400 on every route: which
//! one counts would otherwise depend on the proxy in front.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::ApiError;
use crate::AppState;

/// Whether `header_value` (the whole `Authorization` header) carries `token`.
pub fn authorized(header_value: Option<&[u8]>, token: &str) -> bool {
    let Some(given) = header_value.and_then(|h| h.strip_prefix(b"Bearer ")) else {
        return false;
    };
    bool::from(given.ct_eq(token.as_bytes()))
}

/// Middleware: 401 unless the request carries the configured token (or none is set,
/// or the route is `/health`).
pub async fn require_token(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    if request
        .headers()
        .get_all(header::AUTHORIZATION)
        .iter()
        .count()
        > 1
    {
        return ApiError::bad_request("more than one `Authorization` header").into_response();
    }
    let Some(token) = &state.config.token else {
        return next.run(request).await;
    };
    if request.uri().path() == "/health" {
        return next.run(request).await;
    }
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes());
    if authorized(given, token) {
        return next.run(request).await;
    }
    let mut response = ApiError::new(
        StatusCode::UNAUTHORIZED,
        "missing or wrong `Authorization: Bearer` token",
    )
    .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    response
}
