//! One predicted call against one reference call, by the rules of BFCL's AST checker
//! (`bfcl_eval/eval_checker/ast_eval/ast_checker.py`, `simple_function_checker` and
//! its helpers, Python branch), on JSON values:
//!
//! - the names are equal;
//! - every parameter the tool's schema `required`s is present;
//! - every given parameter is declared by the tool and named by the reference;
//! - each value has the declared type (an int is widened where a float is declared,
//!   also inside float arrays, see below), or the type of the reference's values (BFCL's
//!   "variable" case, then compared as is);
//! - strings, string lists and dict values are compared after BFCL's standardization
//!   ([`standardize`]); dicts and lists of dicts key by key; anything else with Python's
//!   `==` against the accepted values;
//! - every parameter the reference names but the call leaves out has `""` among its
//!   accepted values.
//!
//! Differences from BFCL, each because BFCL's inputs are Python literals and ours JSON:
//! ints inside an array of `number` are widened to floats as top-level ones are (in
//! JSON `1` is a valid `number`); a parameter declared without a `type` is compared
//! without a type check (BFCL raises); the `required` list may be absent (empty).

use serde_json::{Map, Value};

use super::schema::{ExpectedCall, FunctionTool, ParamSpec, ParamType};
use super::values::{py_eq, py_in, standardize, standardized, PyType};

/// Why a call does not match a reference: BFCL's `error_type` and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub error_type: &'static str,
    pub message: String,
}

fn mismatch(error_type: &'static str, message: String) -> Mismatch {
    Mismatch {
        error_type,
        message,
    }
}

/// Checks `arguments` of a call to `name` against the reference `expected`, whose
/// function is `tool`.
pub fn check_call(
    tool: &FunctionTool,
    name: &str,
    arguments: &Map<String, Value>,
    expected: &ExpectedCall,
) -> Result<(), Mismatch> {
    if name != expected.name {
        return Err(mismatch(
            "simple_function_checker:wrong_func_name",
            format!(
                "Function name {:?} not found in model output.",
                expected.name
            ),
        ));
    }
    if let Some(missing) = tool.required.iter().find(|p| !arguments.contains_key(*p)) {
        return Err(mismatch(
            "simple_function_checker:missing_required",
            format!("Missing required parameter: {missing:?}."),
        ));
    }
    for (param, value) in arguments {
        let (Some(spec), Some(accepted)) = (tool.param(param), expected.accepted(param)) else {
            return Err(mismatch(
                "simple_function_checker:unexpected_param",
                format!("Unexpected parameter: {param:?}."),
            ));
        };
        check_param(param, value, spec, accepted)?;
    }
    for (param, accepted) in &expected.params {
        let optional = accepted.as_array().is_some_and(|a| a.contains(&empty()));
        if !arguments.contains_key(param) && !optional {
            return Err(mismatch(
                "simple_function_checker:missing_optional",
                format!("Optional parameter {param:?} not provided and not marked as optional."),
            ));
        }
    }
    Ok(())
}

fn empty() -> Value {
    Value::String(String::new())
}

fn check_param(
    param: &str,
    value: &Value,
    spec: &ParamSpec,
    accepted: &[Value],
) -> Result<(), Mismatch> {
    let value = widen(value, spec);
    let Some(expected_type) = spec.kind.python() else {
        return loose_value(param, &value, accepted);
    };
    let nested = match spec.kind {
        ParamType::Array | ParamType::Tuple => spec.items.and_then(ParamType::python),
        _ => None,
    };
    let is_variable = type_check(param, &value, accepted, expected_type, nested)?;
    if !is_variable {
        match (expected_type, nested, &value) {
            (PyType::Dict, _, Value::Object(map)) => return dict_checker(param, map, accepted),
            (PyType::List, Some(PyType::Dict), Value::Array(items)) => {
                return list_dict_checker(param, items, accepted)
            }
            (PyType::Str, _, Value::String(s)) => return string_checker(param, s, accepted),
            (PyType::List, _, Value::Array(items)) => return list_checker(param, items, accepted),
            _ => {}
        }
    }
    if py_in(&value, accepted) {
        Ok(())
    } else {
        Err(mismatch(
            "value_error:others",
            format!(
                "Invalid value for parameter {param:?}: {value}. Expected one of {}.",
                list(accepted)
            ),
        ))
    }
}

