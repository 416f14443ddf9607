//! The JSON body extractor of every POST route. Unlike axum's `Json` it needs no
//! `Content-Type` (OpenRLHF's and Gym's clients set it, curl users often do not), and
//! its refusals name the field: 400 for a body that is not JSON, 422 for JSON of the
//! wrong shape (`samples[3]: invalid type…`, `missing field \`env\``), 413 past the
//! size limit.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A request body parsed as `T`.
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::new(e.status(), e.body_text()))?;
        parse(&bytes).map(JsonBody)
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
