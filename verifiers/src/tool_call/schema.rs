//! The two task inputs: function tools (JSON Schema, in OpenAI's chat layout, the
//! Responses layout or BFCL's bare one) and the reference calls in BFCL's
//! possible-answer layout.

use serde_json::{Map, Value};
use thiserror::Error;

use super::values::PyType;
use super::MAX_CALLS;

/// A tool or ground-truth entry that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SchemaError {
    #[error("{at}: {problem}")]
    Invalid { at: String, problem: String },
    #[error("{at}: {count} entries, over the limit of {MAX_CALLS}")]
    TooMany { at: String, count: usize },
}

fn invalid(at: &str, problem: impl Into<String>) -> SchemaError {
    SchemaError::Invalid {
        at: at.to_owned(),
        problem: problem.into(),
    }
}

/// A parameter's declared type, in BFCL's vocabulary; JSON Schema's names map onto it
/// (`number` is `float`, `object` is `dict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Integer,
    Float,
    Boolean,
    Array,
    Tuple,
    Dict,
    /// BFCL's `any`, which its checker treats as a string.
    Any,
    /// No `type`, or one BFCL has no rule for (`null`): values are compared without a
    /// type check (BFCL would fail on such a tool).
    Untyped,
}

impl ParamType {
    fn parse(name: &str) -> Self {
        match name {
            "string" | "str" => Self::String,
            "integer" | "int" => Self::Integer,
            "number" | "float" => Self::Float,
            "boolean" | "bool" => Self::Boolean,
            "array" | "list" => Self::Array,
            "tuple" => Self::Tuple,
            "object" | "dict" => Self::Dict,
            "any" => Self::Any,
            _ => Self::Untyped,
        }
    }

    /// A schema's `type`: a name, or a list of names of which the first non-`null`
    /// one counts (`["string", "null"]` is a string).
    fn of_schema(schema: &Value) -> Self {
        match schema.get("type") {
            Some(Value::String(name)) => Self::parse(name),
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .find(|n| *n != "null")
                .map_or(Self::Untyped, Self::parse),
            _ => Self::Untyped,
        }
    }

    /// The Python type BFCL's `PYTHON_TYPE_MAPPING` gives it.
    pub fn python(self) -> Option<PyType> {
        Some(match self {
            Self::String | Self::Any => PyType::Str,
            Self::Integer => PyType::Int,
            Self::Float => PyType::Float,
            Self::Boolean => PyType::Bool,
            Self::Array | Self::Tuple => PyType::List,
            Self::Dict => PyType::Dict,
            Self::Untyped => return None,
        })
    }
}

/// One declared parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamSpec {
    pub kind: ParamType,
    /// The type of an array's items (`items.type`), when declared.
    pub items: Option<ParamType>,
    /// The declared `default`, used when converting xLAM-style references.
    pub default: Option<Value>,
}

/// One function tool.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionTool {
    pub name: String,
    /// Parameters in declaration order.
    pub params: Vec<(String, ParamSpec)>,
    pub required: Vec<String>,
}

impl FunctionTool {
    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// Reads one tool; `Ok(None)` for a tool that is not a function (`web_search`).
    pub fn from_json(tool: &Value, at: &str) -> Result<Option<Self>, SchemaError> {
        let object = tool
            .as_object()
            .ok_or_else(|| invalid(at, "a tool must be an object"))?;
        match object.get("type").and_then(Value::as_str) {
            None | Some("function") => {}
            Some(_) => return Ok(None),
        }
        // Chat layout nests the function; Responses and BFCL layouts do not.
        let (function, at) = match object.get("function") {
            Some(f) => (
                f.as_object()
                    .ok_or_else(|| invalid(at, "`function` must be an object"))?,
                format!("{at}.function"),
            ),
            None => (object, at.to_owned()),
        };
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid(&at, "a function needs a string `name`"))?;
        let (params, required) = match function.get("parameters") {
            None | Some(Value::Null) => (Vec::new(), Vec::new()),
            Some(p) => parameters(p, &format!("{at}.parameters"))?,
        };
        Ok(Some(Self {
            name: name.to_owned(),
            params,
            required,
        }))
    }
}

type Params = (Vec<(String, ParamSpec)>, Vec<String>);

fn parameters(schema: &Value, at: &str) -> Result<Params, SchemaError> {
    let object = schema
        .as_object()
        .ok_or_else(|| invalid(at, "`parameters` must be a JSON Schema object"))?;
    let props = match object.get("properties") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(props)) => props
            .iter()
            .map(|(name, spec)| (name.clone(), param_spec(spec)))
            .collect(),
        Some(_) => return Err(invalid(at, "`properties` must be an object")),
    };
    let required = match object.get("required") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|n| n.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid(at, "`required` must be an array of strings"))?,
        Some(_) => return Err(invalid(at, "`required` must be an array of strings")),
    };
    Ok((props, required))
}

fn param_spec(spec: &Value) -> ParamSpec {
    let kind = ParamType::of_schema(spec);
    let items = spec
        .get("items")
        .filter(|_| matches!(kind, ParamType::Array | ParamType::Tuple))
        .map(ParamType::of_schema);
    ParamSpec {
        kind,
        items,
        default: spec.get("default").cloned(),
    }
}

