//! Python's view of JSON values, as BFCL's checker sees them after `json.loads`: the
//! type a value has (`int` and `float` are different types, `bool` is not `int`), the
//! equality `==` and `in` use (`1 == 1.0 == True`), and BFCL's string standardization.

use serde_json::Value;

/// The Python type of a decoded JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyType {
    None,
    Bool,
    Int,
    Float,
    Str,
    List,
    Dict,
}

impl PyType {
    pub fn of(value: &Value) -> Self {
        match value {
            Value::Null => Self::None,
            Value::Bool(_) => Self::Bool,
            Value::Number(n) if n.is_f64() => Self::Float,
            Value::Number(_) => Self::Int,
            Value::String(_) => Self::Str,
            Value::Array(_) => Self::List,
            Value::Object(_) => Self::Dict,
        }
    }

    /// Python's name of the type, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "NoneType",
            Self::Bool => "bool",
            Self::Int => "int",
            Self::Float => "float",
            Self::Str => "str",
            Self::List => "list",
            Self::Dict => "dict",
        }
    }
}

/// Deeper values than this compare unequal rather than recurse further. Rows and calls
/// parsed by serde_json are at most 128 deep, so this only guards values built by hand.
const MAX_DEPTH: usize = 256;

/// Python's `a == b` on decoded JSON: numbers and booleans compare by value across
/// types (`1 == 1.0`, `True == 1`), lists element-wise, dicts by key set and values.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    eq_at(a, b, 0)
}

fn eq_at(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq_at(p, q, depth + 1))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| eq_at(v, w, depth + 1)))
        }
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x.equals(y),
            _ => false,
        },
    }
}

/// Python's `value in candidates`.
pub fn py_in(value: &Value, candidates: &[Value]) -> bool {
    candidates.iter().any(|c| py_eq(value, c))
}

/// A number or a boolean, as Python compares them.
#[derive(Clone, Copy)]
enum Numeric {
    Int(i128),
    Float(f64),
}

impl Numeric {
    fn equals(self, other: Numeric) -> bool {
        match (self, other) {
            (Numeric::Int(x), Numeric::Int(y)) => x == y,
            (Numeric::Float(x), Numeric::Float(y)) => x == y,
            // Python compares int and float exactly; an f64 holding an integer within
            // i128 is compared as that integer, any other float is unequal to an int.
            (Numeric::Int(i), Numeric::Float(f)) | (Numeric::Float(f), Numeric::Int(i)) => {
                f.fract() == 0.0 && f.abs() < 1e38 && f as i128 == i
            }
        }
    }
}

fn numeric(v: &Value) -> Option<Numeric> {
    match v {
        Value::Bool(b) => Some(Numeric::Int(i128::from(*b))),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(Numeric::Int(i128::from(i)))
            } else if let Some(u) = n.as_u64() {
                Some(Numeric::Int(i128::from(u)))
            } else {
                n.as_f64().map(Numeric::Float)
            }
        }
        _ => None,
    }
}

/// BFCL's `standardize_string`: drop every ` ,./-_*^` (ASCII space only, not other
/// whitespace), lowercase, and turn `'` into `"`, so `April 1, 2024` equals
/// `april 1 2024`.
pub fn standardize(s: &str) -> String {
    let kept: String = s
        .chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .collect();
    kept.to_lowercase().replace('\'', "\"")
}

/// A value with its strings standardized when it is a string, else unchanged: what
/// BFCL does to each list element and dict value before comparing.
pub fn standardized(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(standardize(s)),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_types_and_equality() {
        assert_eq!(PyType::of(&json!(1)), PyType::Int);
        assert_eq!(PyType::of(&json!(1.0)), PyType::Float);
        assert_eq!(PyType::of(&json!(true)), PyType::Bool);
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!(true), &json!(1)));
        assert!(!py_eq(&json!(1.5), &json!(1)));
        assert!(py_eq(&json!({"a": [1, "x"]}), &json!({"a": [1.0, "x"]})));
        assert!(!py_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(!py_eq(&json!(null), &json!(0)));
        assert!(py_eq(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!py_eq(&json!(i64::MAX), &json!(u64::MAX)));
    }

    #[test]
    fn standardizes_like_bfcl() {
        assert_eq!(standardize("April 1, 2024"), "april12024");
        assert_eq!(standardize("New_York-City./*^"), "newyorkcity");
        assert_eq!(standardize("it's"), "it\"s");
        // Only the ASCII space is removed, as BFCL's regex does.
        assert_eq!(standardize("a\tb"), "a\tb");
        assert_eq!(standardize("ÉCOLE"), "école");
    }
}
