//! Schema-directed typing of XML and CSV text, as Gym's `coerce_xml_types` and
//! `coerce_csv_types`: both formats hold only strings, so a leaf is converted to what
//! the schema asks for where it can be, and otherwise left as it is for validation to
//! report.
//!
//! - `integer`: Python `int()` syntax (surrounding whitespace, a sign, digits);
//! - `number`: Python `float()` syntax (also `1e5`, `.5`); a non-finite result stays text;
//! - `boolean`: `true`/`1` and `false`/`0`, any case, no whitespace;
//! - XML only: an empty element (`null`) at a `string` is `""`; at an `array`, a
//!   single-key object is unwrapped (`<tags><tag>a</tag><tag>b</tag></tags>` gives
//!   `["a", "b"]`) and a lone value becomes a one-item array; `type` lists are not
//!   coerced (as Gym);
//! - CSV only: cells are typed by `items.properties.<column>.type` (a column without one
//!   is a string); with a `type` list, an empty cell is `null` when `null` is allowed,
//!   else the first type that converts wins.

use serde_json::{Map, Number, Value};

/// Coerces the leaves of an XML document by `schema`.
pub fn xml(data: Value, schema: &Value) -> Value {
    let Some(kind) = schema.get("type") else {
        return data;
    };
    match (kind.as_str(), data) {
        (Some("object"), Value::Object(map)) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let coerced = map
                .into_iter()
                .map(|(k, v)| match properties.and_then(|p| p.get(&k)) {
                    Some(sub) => {
                        let v = xml(v, sub);
                        (k, v)
                    }
                    None => (k, v),
                })
                .collect::<Map<_, _>>();
            Value::Object(coerced)
        }
        (Some("array"), data) => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let data = match data {
                Value::Object(map) if map.len() == 1 => {
                    map.into_iter().next().map_or(Value::Null, |(_, v)| v)
                }
                other => other,
            };
            let list = match data {
                Value::Array(list) => list,
                Value::Null => Vec::new(),
                one => vec![one],
            };
            Value::Array(list.into_iter().map(|item| xml(item, items)).collect())
        }
        (Some("string"), Value::Null) => Value::String(String::new()),
        (Some(kind), Value::String(text)) => scalar(text, kind),
        (_, data) => data,
    }
}

/// Coerces the cells of CSV rows by the schema's row properties.
pub fn csv(rows: Value, schema: &Value) -> Value {
    let Value::Array(rows) = rows else {
        return rows;
    };
    let row_schema = schema.get("items").unwrap_or(schema);
    let properties = row_schema.get("properties").and_then(Value::as_object);
    let typed = rows.into_iter().map(|row| match row {
        Value::Object(cells) => Value::Object(
            cells
                .into_iter()
                .map(|(column, cell)| {
                    let kind = properties
                        .and_then(|p| p.get(&column))
                        .and_then(|s| s.get("type"));
                    let cell = match (cell, kind) {
                        (Value::String(text), Some(kind)) => csv_cell(text, kind),
                        (cell, _) => cell,
                    };
                    (column, cell)
                })
                .collect(),
        ),
        other => other,
    });
    Value::Array(typed.collect())
}

fn csv_cell(text: String, kind: &Value) -> Value {
    match kind {
        Value::String(kind) => scalar(text, kind),
        Value::Array(kinds) => {
            let allows = |t: &str| kinds.iter().any(|k| k.as_str() == Some(t));
            if text.is_empty() && allows("null") {
                return Value::Null;
            }
            for kind in kinds.iter().filter_map(Value::as_str) {
                if kind == "null" {
                    continue;
                }
                let converted = scalar(text.clone(), kind);
                if !converted.is_string() || kind == "string" {
                    return converted;
                }
            }
            Value::String(text)
        }
        _ => Value::String(text),
    }
}

/// One text leaf as `kind`, or the text itself when it does not convert.
fn scalar(text: String, kind: &str) -> Value {
    let converted = match kind {
        "integer" => python_int(&text),
        "number" => python_float(&text),
        "boolean" => match text.to_lowercase().as_str() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        _ => None,
    };
    converted.unwrap_or(Value::String(text))
}

fn python_int(text: &str) -> Option<Value> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if let Ok(i) = t.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(u) = t.parse::<u64>() {
        return Some(Value::from(u));
    }
    // Beyond 64 bits: still an integer, held as the nearest float.
    t.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}

fn python_float(text: &str) -> Option<Value> {
    let t = text.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    // Rust also reads `inf`/`nan`, which have no JSON value; Python-only forms with
    // underscores are not read.
    let numeric = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !numeric {
        return None;
    }
    t.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn xml_leaves_follow_the_schema() {
        let schema = json!({"type": "object", "properties": {"root": {"type": "object", "properties": {
            "age": {"type": "integer"}, "score": {"type": "number"}, "ok": {"type": "boolean"},
            "name": {"type": "string"}, "note": {"type": "string"},
            "skills": {"type": "array", "items": {"type": "string"}},
            "one": {"type": "array", "items": {"type": "integer"}},
            "none": {"type": "array", "items": {"type": "integer"}},
            "bad": {"type": "integer"}, "either": {"type": ["integer", "string"]}
        }}}});
        let data = json!({"root": {"age": " 30 ", "score": "9.5", "ok": "TRUE", "name": "7",
            "note": null, "skills": {"skill": ["a", "b"]}, "one": {"n": "4"}, "none": null,
            "bad": "3.5", "either": "5", "extra": "x"}});
        assert_eq!(
            xml(data, &schema),
            json!({"root": {"age": 30, "score": 9.5, "ok": true, "name": "7", "note": "",
                "skills": ["a", "b"], "one": [4], "none": [], "bad": "3.5", "either": "5",
                "extra": "x"}})
        );
    }

    #[test]
    fn csv_cells_follow_the_row_schema() {
        let schema = json!({"type": "array", "items": {"type": "object", "properties": {
            "age": {"type": "integer"}, "score": {"type": "number"}, "active": {"type": "boolean"},
            "maybe": {"type": ["null", "integer"]}, "either": {"type": ["integer", "string"]},
            "flag": {"type": ["boolean", "null"]}
        }}});
        let rows = json!([
            {"age": "30", "score": "95.5", "active": "true", "maybe": "", "either": "x", "flag": "0", "name": "A"},
            {"age": "", "score": "1e3", "active": "yes", "maybe": "7", "either": "8", "flag": "", "name": "B"},
            {"age": null, "score": "inf", "active": "0", "maybe": "x", "either": "", "flag": "TRUE", "name": "C"}
        ]);
        assert_eq!(
            csv(rows, &schema),
            json!([
                {"age": 30, "score": 95.5, "active": true, "maybe": null, "either": "x", "flag": false, "name": "A"},
                {"age": "", "score": 1000.0, "active": "yes", "maybe": 7, "either": 8, "flag": null, "name": "B"},
                {"age": null, "score": "inf", "active": false, "maybe": "x", "either": "", "flag": true, "name": "C"}
            ])
        );
    }

    #[test]
    fn python_number_syntax() {
        assert_eq!(python_int("-12"), Some(json!(-12)));
        assert_eq!(python_int("+7"), Some(json!(7)));
        assert_eq!(python_int("1.0"), None);
        assert_eq!(
            python_int("99999999999999999999").map(|v| v.is_f64()),
            Some(true)
        );
        assert_eq!(python_float(".5"), Some(json!(0.5)));
        assert_eq!(python_float("nan"), None);
        assert_eq!(python_float("1e400"), None);
        assert_eq!(python_float(""), None);
    }
}