/// Python's auto conversion from int to float, which BFCL applies where `float` is
/// declared (and cascade also to the items of a float array).
fn widen(value: &Value, spec: &ParamSpec) -> Value {
    let to_float = |v: &Value| match (PyType::of(v), v.as_f64()) {
        (PyType::Int, Some(f)) => serde_json::Number::from_f64(f).map_or(v.clone(), Value::Number),
        _ => v.clone(),
    };
    match (spec.kind, spec.items, value) {
        (ParamType::Float, _, v) => to_float(v),
        (ParamType::Array | ParamType::Tuple, Some(ParamType::Float), Value::Array(items)) => {
            Value::Array(items.iter().map(to_float).collect())
        }
        (_, _, v) => v.clone(),
    }
}

/// A parameter without a usable declared type: its value is one of the accepted ones
/// (strings standardized).
fn loose_value(param: &str, value: &Value, accepted: &[Value]) -> Result<(), Mismatch> {
    let candidates: Vec<Value> = accepted.iter().map(standardized).collect();
    if py_in(&standardized(value), &candidates) {
        return Ok(());
    }
    Err(mismatch(
        "value_error:others",
        format!(
            "Invalid value for parameter {param:?}: {value}. Expected one of {}.",
            list(accepted)
        ),
    ))
}

/// The type of the first accepted value that is not `""` (BFCL's
/// `get_possible_answer_type`).
fn answer_type(accepted: &[Value]) -> Option<PyType> {
    accepted.iter().find(|a| **a != empty()).map(PyType::of)
}

/// BFCL's `type_checker`: `Ok(is_variable)` when the type is acceptable, where
/// `is_variable` says the reference holds a value of another type than declared (a
/// variable name), so the value is compared as is.
fn type_check(
    param: &str,
    value: &Value,
    accepted: &[Value],
    expected: PyType,
    nested: Option<PyType>,
) -> Result<bool, Mismatch> {
    let answer = answer_type(accepted);
    let is_variable = answer.is_some_and(|t| t != expected);
    let actual = PyType::of(value);
    if actual == expected {
        let (Some(inner), Value::Array(items)) = (nested, value) else {
            return Ok(is_variable);
        };
        // Each item must have the inner type (or that of the reference list's items)
        // for at least one accepted list; a non-list candidate (`""`) passes.
        let fits = |candidate: &Value| match candidate {
            Value::Array(answers) => items
                .iter()
                .all(|item| type_check(param, item, answers, inner, None).is_ok()),
            _ => true,
        };
        if accepted.iter().any(fits) {
            return Ok(is_variable);
        }
        return Err(mismatch(
            "type_error:nested",
            format!(
                "Nested type checking failed for parameter {param:?}. Expected outer type {} with inner type {}. Parameter value: {value}.",
                expected.name(),
                inner.name()
            ),
        ));
    }
    if answer == Some(actual) {
        return Ok(true);
    }
    Err(mismatch(
        "type_error:simple",
        format!(
            "Incorrect type for parameter {param:?}. Expected type {}, got {}. Parameter value: {value}.",
            expected.name(),
            actual.name()
        ),
    ))
}

fn string_checker(param: &str, value: &str, accepted: &[Value]) -> Result<(), Mismatch> {
    let wanted = standardize(value);
    if accepted
        .iter()
        .any(|a| a.as_str().is_some_and(|s| standardize(s) == wanted))
    {
        return Ok(());
    }
    Err(mismatch(
        "value_error:string",
        format!(
            "Invalid value for parameter {param:?}: {value:?}. Expected one of {}. Case insensitive.",
            list(accepted)
        ),
    ))
}

