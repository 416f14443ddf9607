//! Python's `json.dumps` layout for chat templates: transformers renders templates
//! with a `tojson` filter that is `json.dumps(x, ensure_ascii=False, indent=…)`, so a
//! tool list reads `{"name": "f", "parameters": {}}` (a space after `:` and `,`,
//! non-ASCII kept, nothing HTML-escaped), where minijinja's own `tojson` writes
//! compact, HTML-safe JSON. Templates that dump `tools` (Qwen2.5, Qwen3, Llama 3.1)
//! therefore need this one to give the prompt the model was trained on.
//!
//! Object keys come out in the order serde_json holds them (sorted: the workspace
//! does not enable `preserve_order`), where Python keeps a row's own order.

use serde_json::Value;

/// `json.dumps(value, ensure_ascii=False, indent=indent)`.
pub fn dumps(value: &Value, indent: Option<usize>) -> String {
    let mut out = String::new();
    write(&mut out, value, indent, 0);
    out
}

fn write(out: &mut String, value: &Value, indent: Option<usize>, level: usize) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            let parts = items.iter().map(|v| {
                let mut s = String::new();
                write(&mut s, v, indent, level + 1);
                s
            });
            write_container(out, '[', ']', parts, indent, level);
        }
        Value::Object(map) if !map.is_empty() => {
            let parts = map.iter().map(|(k, v)| {
                let mut s = Value::String(k.clone()).to_string();
                s.push_str(": ");
                write(&mut s, v, indent, level + 1);
                s
            });
            write_container(out, '{', '}', parts, indent, level);
        }
        // Scalars, `[]` and `{}` are written alike by both.
        other => out.push_str(&other.to_string()),
    }
}

/// `open a, b close` on one line, or one item per line at `indent` spaces a level.
fn write_container(
    out: &mut String,
    open: char,
    close: char,
    parts: impl Iterator<Item = String>,
    indent: Option<usize>,
    level: usize,
) {
    out.push(open);
    match indent {
        None => out.push_str(&parts.collect::<Vec<_>>().join(", ")),
        Some(n) => {
            let inner = format!("\n{}", " ".repeat(n * (level + 1)));
            out.push_str(&inner);
            out.push_str(&parts.collect::<Vec<_>>().join(&format!(",{inner}")));
            out.push('\n');
            out.push_str(&" ".repeat(n * level));
        }
    }
    out.push(close);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Byte for byte what Python 3 prints for the same values.
    #[test]
    fn matches_python_json_dumps() {
        let v = json!({"a": [1, 2.5, "é<&>'"], "b": {}, "c": [], "d": null, "e": true});
        // json.dumps(v, ensure_ascii=False)
        assert_eq!(
            dumps(&v, None),
            r#"{"a": [1, 2.5, "é<&>'"], "b": {}, "c": [], "d": null, "e": true}"#
        );
        // json.dumps({"a": [1, {"x": 1.0}]}, ensure_ascii=False, indent=2)
        assert_eq!(
            dumps(&json!({"a": [1, {"x": 1.0}]}), Some(2)),
            "{\n  \"a\": [\n    1,\n    {\n      \"x\": 1.0\n    }\n  ]\n}"
        );
        assert_eq!(
            dumps(&json!("line\nbreak \"q\""), None),
            r#""line\nbreak \"q\"""#
        );
    }
}
