//! A `tool_call` row's task fields: the function tools and the reference calls.
//!
//! Tools: `tools`, else NeMo Gym's `responses_create_params.tools`. Reference calls,
//! first found of:
//! - `ground_truth`: BFCL's possible answers `[{"func": {"param": [accepted, ...]}}]`
//!   (`""` among the accepted values: may be left out), a list or a JSON string;
//! - `expected_answers`: NeMo Gym xlam_fc's `[{"name", "arguments"}]`, each argument
//!   accepting its one value and every other declared parameter optional (left out,
//!   or given its declared `default`);
//! - `expected_action`: NeMo Gym single_step_tool_use's `{"type": "function_call",
//!   "name", "arguments"}` (exactly those arguments), or `{"type": "message"}`: no call
//!   expected.

use cascade_verifiers::tool_call::schema::{ParamSpec, ParamType};
use cascade_verifiers::tool_call::{
    ground_truth_from_json, tools_from_json, ExpectedCall, FunctionTool, SchemaError, MAX_CALLS,
};
use cascade_verifiers::{FieldError, Sample};
use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::gym::gym_tools;

/// Why a row cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RowError {
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error(transparent)]
    Schema(#[from] SchemaError),
}

/// Which field held the reference calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    GroundTruth,
    ExpectedAnswers,
    ExpectedAction,
}

impl Reference {
    pub fn field(self) -> &'static str {
        match self {
            Self::GroundTruth => "ground_truth",
            Self::ExpectedAnswers => "expected_answers",
            Self::ExpectedAction => "expected_action",
        }
    }
}

/// One row, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRow {
    pub tools: Vec<FunctionTool>,
    pub expected: Vec<ExpectedCall>,
    pub reference: Reference,
}

/// The row's tools as given: `tools`, else `responses_create_params.tools`.
pub fn raw_tools(row: &Sample) -> Result<&Vec<Value>, FieldError> {
    if let Some(tools) = row.get("tools") {
        return tools
            .as_array()
            .ok_or_else(|| FieldError::wrong_type("tools", "an array of function tools", tools));
    }
    gym_tools(row)?.ok_or_else(|| FieldError::Missing("tools".into()))
}

impl TryFrom<&Sample> for ToolCallRow {
    type Error = RowError;

    fn try_from(row: &Sample) -> Result<Self, RowError> {
        let field = if row.get("tools").is_some() {
            "tools"
        } else {
            "responses_create_params.tools"
        };
        let tools = tools_from_json(raw_tools(row)?, field)?;
        let (reference, expected) = if let Some(gt) = row.get("ground_truth") {
            (
                Reference::GroundTruth,
                ground_truth_from_json(gt, "ground_truth")?,
            )
        } else if let Some(answers) = row.get("expected_answers") {
            (
                Reference::ExpectedAnswers,
                from_expected_answers(answers, &tools)?,
            )
        } else if let Some(action) = row.get("expected_action") {
            (
                Reference::ExpectedAction,
                from_expected_action(action, &tools)?,
            )
        } else {
            return Err(FieldError::Missing("ground_truth".into()).into());
        };
        Ok(Self {
            tools,
            expected,
            reference,
        })
    }
}

fn invalid(at: &str, problem: &str) -> SchemaError {
    SchemaError::Invalid {
        at: at.to_owned(),
        problem: problem.to_owned(),
    }
}

/// `{name, arguments}` with `arguments` an object or a JSON string holding one.
fn named_call<'a>(
    value: &'a Value,
    at: &str,
) -> Result<(&'a str, Map<String, Value>), SchemaError> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(at, "needs a string `name`"))?;
    let arguments = match value.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(Value::String(text)) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => map,
            _ => return Err(invalid(&format!("{at}.arguments"), "must be a JSON object")),
        },
        Some(_) => return Err(invalid(&format!("{at}.arguments"), "must be a JSON object")),
    };
    Ok((name, arguments))
}

/// The reference call accepting exactly `arguments` (as Gym's `==` does). BFCL's
/// checker reads a declared `object` parameter, or an array of objects, through its
/// dict form, `{key: [accepted, …]}`: an expected dict is written in that form, each key
/// accepting its one value, or the exact expected call could never match.
fn exactly(name: &str, arguments: &Map<String, Value>, tools: &[FunctionTool]) -> ExpectedCall {
    let tool = tools.iter().find(|t| t.name == name);
    let params = arguments
        .iter()
        .map(|(k, v)| {
            let spec = tool.and_then(|t| t.param(k));
            (k.clone(), json!([accepted_form(v, spec)]))
        })
        .collect();
    ExpectedCall {
        name: name.to_owned(),
        params,
    }
}

/// `value` as the one accepted value of a parameter declared by `spec`.
fn accepted_form(value: &Value, spec: Option<&ParamSpec>) -> Value {
    let dict = |map: &Map<String, Value>| -> Value {
        Value::Object(map.iter().map(|(k, v)| (k.clone(), json!([v]))).collect())
    };
    match (spec.map(|s| (s.kind, s.items)), value) {
        (Some((ParamType::Dict, _)), Value::Object(map)) => dict(map),
        (
            Some((ParamType::Array | ParamType::Tuple, Some(ParamType::Dict))),
            Value::Array(items),
        ) if items.iter().all(Value::is_object) => Value::Array(
            items
                .iter()
                .filter_map(Value::as_object)
                .map(dict)
                .collect(),
        ),
        _ => value.clone(),
    }
}

fn from_expected_answers(
    answers: &Value,
    tools: &[FunctionTool],
) -> Result<Vec<ExpectedCall>, SchemaError> {
    let list = answers
        .as_array()
        .ok_or_else(|| invalid("expected_answers", "must be a list of {name, arguments}"))?;
    if list.len() > MAX_CALLS {
        return Err(SchemaError::TooMany {
            at: "expected_answers".into(),
            count: list.len(),
        });
    }
    let mut calls = Vec::with_capacity(list.len());
    for (i, answer) in list.iter().enumerate() {
        let (name, arguments) = named_call(answer, &format!("expected_answers[{i}]"))?;
        let mut call = exactly(name, &arguments, tools);
        // xlam_fc only checks the expected arguments: any other declared one may be
        // left out or, the nearest BFCL rule, given its declared default.
        for tool in tools.iter().filter(|t| t.name == name) {
            for (param, spec) in &tool.params {
                if !call.params.contains_key(param) {
                    let accepted = match &spec.default {
                        Some(d) => json!(["", d]),
                        None => json!([""]),
                    };
                    call.params.insert(param.clone(), accepted);
                }
            }
        }
        calls.push(call);
    }
    Ok(calls)
}

fn from_expected_action(
    action: &Value,
    tools: &[FunctionTool],
) -> Result<Vec<ExpectedCall>, SchemaError> {
    match action.get("type").and_then(Value::as_str) {
        Some("message") => Ok(Vec::new()),
        Some("function_call") => {
            let (name, arguments) = named_call(action, "expected_action")?;
            Ok(vec![exactly(name, &arguments, tools)])
        }
        _ => Err(invalid(
            "expected_action.type",
            "must be \"function_call\" or \"message\"",
        )),
    }
}
