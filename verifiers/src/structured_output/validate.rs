//! Compiling the (strict) schema and validating a document against it.

use jsonschema::{PatternOptions, Validator};
use serde_json::Value;

use super::{strictify, ErrorType, Failure, MAX_SCHEMA_BYTES};

/// Longest message kept from the validator (its messages quote the instance).
const MAX_MESSAGE_CHARS: usize = 300;

/// A schema ready to check documents: as validated (strict when asked) and compiled.
pub struct Prepared {
    pub schema: Value,
    validator: Validator,
}

/// Caps, strictifies and compiles `schema`. Compilation is offline: a `$ref` to
/// anything outside the schema fails here instead of fetching it.
pub fn prepare_schema(schema: &Value, strict: bool) -> Result<Prepared, Failure> {
    let size = serde_json::to_vec(schema).map_or(usize::MAX, |bytes| bytes.len());
    if size > MAX_SCHEMA_BYTES {
        let message = format!("the schema is {size} bytes, over the {MAX_SCHEMA_BYTES}-byte cap");
        return Err(Failure::new(ErrorType::InvalidSchema, message));
    }
    if !(schema.is_object() || schema.is_boolean()) {
        let message = "a JSON Schema is an object or a boolean";
        return Err(Failure::new(ErrorType::InvalidSchema, message));
    }
    let mut schema = schema.clone();
    if strict {
        strictify(&mut schema);
    }
    let validator = jsonschema::options()
        .offline()
        .should_validate_formats(false)
        .with_pattern_options(PatternOptions::regex())
        .build(&schema)
        .map_err(|e| Failure::new(ErrorType::InvalidSchema, clip(e.to_string())))?;
    Ok(Prepared { schema, validator })
}

/// `Ok` when the schema accepts `document`, else the first violation.
pub fn validate(prepared: &Prepared, document: &Value) -> Result<(), Failure> {
    prepared.validator.validate(document).map_err(|e| Failure {
        error_type: ErrorType::SchemaViolation,
        message: clip(e.to_string()),
        instance_path: Some(e.instance_path().as_str().to_owned()),
        schema_path: Some(e.schema_path().as_str().to_owned()),
    })
}

fn clip(mut message: String) -> String {
    if let Some((cut, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS) {
        message.truncate(cut);
        message.push('…');
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: Value, strict: bool, doc: Value) -> Result<(), Failure> {
        validate(&prepare_schema(&schema, strict)?, &doc)
    }

    #[test]
    fn strict_schemas_reject_missing_and_extra_properties() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {}}});
        assert!(check(schema.clone(), false, json!({"a": 1, "c": 2})).is_ok());
        let missing = check(schema.clone(), true, json!({"a": 1})).unwrap_err();
        assert_eq!(missing.error_type, ErrorType::SchemaViolation);
        assert_eq!(missing.instance_path.as_deref(), Some(""));
        assert!(
            missing.message.contains("\"b\" is a required property"),
            "{}",
            missing.message
        );
        let extra = check(schema.clone(), true, json!({"a": 1, "b": 2, "c": 3})).unwrap_err();
        assert!(
            extra.message.contains("Additional properties"),
            "{}",
            extra.message
        );
        let wrong = check(schema, true, json!({"a": "x", "b": 2})).unwrap_err();
        assert_eq!(wrong.instance_path.as_deref(), Some("/a"));
        assert_eq!(wrong.schema_path.as_deref(), Some("/properties/a/type"));
    }

    #[test]
    fn bad_and_external_schemas_are_invalid_schema() {
        for schema in [
            json!({"type": "strin"}),
            json!({"$ref": "https://example.com/s.json"}),
            json!({"$ref": "file:///etc/passwd"}),
            json!({"$ref": "other.json#/x"}),
            json!({"type": "string", "pattern": "(?<=a)b"}),
            json!([1]),
            json!("a string"),
        ] {
            let err = prepare_schema(&schema, true).err().expect("invalid");
            assert_eq!(err.error_type, ErrorType::InvalidSchema, "{schema}");
        }
        let big = json!({"enum": vec!["x".repeat(1000); 600]});
        assert!(prepare_schema(&big, true)
            .err()
            .unwrap()
            .message
            .contains("cap"));
    }

    #[test]
    fn local_refs_formats_and_hostile_patterns() {
        let schema = json!({"$defs": {"n": {"type": "integer"}}, "type": "array", "items": {"$ref": "#/$defs/n"}});
        assert!(check(schema.clone(), true, json!([1, 2])).is_ok());
        assert!(check(schema, true, json!([1, "2"])).is_err());
        // `format` is an annotation (as in Gym): not asserted.
        assert!(check(
            json!({"type": "string", "format": "email"}),
            true,
            json!("nope")
        )
        .is_ok());
        // A pattern that backtracks exponentially elsewhere runs in linear time here.
        let hostile = json!({"type": "string", "pattern": "^(a+)+$"});
        let text = format!("{}b", "a".repeat(50_000));
        assert!(check(hostile, true, Value::String(text)).is_err());
    }
}