/// Reads a list of tools, skipping non-function ones.
pub fn tools_from_json(tools: &[Value], at: &str) -> Result<Vec<FunctionTool>, SchemaError> {
    let mut out = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        if let Some(t) = FunctionTool::from_json(tool, &format!("{at}[{i}]"))? {
            out.push(t);
        }
    }
    Ok(out)
}

/// One reference call: the function and, per parameter, its accepted values (`""`
/// among them: the parameter may be left out).
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedCall {
    pub name: String,
    pub params: Map<String, Value>,
}

impl ExpectedCall {
    /// The accepted values of `param`, when the reference names it.
    pub fn accepted(&self, param: &str) -> Option<&[Value]> {
        self.params
            .get(param)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
    }
}

/// Reads BFCL's possible-answer list `[{"func": {"param": [values...]}}, ...]`, or the
/// same list held in a JSON string.
pub fn ground_truth_from_json(value: &Value, at: &str) -> Result<Vec<ExpectedCall>, SchemaError> {
    let decoded;
    let value = match value {
        Value::String(text) => {
            decoded = serde_json::from_str::<Value>(text)
                .map_err(|e| invalid(at, format!("a JSON string that does not parse: {e}")))?;
            &decoded
        }
        other => other,
    };
    let entries = value
        .as_array()
        .ok_or_else(|| invalid(at, "must be a list of {function: {param: [values]}}"))?;
    if entries.len() > MAX_CALLS {
        return Err(SchemaError::TooMany {
            at: at.to_owned(),
            count: entries.len(),
        });
    }
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| expected_call(entry, &format!("{at}[{i}]")))
        .collect()
}

fn expected_call(entry: &Value, at: &str) -> Result<ExpectedCall, SchemaError> {
    let object = entry
        .as_object()
        .filter(|o| o.len() == 1)
        .ok_or_else(|| invalid(at, "each entry must be an object with exactly one key"))?;
    let (name, params) = object.iter().next().ok_or_else(|| invalid(at, "empty"))?;
    let params = params
        .as_object()
        .ok_or_else(|| invalid(&format!("{at}.{name}"), "must be an object of parameters"))?;
    for (param, accepted) in params {
        if !accepted.is_array() {
            return Err(invalid(
                &format!("{at}.{name}.{param}"),
                "must be a list of accepted values",
            ));
        }
    }
    Ok(ExpectedCall {
        name: name.clone(),
        params: params.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_tool_layout() {
        let params = json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": ["integer", "null"]},
            "tags": {"type": "array", "items": {"type": "number"}}, "x": {}},
            "required": ["city"]});
        let layouts = [
            json!({"type": "function", "function": {"name": "f", "parameters": params}}),
            json!({"type": "function", "name": "f", "parameters": params, "strict": true}),
            json!({"name": "f", "description": "bfcl", "parameters": params}),
        ];
        for tool in layouts {
            let t = FunctionTool::from_json(&tool, "tools[0]").unwrap().unwrap();
            assert_eq!(t.name, "f");
            assert_eq!(t.required, ["city"]);
            assert_eq!(t.param("city").unwrap().kind, ParamType::String);
            assert_eq!(t.param("days").unwrap().kind, ParamType::Integer);
            let tags = t.param("tags").unwrap();
            assert_eq!(
                (tags.kind, tags.items),
                (ParamType::Array, Some(ParamType::Float))
            );
            assert_eq!(t.param("x").unwrap().kind, ParamType::Untyped);
        }
        let search = json!({"type": "web_search"});
        assert_eq!(FunctionTool::from_json(&search, "t").unwrap(), None);
        let err = FunctionTool::from_json(&json!({"type": "function"}), "tools[1]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "tools[1]: a function needs a string `name`"
        );
    }

    #[test]
    fn reads_ground_truth_as_list_or_string() {
        let gt = json!([{"f": {"a": [1, 2], "b": ["", "x"]}}]);
        let calls = ground_truth_from_json(&gt, "ground_truth").unwrap();
        assert_eq!(calls[0].name, "f");
        assert_eq!(calls[0].accepted("b").unwrap(), [json!(""), json!("x")]);
        let text = Value::String(gt.to_string());
        assert_eq!(
            ground_truth_from_json(&text, "ground_truth").unwrap(),
            calls
        );
        let bad = [
            (json!({"f": {}}), "ground_truth: must be a list of {function: {param: [values]}}"),
            (json!([{"f": {}, "g": {}}]), "ground_truth[0]: each entry must be an object with exactly one key"),
            (json!([{"f": {"a": 1}}]), "ground_truth[0].f.a: must be a list of accepted values"),
            (json!("[{"), "ground_truth: a JSON string that does not parse: EOF while parsing an object at line 1 column 2"),
        ];
        for (value, message) in bad {
            let err = ground_truth_from_json(&value, "ground_truth").unwrap_err();
            assert_eq!(err.to_string(), message);
        }
    }
}