/// BFCL's `list_checker`: the list, its string items standardized, equals one accepted
/// list, likewise standardized. An accepted string counts as the list of its
/// characters, as Python iterates it (so `""` accepts `[]`).
fn list_checker(param: &str, items: &[Value], accepted: &[Value]) -> Result<(), Mismatch> {
    let ours = Value::Array(items.iter().map(standardized).collect());
    let fits = |candidate: &Value| {
        let theirs: Vec<Value> = match candidate {
            Value::Array(list) => list.iter().map(standardized).collect(),
            Value::String(s) => s
                .chars()
                .map(|c| Value::String(standardize(&c.to_string())))
                .collect(),
            _ => return false,
        };
        py_eq(&ours, &Value::Array(theirs))
    };
    if accepted.iter().any(fits) {
        return Ok(());
    }
    Err(mismatch(
        "value_error:list/tuple",
        format!(
            "Invalid value for parameter {param:?}: {}. Expected one of {}.",
            Value::Array(items.to_vec()),
            list(accepted)
        ),
    ))
}

/// BFCL's `dict_checker`: some accepted dict (not `""`) names every key of the value,
/// accepts each value (strings standardized), and lists `""` for each key left out.
fn dict_checker(param: &str, map: &Map<String, Value>, accepted: &[Value]) -> Result<(), Mismatch> {
    let mut last = mismatch(
        "dict_checker:unclear",
        format!("No accepted dict for parameter {param:?}."),
    );
    for candidate in accepted.iter().filter(|a| **a != empty()) {
        match dict_fits(map, candidate) {
            Ok(()) => return Ok(()),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn dict_fits(map: &Map<String, Value>, candidate: &Value) -> Result<(), Mismatch> {
    let Some(candidate) = candidate.as_object() else {
        return Err(mismatch(
            "value_error:dict_key",
            "The accepted value is not a dict.".into(),
        ));
    };
    for (key, value) in map {
        let Some(options) = candidate.get(key) else {
            return Err(mismatch(
                "value_error:dict_key",
                format!("Unexpected dict key parameter: {key:?}."),
            ));
        };
        let options: Vec<Value> = options
            .as_array()
            .map(|o| o.iter().map(standardized).collect())
            .unwrap_or_default();
        if !py_in(&standardized(value), &options) {
            return Err(mismatch(
                "value_error:dict_value",
                format!(
                    "Invalid value for parameter {key:?}: {value}. Expected one of {}.",
                    list(&options)
                ),
            ));
        }
    }
    for (key, options) in candidate {
        let optional = options.as_array().is_some_and(|o| o.contains(&empty()));
        if !map.contains_key(key) && !optional {
            return Err(mismatch(
                "value_error:dict_key",
                format!("Missing dict key parameter: {key:?}."),
            ));
        }
    }
    Ok(())
}

/// BFCL's `list_dict_checker`: some accepted list has as many dicts as the value, and
/// each dict of the value fits the one at its position.
fn list_dict_checker(param: &str, items: &[Value], accepted: &[Value]) -> Result<(), Mismatch> {
    let mut last = mismatch(
        "list_dict_checker:unclear",
        format!("No accepted list for parameter {param:?}."),
    );
    for candidate in accepted {
        let dicts: &[Value] = match candidate {
            Value::Array(list) => list,
            Value::String(s) if s.is_empty() => &[],
            _ => continue,
        };
        if dicts.len() != items.len() {
            last = mismatch(
                "value_error:list_dict_count",
                "Wrong number of dictionaries in the list.".into(),
            );
            continue;
        }
        let fits = items
            .iter()
            .zip(dicts)
            .try_for_each(|(item, dict)| match item {
                Value::Object(map) => dict_fits(map, dict),
                _ => Err(mismatch(
                    "value_error:dict_key",
                    "A list item is not a dict.".into(),
                )),
            });
        match fits {
            Ok(()) => return Ok(()),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn list(values: &[Value]) -> Value {
    Value::Array(values.to_vec())
}
