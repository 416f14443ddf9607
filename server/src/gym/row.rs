//! Gym verify requests to cascade samples: the reading lives with the environments
//! (`cascade_envs::gym`), so `score`, `train`, `serve` and the Python package read a
//! Gym row alike; the server only hands the request over.

pub use cascade_envs::gym::{verify_sample, RESPONSE_OUTPUT};
use serde_json::{Map, Value};

/// The text Gym scores: the last `output_text` of the last assistant message in
/// `response.output`, or "" when there is none.
pub fn last_output_text(response: &Map<String, Value>) -> String {
    let items = response.get("output").and_then(Value::as_array);
    cascade_verifiers::tool_call::responses::last_output_text(items.map_or(&[][..], Vec::as_slice))
}
