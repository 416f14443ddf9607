//! Making a schema strict, as Gym's `strictify_schema`: every schema object that lists
//! `properties` requires all of them and allows no others.
//!
//! Gym walks every dict value of the schema; this walks every *subschema* (the values of
//! `properties`, `$defs`, …, and the entries of `anyOf`, `oneOf`, `prefixItems`,
//! …), so it also closes objects inside `anyOf` and `oneOf` branches (Gym skips
//! lists), and it leaves data alone: a property *named* `properties`, or a
//! `const`/`default` object, is not a schema and is not rewritten.
//!
//! `allOf` is left alone, as Gym leaves it: its branches describe parts of one object,
//! so closing each branch to its own properties would forbid the others' and make the
//! conjunction unsatisfiable.

use serde_json::Value;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
/// Keywords whose value is a list of subschemas (not `allOf`: see the module comment).
const LIST: &[&str] = &["anyOf", "oneOf", "prefixItems", "items"];

/// Rewrites `schema` in place. Depth is bounded by the schema's own nesting (a parsed
/// JSON value, at most 128 deep).
pub fn strictify(schema: &mut Value) {
    let Value::Object(node) = schema else {
        return;
    };
    if let Some(Value::Object(properties)) = node.get("properties") {
        let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        node.insert("required".into(), Value::Array(names));
        node.insert("additionalProperties".into(), Value::Bool(false));
    }
    for (key, value) in node.iter_mut() {
        let key = key.as_str();
        match value {
            Value::Object(map) if MAP.contains(&key) => map.values_mut().for_each(strictify),
            Value::Object(_) if ONE.contains(&key) => strictify(value),
            Value::Array(list) if LIST.contains(&key) => list.iter_mut().for_each(strictify),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn closes_every_object_schema_with_properties() {
        let mut schema = json!({
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "object", "properties": {"x": {"type": "integer"}}},
                "properties": {"type": "string"},
                "list": {"type": "array", "items": {"properties": {"y": {}}}},
                "either": {"anyOf": [{"properties": {"z": {}}}, {"type": "null"}]}
            },
            "$defs": {"d": {"properties": {"w": {}}, "additionalProperties": true}},
            "const": {"properties": {}}
        });
        strictify(&mut schema);
        assert_eq!(
            schema["required"],
            json!(["a", "either", "list", "properties"])
        );
        assert_eq!(schema["additionalProperties"], json!(false));
        let a = &schema["properties"]["a"];
        assert_eq!(
            (&a["required"], &a["additionalProperties"]),
            (&json!(["x"]), &json!(false))
        );
        assert_eq!(
            schema["properties"]["properties"],
            json!({"type": "string"})
        );
        assert_eq!(
            schema["properties"]["list"]["items"]["required"],
            json!(["y"])
        );
        assert_eq!(
            schema["properties"]["either"]["anyOf"][0]["required"],
            json!(["z"])
        );
        assert_eq!(schema["$defs"]["d"]["additionalProperties"], json!(false));
        assert_eq!(schema["const"], json!({"properties": {}}));
    }

    #[test]
    fn leaves_schemas_without_properties_open() {
        let mut schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let before = schema.clone();
        strictify(&mut schema);
        assert_eq!(schema, before);
        let mut boolean = json!(true);
        strictify(&mut boolean);
        assert_eq!(boolean, json!(true));
    }

    /// Gym leaves `allOf` members alone: closing each branch would make an object with
    /// both branches' properties fail both.
    #[test]
    fn leaves_all_of_branches_open() {
        let mut schema = json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]});
        let before = schema.clone();
        strictify(&mut schema);
        assert_eq!(schema, before);
    }
}
