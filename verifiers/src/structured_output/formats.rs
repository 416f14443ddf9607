//! Parsing a document in its format into a JSON value (the rules are in the module doc
//! of [`super`]). Errors are messages: every one is a `parse_error`.

use serde_json::{Map, Number, Value};

use super::{tabular, xml, SchemaType, MAX_DEPTH};

/// The document as a JSON value, before any schema-directed coercion.
pub fn parse(schema_type: SchemaType, text: &str) -> Result<Value, String> {
    match schema_type {
        // serde_json refuses nesting deeper than 128 by itself.
        SchemaType::Json => serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}")),
        SchemaType::Yaml => yaml(text),
        SchemaType::Toml => toml_document(text),
        SchemaType::Xml => xml::parse(text),
        SchemaType::Csv => tabular::parse(text),
    }
}

/// YAML through [`super::yaml`], which bounds the expanded size (aliases) while the
/// document is built; `serde_yaml_ng` caps recursion (128). Its scanner is quadratic on
/// deeply nested flow collections (`{a: {a: …`), so their bracket depth is capped first
/// (counting every bracket, quoted or not: a string would need over 128 unclosed
/// brackets to be refused wrongly).
fn yaml(text: &str) -> Result<Value, String> {
    if bracket_depth_exceeds(text, MAX_DEPTH) {
        return Err(format!(
            "YAML nests flow collections deeper than {MAX_DEPTH}"
        ));
    }
    let mut value = super::yaml::load(text)?;
    value
        .apply_merge()
        .map_err(|e| format!("invalid YAML merge key: {e}"))?;
    yaml_to_json(value)
}

fn bracket_depth_exceeds(text: &str, cap: usize) -> bool {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > cap {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn yaml_to_json(value: serde_yaml_ng::Value) -> Result<Value, String> {
    use serde_yaml_ng::Value as Y;
    Ok(match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                finite(n.as_f64().unwrap_or(f64::NAN), "YAML")?
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => Value::Array(
            items
                .into_iter()
                .map(yaml_to_json)
                .collect::<Result<_, _>>()?,
        ),
        Y::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping {
                object.insert(yaml_key(key)?, yaml_to_json(value)?);
            }
            Value::Object(object)
        }
        Y::Tagged(tagged) => return Err(format!("YAML tag {} has no JSON value", tagged.tag)),
    })
}

/// A mapping key as object-key text: strings as they are, other scalars as written.
fn yaml_key(key: serde_yaml_ng::Value) -> Result<String, String> {
    use serde_yaml_ng::Value as Y;
    match key {
        Y::String(s) => Ok(s),
        Y::Null => Ok("null".to_owned()),
        Y::Bool(b) => Ok(b.to_string()),
        Y::Number(n) => Ok(n.to_string()),
        _ => Err("a YAML mapping key must be a scalar".to_owned()),
    }
}

fn finite(x: f64, format: &str) -> Result<Value, String> {
    Number::from_f64(x)
        .map(Value::Number)
        .ok_or_else(|| format!("{format} number {x} has no JSON value"))
}

/// TOML through `toml`. Its parser caps inline nesting, but a dotted key or table
/// header can nest tables as deep as the text is long (and the tables are then dropped
/// recursively), so key paths are capped first.
fn toml_document(text: &str) -> Result<Value, String> {
    if let Some(line) = text
        .lines()
        .position(|line| key_part(line).matches('.').count() >= MAX_DEPTH)
    {
        return Err(format!(
            "TOML line {} nests keys deeper than {MAX_DEPTH}",
            line + 1
        ));
    }
    let table: toml::Table = text.parse().map_err(|e| format!("invalid TOML: {e}"))?;
    toml_to_json(toml::Value::Table(table))
}

/// The part of a line that can hold a dotted key: all of a `[table]` header, or what
/// comes before the first `=`.
fn key_part(line: &str) -> &str {
    let line = line.trim_start();
    if line.starts_with('[') {
        return line;
    }
    line.split_once('=').map_or(line, |(key, _)| key)
}

