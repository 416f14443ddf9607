//! XML to a JSON value the way Gym's `xmltodict.parse` (default settings) builds it, with
//! an explicit element stack so depth is capped rather than recursed.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use serde_json::{Map, Value};

use super::MAX_DEPTH;

/// One open element: its name, its attributes and children so far (xmltodict's
/// `item`, `None` until something is put in it) and its text.
struct Open {
    name: String,
    item: Option<Map<String, Value>>,
    text: String,
}

/// Parses a whole XML document into `{root_name: value}`.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Open> = Vec::new();
    let mut root: Option<Value> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("invalid XML at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Start(e) => {
                if root.is_some() {
                    return Err("invalid XML: more than one root element".to_owned());
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(format!("XML nests elements deeper than {MAX_DEPTH}"));
                }
                stack.push(open(&e)?);
            }
            Event::Empty(e) => {
                let element = open(&e)?;
                close(element, &mut stack, &mut root)?;
            }
            Event::End(_) => {
                let element = stack
                    .pop()
                    .ok_or_else(|| "invalid XML: a closing tag with no element".to_owned())?;
                close(element, &mut stack, &mut root)?;
            }
            Event::Text(t) => {
                let s = t.decode().map_err(|e| format!("invalid XML text: {e}"))?;
                push_text(&mut stack, &s)?;
            }
            Event::CData(t) => {
                let s = t.decode().map_err(|e| format!("invalid XML CDATA: {e}"))?;
                push_text(&mut stack, &s)?;
            }
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => {
                        let name = r.decode().map_err(|e| format!("invalid XML: {e}"))?;
                        resolve_predefined_entity(&name)
                            .ok_or_else(|| format!("invalid XML: undefined entity &{name};"))?
                            .to_owned()
                    }
                    Err(e) => return Err(format!("invalid XML character reference: {e}")),
                };
                push_text(&mut stack, &resolved)?;
            }
            Event::DocType(_) => {
                return Err("XML with a <!DOCTYPE> is refused (no entity expansion)".to_owned())
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    if !stack.is_empty() {
        return Err("invalid XML: unclosed element at the end".to_owned());
    }
    root.ok_or_else(|| "invalid XML: no element found".to_owned())
}

fn open(start: &BytesStart<'_>) -> Result<Open, String> {
    let name = utf8(start.name().as_ref())?.to_owned();
    let mut item = None;
    for attr in start.attributes() {
        let attr = attr.map_err(|e| format!("invalid XML attribute in <{name}>: {e}"))?;
        let key = format!("@{}", utf8(attr.key.as_ref())?);
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| format!("invalid XML attribute value in <{name}>: {e}"))?;
        push_data(
            item.get_or_insert_with(Map::new),
            key,
            Value::String(value.into_owned()),
        );
    }
    Ok(Open {
        name,
        item,
        text: String::new(),
    })
}

/// Ends an element: its value goes into its parent, or becomes the document.
fn close(element: Open, stack: &mut [Open], root: &mut Option<Value>) -> Result<(), String> {
    if root.is_some() {
        return Err("invalid XML: more than one root element".to_owned());
    }
    let text = element.text.trim();
    let value = match element.item {
        None if text.is_empty() => Value::Null,
        None => Value::String(text.to_owned()),
        Some(mut item) => {
            if !text.is_empty() {
                push_data(
                    &mut item,
                    "#text".to_owned(),
                    Value::String(text.to_owned()),
                );
            }
            Value::Object(item)
        }
    };
    match stack.last_mut() {
        Some(parent) => push_data(
            parent.item.get_or_insert_with(Map::new),
            element.name,
            value,
        ),
        None => {
            let mut document = Map::new();
            document.insert(element.name, value);
            *root = Some(Value::Object(document));
        }
    }
    Ok(())
}

/// xmltodict's `push_data`: a repeated key turns into an array of its values.
fn push_data(item: &mut Map<String, Value>, key: String, value: Value) {
    match item.get_mut(&key) {
        Some(Value::Array(list)) => list.push(value),
        Some(existing) => {
            let first = existing.take();
            *existing = Value::Array(vec![first, value]);
        }
        None => {
            item.insert(key, value);
        }
    }
}

/// Text belongs to the open element; outside the root only whitespace is allowed.
fn push_text(stack: &mut [Open], text: &str) -> Result<(), String> {
    match stack.last_mut() {
        Some(open) => {
            open.text.push_str(text);
            Ok(())
        }
        None if text.trim().is_empty() => Ok(()),
        None => Err("invalid XML: text outside the root element".to_owned()),
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| "invalid XML: a name is not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builds_what_xmltodict_builds() {
        let doc = r#"<?xml version="1.0"?>
<person id="7">
  <!-- a comment -->
  <name> Ada &amp; Co &#x41; </name>
  <skill>math</skill>
  <skill>poetry</skill>
  <empty/>
  <note lang="en">hi</note>
  <code><![CDATA[a < b]]></code>
</person>"#;
        assert_eq!(
            parse(doc).unwrap(),
            json!({"person": {
                "@id": "7",
                "name": "Ada & Co A",
                "skill": ["math", "poetry"],
                "empty": null,
                "note": {"@lang": "en", "#text": "hi"},
                "code": "a < b"
            }})
        );
        assert_eq!(
            parse("<a>x<b>1</b>y</a>").unwrap(),
            json!({"a": {"b": "1", "#text": "xy"}})
        );
        assert_eq!(parse("<a>  </a>").unwrap(), json!({"a": null}));
    }

    #[test]
    fn malformed_documents_are_errors() {
        for bad in [
            "<root><name>Alice</name><age>25",
            "<a></b>",
            "<a/><b/>",
            "text<a/>",
            "",
            "<a>&bogus;</a>",
            "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>",
            "<a x='1' x='2'/>",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let deep = "<a>".repeat(100_000);
        assert!(parse(&deep).unwrap_err().contains("deeper"));
    }
}
