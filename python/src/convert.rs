//! Python objects to JSON values, with the types a JSON line can hold.
//!
//! A sample given as a dict must score exactly as the same sample written to a JSONL
//! file and read by `cascade score`: a Python `int` is a JSON integer (one beyond
//! 64 bits becomes a float, as serde_json reads such a literal), a `float` is the same
//! f64, and anything JSON cannot hold (NaN, a set, a non-string key) is refused with a
//! reason, which the caller turns into that sample's `details.error`.

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 128;

/// Converts `obj` to a JSON value, or says why it cannot be one.
pub fn to_json(obj: &Bound<'_, PyAny>) -> Result<Value, String> {
    value(obj, 0)
}

fn value(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: Python's bool is a subclass of int.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return integer(obj);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return float(f.value());
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_str()
            .map(|s| Value::String(s.to_owned()))
            .map_err(|e| format!("a string is not valid UTF-8: {e}"));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return object(d, depth).map(Value::Object);
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return list.iter().map(|item| value(&item, depth + 1)).collect();
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return tuple.iter().map(|item| value(&item, depth + 1)).collect();
    }
    Err(format!("a value of type `{}` is not JSON", type_name(obj)))
}

fn integer(obj: &Bound<'_, PyAny>) -> Result<Value, String> {
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(Value::from(i));
    }
    if let Ok(u) = obj.extract::<u64>() {
        return Ok(Value::from(u));
    }
    match obj.extract::<f64>() {
        Ok(f) => float(f),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Err("an integer is too large for JSON".to_owned())
        }
        Err(e) => Err(e.to_string()),
    }
}

fn float(f: f64) -> Result<Value, String> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| format!("{f} is not a JSON number"))
}

/// Converts a dict to a JSON object (an environment's config table).
pub fn to_object(dict: &Bound<'_, PyDict>) -> Result<Map<String, Value>, String> {
    object(dict, 0)
}

fn object(dict: &Bound<'_, PyDict>, depth: usize) -> Result<Map<String, Value>, String> {
    let mut map = Map::new();
    for (key, item) in dict.iter() {
        let key: String = key
            .extract()
            .map_err(|_| format!("a dict key of type `{}` is not a string", type_name(&key)))?;
        let item = value(&item, depth + 1).map_err(|e| format!("field `{key}`: {e}"))?;
        map.insert(key, item);
    }
    Ok(map)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}
