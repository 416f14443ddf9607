//! A workplace row: the prompt (Gym's `responses_create_params.input`, or a cascade
//! `prompt` string) and the reference calls in `ground_truth`: a list of
//! `{"name", "arguments"}` with the arguments as a JSON string (Gym's layout) or an
//! object, or that list encoded as one JSON string.

use cascade_verifiers::workplace::{Arguments, Call};
use cascade_verifiers::{FieldError, Sample};
use serde_json::Value;

/// The most reference calls a row may hold.
pub const MAX_REFERENCE_CALLS: usize = 1024;

/// The task fields of a workplace row.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkplaceRow {
    pub reference: Vec<Call>,
}

impl TryFrom<&Sample> for WorkplaceRow {
    type Error = FieldError;

    fn try_from(sample: &Sample) -> Result<Self, FieldError> {
        let field = "ground_truth";
        let parsed;
        let list = match sample.require(field)? {
            Value::Array(list) => list,
            Value::String(text) => {
                parsed =
                    serde_json::from_str::<Value>(text).map_err(|_| FieldError::WrongType {
                        field: field.to_owned(),
                        expected: "a list of calls or a JSON string holding one",
                        found: "a string that is not JSON",
                    })?;
                parsed
                    .as_array()
                    .ok_or_else(|| FieldError::wrong_type(field, "a JSON list", &parsed))?
            }
            other => return Err(FieldError::wrong_type(field, "a list of calls", other)),
        };
        if list.len() > MAX_REFERENCE_CALLS {
            return Err(FieldError::WrongType {
                field: field.to_owned(),
                expected: "at most 1024 calls",
                found: "more",
            });
        }
        let reference = list
            .iter()
            .enumerate()
            .map(|(i, item)| call(item, &format!("{field}[{i}]")))
            .collect::<Result<_, _>>()?;
        Ok(Self { reference })
    }
}

/// One `{"name", "arguments"}` call (arguments a JSON string, an object or absent).
pub fn call(item: &Value, field: &str) -> Result<Call, FieldError> {
    let object = item
        .as_object()
        .ok_or_else(|| FieldError::wrong_type(field, "an object", item))?;
    let at = |key: &str| format!("{field}.{key}");
    let name = object
        .get("name")
        .ok_or_else(|| FieldError::Missing(at("name")))?;
    let name = name
        .as_str()
        .ok_or_else(|| FieldError::wrong_type(at("name"), "a string", name))?;
    let arguments = match object.get("arguments") {
        None | Some(Value::Null) => Arguments::Json(Value::Null),
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(v @ Value::Object(_)) => Arguments::Json(v.clone()),
        Some(other) => {
            return Err(FieldError::wrong_type(
                at("arguments"),
                "a JSON string or an object",
                other,
            ))
        }
    };
    Ok(Call {
        name: name.to_owned(),
        arguments,
    })
}
