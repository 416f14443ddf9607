//! Single-step tool calling: the calls in a model's turn ([`parse`]) compared with the
//! reference calls by BFCL's AST-checker rules ([`check`]), parallel calls matched as
//! an unordered multiset by a maximum bipartite matching ([`matching`]).
//!
//! The turn is correct iff it makes exactly as many calls as the reference and every
//! call matches a distinct reference call. A wrong count is never correct.
//!
//! Bounds: a text response is read up to [`MAX_RESPONSE_BYTES`]; at most [`MAX_CALLS`]
//! calls and reference calls; JSON nesting is limited by serde_json's recursion limit
//! (128). Over a limit, the turn is a [`ParseError`], reported, never a hang.

pub mod check;
pub mod matching;
pub mod parse;
pub mod responses;
pub mod schema;
pub mod values;

use serde_json::{json, Value};

pub use check::{check_call, Mismatch};
pub use parse::{parse_output_items, parse_text, visible_text, CallFormat, ParseError, ParsedCall};
pub use responses::RawCall;
pub use schema::{
    ground_truth_from_json, tools_from_json, ExpectedCall, FunctionTool, SchemaError,
};

/// The longest text response read, in bytes (1 MiB).
pub const MAX_RESPONSE_BYTES: usize = 1 << 20;
/// The most calls read from one turn, and the most reference calls in a row.
pub const MAX_CALLS: usize = 64;

/// How the turn compares with the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every call matches a distinct reference call, and the counts are equal.
    Correct,
    /// No call, where the reference has some.
    NoCall,
    /// A different number of calls than the reference.
    WrongCount,
    /// As many calls as the reference, but not every one matches.
    Mismatch,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Correct => "correct",
            Self::NoCall => "no_call",
            Self::WrongCount => "wrong_count",
            Self::Mismatch => "mismatch",
        }
    }
}

/// What one predicted call matched, or why it matched nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct CallReport {
    pub name: Option<String>,
    pub format: CallFormat,
    /// The index of the reference call it is matched to.
    pub matched_to: Option<usize>,
    /// Empty when matched; else one line per reason.
    pub errors: Vec<String>,
}

/// The outcome of comparing one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub verdict: Verdict,
    pub calls: Vec<CallReport>,
    /// The reference calls no predicted call matched.
    pub unmatched_expected: Vec<usize>,
}

impl Comparison {
    pub fn correct(&self) -> bool {
        self.verdict == Verdict::Correct
    }

    /// `details.calls`: per call `{name, format, matched_to, errors}`.
    pub fn calls_json(&self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|c| {
                json!({"name": c.name, "format": c.format.as_str(),
                       "matched_to": c.matched_to, "errors": c.errors})
            })
            .collect();
        Value::Array(calls)
    }
}

/// Compares `calls` with `expected`, whose functions are among `tools`. Fails when a
/// reference call names a function `tools` does not declare (a malformed row).
pub fn compare(
    calls: &[ParsedCall],
    expected: &[ExpectedCall],
    tools: &[FunctionTool],
) -> Result<Comparison, SchemaError> {
    let mut reference_tools = Vec::with_capacity(expected.len());
    for (i, e) in expected.iter().enumerate() {
        let tool = tools
            .iter()
            .find(|t| t.name == e.name)
            .ok_or_else(|| SchemaError::Invalid {
                at: format!("ground_truth[{i}]"),
                problem: format!("names `{}`, which no tool declares", e.name),
            })?;
        reference_tools.push(tool);
    }
    // outcome[i][j]: reference i against call j.
    let outcome: Vec<Vec<Result<(), String>>> = expected
        .iter()
        .zip(&reference_tools)
        .map(|(e, tool)| calls.iter().map(|c| against(c, e, tool)).collect())
        .collect();
    let edges: Vec<Vec<bool>> = outcome
        .iter()
        .map(|row| row.iter().map(Result::is_ok).collect())
        .collect();
    let owner = matching::maximum_matching(&edges, calls.len());
    let reports = calls
        .iter()
        .enumerate()
        .map(|(j, call)| report(j, call, owner[j], expected, tools, &outcome))
        .collect();
    let unmatched_expected: Vec<usize> = (0..expected.len())
        .filter(|i| !owner.contains(&Some(*i)))
        .collect();
    let verdict = if calls.is_empty() && !expected.is_empty() {
        Verdict::NoCall
    } else if calls.len() != expected.len() {
        Verdict::WrongCount
    } else if unmatched_expected.is_empty() {
        Verdict::Correct
    } else {
        Verdict::Mismatch
    };
    Ok(Comparison {
        verdict,
        calls: reports,
        unmatched_expected,
    })
}

fn against(call: &ParsedCall, expected: &ExpectedCall, tool: &FunctionTool) -> Result<(), String> {
    let name = call.name.as_deref().ok_or("the call has no name")?;
    let arguments = call.arguments.as_ref().map_err(Clone::clone)?;
    check_call(tool, name, arguments, expected)
        .map_err(|m| format!("{}: {}", m.error_type, m.message))
}

fn report(
    j: usize,
    call: &ParsedCall,
    matched_to: Option<usize>,
    expected: &[ExpectedCall],
    tools: &[FunctionTool],
    outcome: &[Vec<Result<(), String>>],
) -> CallReport {
    let mut errors = Vec::new();
    if matched_to.is_none() {
        match (&call.name, &call.arguments) {
            (_, Err(e)) => errors.push(e.clone()),
            (None, Ok(_)) => errors.push("the call has no name".to_owned()),
            (Some(name), Ok(_)) if !tools.iter().any(|t| &t.name == name) => {
                errors.push(format!("unknown tool `{name}`"))
            }
            (Some(name), Ok(_)) => {
                for (i, _) in expected.iter().enumerate().filter(|(_, e)| &e.name == name) {
                    match &outcome[i][j] {
                        Err(why) => errors.push(format!("ground_truth[{i}]: {why}")),
                        Ok(()) => errors.push(format!(
                            "ground_truth[{i}]: matches, but another call took it"
                        )),
                    }
                }
                if errors.is_empty() {
                    errors.push(format!("no reference call to `{name}`"));
                }
            }
        }
    }
    CallReport {
        name: call.name.clone(),
        format: call.format,
        matched_to,
        errors,
    }
}

#[cfg(test)]
mod tests;
