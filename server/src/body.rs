//! The JSON body extractor of every POST route. Unlike axum's `Json` it needs no
//! `Content-Type` (OpenRLHF's and Gym's clients set it, curl users often do not), and
//! its refusals name the field: 400 for a body that is not JSON, 422 for JSON of the
//! wrong shape (`samples[3]: invalid type…`, `missing field \`env\``), 413 past the
//! size limit, 408 when the client is slower than `--body-timeout`, and 503 when the
//! server begins to shut down before the body has arrived.
//!
//! [`refuse_oversized`] answers 413 from `Content-Length` alone, before any of the
//! body is read, so a client announcing too much gets no `100 Continue` (hyper sends
//! that only once the body is first read).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use tower_http::timeout::TimeoutError;

use crate::error::ApiError;
use crate::listen::Draining;
use crate::AppState;

/// A request body parsed as `T`.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = RawBody::from_request(req, state).await?.0;
        parse(&bytes).map(JsonBody)
    }
}

/// A request body read whole but not parsed (work that parses it on the scoring pool).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let draining = req.extensions().get::<Draining>().cloned();
        let read = async {
            Bytes::from_request(req, state)
                .await
                .map_err(|e| read_error(&e, e.status(), e.body_text()))
        };
        let Some(draining) = draining else {
            return read.await.map(RawBody);
        };
        tokio::select! {
            read = read => read.map(RawBody),
            () = draining.started() => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down; the request body was not read in full",
            )),
        }
    }
}

/// The refusal for a body that could not be read: 408 when the body timed out.
fn read_error(e: &(dyn std::error::Error + 'static), status: StatusCode, text: String) -> ApiError {
    let mut source = Some(e);
    while let Some(e) = source {
        if e.is::<TimeoutError>() {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "the request body did not arrive within --body-timeout",
            );
        }
        source = e.source();
    }
    ApiError::new(status, text)
}

/// Middleware: 413 at once when `Content-Length` announces more than
/// `--max-body-bytes` (a chunked body is still cut at the limit as it is read).
pub async fn refuse_oversized(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let limit = state.config.max_body_bytes;
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match announced {
        Some(n) if n > limit as u64 => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a body of {n} bytes exceeds --max-body-bytes {limit}"),
        )
        .into_response(),
        _ => next.run(request).await,
    }
}

/// Parses `bytes` as `T`, naming the path of a field of the wrong shape.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = if path == "." || path.is_empty() {
            inner.to_string()
        } else {
            format!("{path}: {inner}")
        };
        match inner.classify() {
            serde_json::error::Category::Data => ApiError::unprocessable(message),
            _ => ApiError::bad_request(format!("the body is not JSON: {message}")),
        }
    })?;
    de.end()
        .map_err(|e| ApiError::bad_request(format!("the body is not JSON: {e}")))?;
    Ok(value)
}