fn toml_to_json(value: toml::Value) -> Result<Value, String> {
    Ok(match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(x) => finite(x, "TOML")?,
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(toml_to_json)
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(table) => {
            let mut object = Map::new();
            for (key, value) in table {
                object.insert(key, toml_to_json(value)?);
            }
            Value::Object(object)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_is_yaml_1_2_with_documented_conversions() {
        let doc = "name: Ada\nage: 36\nratio: 0.5\nok: yes\nborn: 1815-12-10\n1: one\nnil: ~\ntags: [a, b]\n";
        assert_eq!(
            parse(SchemaType::Yaml, doc).unwrap(),
            json!({"name": "Ada", "age": 36, "ratio": 0.5, "ok": "yes", "born": "1815-12-10",
                   "1": "one", "nil": null, "tags": ["a", "b"]})
        );
        let merged = "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n";
        assert_eq!(
            parse(SchemaType::Yaml, merged).unwrap()["derived"],
            json!({"x": 1, "y": 2})
        );
        for bad in [
            "a: .inf",
            "a: !custom 3",
            "a: 1\n---\nb: 2",
            "a: [1",
            "? [1, 2]\n: x",
        ] {
            assert!(parse(SchemaType::Yaml, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn yaml_alias_bombs_and_deep_nesting_are_errors() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            bomb.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = parse(SchemaType::Yaml, &bomb).unwrap_err();
        assert!(err.contains("expand the document past"), "{err}");
        let deep = "[".repeat(100_000);
        assert!(parse(SchemaType::Yaml, &deep).is_err());
        let flow = "{a: ".repeat(100_000);
        assert!(parse(SchemaType::Yaml, &flow)
            .unwrap_err()
            .contains("deeper"));
        let balanced = "[[1]], ".repeat(1000);
        assert!(parse(SchemaType::Yaml, &format!("x: [{balanced}]")).is_ok());
        let deep_map = (0..200)
            .map(|i| format!("{}k:\n", "  ".repeat(i)))
            .collect::<String>();
        assert!(parse(SchemaType::Yaml, &deep_map).is_err());
    }

    /// One 1,000-item list referenced many times: a few KB of text that expands past
    /// the cap is refused while the budget runs out, not after building it.
    #[test]
    fn yaml_expansion_is_bounded_by_the_expanded_size_not_alias_jumps() {
        let items = vec!["1"; 1000].join(", ");
        let refs = "  - *b\n".repeat(2000);
        let doc = format!("base: &b [{items}]\nrefs:\n{refs}");
        assert!(doc.len() < 20_000, "{}", doc.len());
        let started = std::time::Instant::now();
        let err = parse(SchemaType::Yaml, &doc).unwrap_err();
        assert!(err.contains("expand the document past"), "{err}");
        // Generous: the refusal costs about as much as reading the text.
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
        // A long string anchored and repeated is charged its bytes.
        let long = "x".repeat(100_000);
        let doc = format!("a: &s {long}\nb: [{}]\n", vec!["*s"; 50].join(", "));
        assert!(parse(SchemaType::Yaml, &doc)
            .unwrap_err()
            .contains("expand the document past"));
        // Modest reuse stays accepted, merge keys included.
        let doc = format!("base: &b [{items}]\nx: *b\ny: *b\n");
        assert_eq!(parse(SchemaType::Yaml, &doc).unwrap()["y"][999], json!(1));
    }

    /// The worst alias-free shapes at the response cap still parse: a document without
    /// aliases never reaches the expansion budget.
    #[test]
    fn yaml_without_aliases_at_the_size_cap_is_never_refused_for_expansion() {
        use crate::structured_output::MAX_RESPONSE_BYTES;
        let flow = format!("[{}]", vec!["1"; MAX_RESPONSE_BYTES / 2 - 1].join(","));
        assert!(flow.len() <= MAX_RESPONSE_BYTES);
        let parsed = parse(SchemaType::Yaml, &flow).unwrap();
        assert_eq!(parsed.as_array().unwrap().len(), MAX_RESPONSE_BYTES / 2 - 1);
        let keys: String = (0..MAX_RESPONSE_BYTES / 16)
            .map(|i| format!("k{i:x}: \n"))
            .collect::<String>();
        assert!(keys.len() <= MAX_RESPONSE_BYTES);
        if let Err(e) = parse(SchemaType::Yaml, &keys) {
            panic!("{e}");
        }
    }

    /// A wide header over many one-field rows would pad rows × columns cells.
    #[test]
    fn csv_padding_is_bounded() {
        let header = (0..3_000).map(|i| format!("c{i}")).collect::<Vec<_>>();
        let doc = format!("{}\n{}", header.join(","), "x\n".repeat(3_000));
        let err = parse(SchemaType::Csv, &doc).unwrap_err();
        assert!(err.contains("cells per byte"), "{err}");
        let full = format!("a,b\n{}", "1,2\n".repeat(100_000));
        assert_eq!(
            parse(SchemaType::Csv, &full)
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            100_000
        );
    }

    /// Many attributes on one tag: quick-xml finds duplicates by hash past a few, so
    /// the tag is read in linear time.
    #[test]
    fn xml_attributes_at_the_size_cap_are_linear() {
        use crate::structured_output::MAX_RESPONSE_BYTES;
        let attrs: String = (0..MAX_RESPONSE_BYTES / 12)
            .map(|i| format!(" a{i:x}=\"\""))
            .collect();
        let doc = format!("<r{attrs}/>");
        assert!(doc.len() <= MAX_RESPONSE_BYTES + 8);
        let started = std::time::Instant::now();
        let parsed = parse(SchemaType::Xml, &doc).unwrap();
        assert_eq!(
            parsed["r"].as_object().unwrap().len(),
            MAX_RESPONSE_BYTES / 12
        );
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        let err = parse(SchemaType::Xml, "<r a=\"1\" b=\"2\" a=\"3\"/>").unwrap_err();
        assert!(err.contains("attribute"), "{err}");
    }

    #[test]
    fn toml_tables_dates_and_caps() {
        let doc = "title = \"x\"\nwhen = 1979-05-27T07:32:00Z\n[owner]\nname = \"Tom\"\n[[items]]\nn = 1\n[[items]]\nn = 2.5\n";
        assert_eq!(
            parse(SchemaType::Toml, doc).unwrap(),
            json!({"title": "x", "when": "1979-05-27T07:32:00Z", "owner": {"name": "Tom"},
                   "items": [{"n": 1}, {"n": 2.5}]})
        );
        assert!(parse(SchemaType::Toml, "x = nan").is_err());
        assert!(parse(SchemaType::Toml, "name = \"hello\n[invalid").is_err());
        let header = format!("[{}]\nx = 1\n", vec!["a"; 100_000].join("."));
        assert!(parse(SchemaType::Toml, &header)
            .unwrap_err()
            .contains("deeper"));
        let dotted = format!("{} = 1\n", vec!["a"; 100_000].join("."));
        assert!(parse(SchemaType::Toml, &dotted).is_err());
        let inline = format!("x = {}", "[".repeat(100_000));
        assert!(parse(SchemaType::Toml, &inline).is_err());
        let tables = format!("x = {}", "{a = ".repeat(100_000));
        assert!(parse(SchemaType::Toml, &tables).is_err());
    }

    #[test]
    fn json_is_json_and_deep_json_is_an_error() {
        assert_eq!(
            parse(SchemaType::Json, " {\"a\": [1, 2]} ").unwrap(),
            json!({"a": [1, 2]})
        );
        assert!(parse(SchemaType::Json, "{\"a\": 1} trailing").is_err());
        assert!(parse(SchemaType::Json, "NaN").is_err());
        let err = parse(SchemaType::Json, &"[".repeat(100_000)).unwrap_err();
        assert!(err.contains("recursion limit"), "{err}");
    }
}
