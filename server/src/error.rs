//! Refusals: every route answers a problem as `{"error": "…"}` with a status that says
//! whose fault it is (4xx: the request's; 500: ours).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Seconds a client should wait after a 429.
pub const RETRY_AFTER_SECS: u64 = 1;

/// A refused or failed request.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// 400: the body is not JSON at all.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 422: JSON of the wrong shape (a missing or mistyped field, named).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// 404: an environment this server does not have, listing the ones it has.
    pub fn unknown_env(name: &str, known: &[String]) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            format!("unknown environment `{name}`; known: {}", known.join(", ")),
        )
    }

    /// 429: the scoring queue is full; retry after [`RETRY_AFTER_SECS`].
    pub fn queue_full(wanted: usize, capacity: usize) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "the scoring queue is full ({wanted} samples do not fit in --max-queue {capacity}); retry later"
            ),
        )
    }

    /// 500: a bug of ours (a scoring task died).
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, axum::Json(json!({"error": self.message}))).into_response();
        if self.status == StatusCode::TOO_MANY_REQUESTS {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
        }
        response
    }
}
