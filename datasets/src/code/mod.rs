//! Loaders for public code datasets, producing `code` rows (see `SPEC.md`):
//! `{"id", "prompt", "language", "tests", ["time_limit_s"], ["response"]}`.
//!
//! | format | layout read |
//! | --- | --- |
//! | [`CodeFormat::HumanEval`] | JSONL `task_id, prompt, canonical_solution, test, entry_point` → `assert` tests; with `reference`, the response is prompt + canonical solution |
//! | [`CodeFormat::Mbpp`] | JSONL `task_id, text, code, test_list, test_setup_code` → `assert` tests (`check` runs the listed asserts) |
//! | [`CodeFormat::LiveCodeBench`] | JSONL `question_id, question_content, public_test_cases` (a JSON string of `{input, output, testtype}`), `metadata` (`func_name`) → `stdio` cases, or `assert` tests for `functional` cases |
//! | [`CodeFormat::Apps`] | JSONL `problem_id, question, input_output` (a JSON string of `{inputs, outputs, fn_name?}`) → `stdio` cases or `assert` tests |
//! | [`CodeFormat::CodeContests`] | JSONL `name, description, public_tests, private_tests, generated_tests` (each `{input: [...], output: [...]}`) → `stdio` cases |
//!
//! Function-call cases (LiveCodeBench `functional`, APPS `fn_name`) become assert
//! tests that call `NAME(*args)`, resolved by the `code` env to the program's function
//! `NAME` or else `Solution().NAME` (LeetCode style), with JSON arguments, and compare the result as JSON (tuples as lists),
//! as LiveCodeBench does.

pub mod language;
pub mod task;

use std::path::Path;

use cascade_verifiers::{FieldError, Sample};
use serde_json::{json, Map, Value};

use crate::error::{LoadError, RowError};
use task::CodeTask;

/// A public layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeFormat {
    HumanEval,
    Mbpp,
    LiveCodeBench,
    Apps,
    CodeContests,
}

impl CodeFormat {
    /// Parses `humaneval`, `mbpp`, `livecodebench`, `apps` or `codecontests`.
    pub fn parse(name: &str) -> Result<Self, LoadError> {
        Ok(
            match name.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
                "humaneval" => CodeFormat::HumanEval,
                "mbpp" => CodeFormat::Mbpp,
                "livecodebench" | "lcb" => CodeFormat::LiveCodeBench,
                "apps" => CodeFormat::Apps,
                "codecontests" => CodeFormat::CodeContests,
                _ => return Err(LoadError::UnknownFormat(name.to_owned())),
            },
        )
    }
}

/// Options of a load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {
    /// Put the dataset's reference solution in `response` (HumanEval, MBPP), to check
    /// the tests and the sandbox.
    pub reference: bool,
}

/// Reads a JSONL file of `format` into rows, in order; blank lines are skipped.
pub fn load(
    path: &Path,
    format: CodeFormat,
    options: LoadOptions,
) -> Result<Vec<Value>, LoadError> {
    crate::jsonl::convert_file(path, |row, _| convert(format, row, options))
}

/// Converts one public row. The result is checked as the `code` environment reads
/// it ([`CodeTask`]), so a row that loads is a row that can be judged.
pub fn convert(format: CodeFormat, row: &Value, options: LoadOptions) -> Result<Value, RowError> {
    let converted = match format {
        CodeFormat::HumanEval => humaneval(row, options),
        CodeFormat::Mbpp => mbpp(row, options),
        CodeFormat::LiveCodeBench => livecodebench(row),
        CodeFormat::Apps => apps(row),
        CodeFormat::CodeContests => codecontests(row),
    }?;
    let sample = Sample::new(converted);
    CodeTask::try_from(&sample)?;
    Ok(sample.value().clone())
}

fn text<'a>(row: &'a Value, key: &str) -> Result<&'a str, RowError> {
    row.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| RowError::absent(key, "string"))
}

fn id_of(row: &Value, key: &str) -> Result<String, RowError> {
    match row.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        _ => Err(RowError::absent(key, "id (a string or a number)")),
    }
}

fn python_row(id: String, prompt: &str, tests: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("id".into(), id.into());
    m.insert("prompt".into(), prompt.into());
    m.insert("language".into(), "python".into());
    m.insert("tests".into(), tests);
    m
}

fn fenced(code: &str) -> String {
    format!("```python\n{}\n```", code.trim_end())
}

fn humaneval(row: &Value, options: LoadOptions) -> Result<Value, RowError> {
    let prompt = text(row, "prompt")?;
    let tests = json!({"kind": "assert", "code": text(row, "test")?, "entry_point": text(row, "entry_point")?});
    let mut m = python_row(id_of(row, "task_id")?, prompt, tests);
    if options.reference {
        let solution = format!("{prompt}{}", text(row, "canonical_solution")?);
        m.insert("response".into(), fenced(&solution).into());
    }
    Ok(Value::Object(m))
}

fn mbpp(row: &Value, options: LoadOptions) -> Result<Value, RowError> {
    let asserts: Vec<&str> = row
        .get("test_list")
        .and_then(Value::as_array)
        .ok_or_else(|| RowError::absent("test_list", "array"))?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let code = row.get("code").and_then(Value::as_str).unwrap_or("");
    let entry_point = asserts
        .iter()
        .find_map(|a| called_name(a))
        .or_else(|| defined_name(code))
        .ok_or_else(|| RowError::invalid("test_list", "names no function under test"))?;
    let setup = row
        .get("test_setup_code")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut test_code = format!("{setup}\n\ndef check(candidate):\n");
    for a in &asserts {
        test_code.push_str(&format!("    {}\n", a.trim()));
    }
    if asserts.is_empty() {
        test_code.push_str("    pass\n");
    }
    let prompt = format!(
        "{}\nYour code should pass these tests:\n{}",
        text(row, "text").or_else(|_| text(row, "prompt"))?,
        asserts.join("\n")
    );
    let tests = json!({"kind": "assert", "code": test_code, "entry_point": entry_point});
    let mut m = python_row(id_of(row, "task_id")?, &prompt, tests);
    if options.reference && !code.is_empty() {
        m.insert("response".into(), fenced(code).into());
    }
    Ok(Value::Object(m))
}

/// `f` in `assert f(...)`.
fn called_name(assertion: &str) -> Option<String> {
    let rest = assertion.trim().strip_prefix("assert")?.trim_start();
    let rest = rest.strip_prefix("not ").unwrap_or(rest).trim_start();
    let rest = rest.strip_prefix('(').unwrap_or(rest).trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let after = &rest[name.len()..];
    (!name.is_empty()
        && after.starts_with('(')
        && !matches!(
            name.as_str(),
            "set" | "math" | "abs" | "sorted" | "len" | "list" | "str" | "int" | "float" | "round"
        ))
    .then_some(name)
}

/// The first top-level `def NAME` of a program.
fn defined_name(code: &str) -> Option<String> {
    code.lines().find_map(|l| {
        let rest = l.strip_prefix("def ")?;
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

/// A JSON value that may be stored as a JSON string (LiveCodeBench, APPS do).
fn embedded(row: &Value, key: &str) -> Result<Value, RowError> {
    match row.get(key) {
        Some(Value::String(s)) => serde_json::from_str(s).map_err(|e| not_json(key, e)),
        Some(v) => Ok(v.clone()),
        None => Err(FieldError::Missing(key.to_owned()).into()),
    }
}

/// Assert tests calling `name` with JSON argument lists and comparing JSON results.
/// The `code` env resolves `name` on the program side: the program's function of that
/// name, else (LeetCode style) that method of a fresh `Solution()`.
pub fn function_call_tests(name: &str, calls: &[(Vec<Value>, Value)]) -> Value {
    let mut code = String::from(
        "import json\n\n\
         def _cascade_plain(x):\n    \
             if isinstance(x, tuple):\n        x = list(x)\n    \
             return json.loads(json.dumps(x))\n\n",
    );
    code.push_str("def check(candidate):\n");
    for (args, expected) in calls {
        let args = Value::Array(args.clone()).to_string();
        code.push_str(&format!(
            "    assert _cascade_plain(candidate(*json.loads({args:?}))) == json.loads({:?})\n",
            expected.to_string()
        ));
    }
    if calls.is_empty() {
        code.push_str("    pass\n");
    }
    json!({"kind": "assert", "code": code, "entry_point": name})
}

fn livecodebench(row: &Value) -> Result<Value, RowError> {
    let cases = embedded(row, "public_test_cases")?;
    let cases = cases
        .as_array()
        .ok_or_else(|| RowError::invalid("public_test_cases", "is not a list"))?;
    let mut private = match row.get("private_test_cases") {
        Some(Value::String(s)) if s.trim_start().starts_with('[') => {
            serde_json::from_str::<Value>(s)
                .ok()
                .and_then(|v| v.as_array().cloned())
                .unwrap_or_default()
        }
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    let mut all = cases.clone();
    all.append(&mut private);
    let functional = all
        .iter()
        .any(|c| c.get("testtype").and_then(Value::as_str) == Some("functional"));
    let tests = if functional {
        let metadata = embedded(row, "metadata").unwrap_or(Value::Null);
        let name = metadata
            .get("func_name")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RowError::absent("metadata.func_name", "string (functional cases need it)")
            })?;
        let mut calls = Vec::new();
        for c in &all {
            let input = c
                .get("input")
                .and_then(Value::as_str)
                .ok_or_else(|| RowError::absent("input", "string in a test case"))?;
            let output = c
                .get("output")
                .and_then(Value::as_str)
                .ok_or_else(|| RowError::absent("output", "string in a test case"))?;
            let args = input
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).map_err(|e| not_json("input", e)))
                .collect::<Result<Vec<Value>, RowError>>()?;
            let expected = serde_json::from_str(output).map_err(|e| not_json("output", e))?;
            calls.push((args, expected));
        }
        function_call_tests(name, &calls)
    } else {
        let cases: Vec<Value> = all
            .iter()
            .map(|c| json!({"input": c.get("input").cloned().unwrap_or_default(), "output": c.get("output").cloned().unwrap_or_default()}))
            .collect();
        json!({"kind": "stdio", "cases": cases})
    };
    let prompt = text(row, "question_content")?;
    let id = id_of(row, "question_id").or_else(|_| id_of(row, "id"))?;
    Ok(Value::Object(python_row(id, prompt, tests)))
}

fn not_json(field: &str, e: serde_json::Error) -> RowError {
    RowError::NotJson {
        field: field.to_owned(),
        reason: e.to_string(),
    }
}

/// Lists of inputs and outputs as strings (APPS stores lists of lines sometimes).
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(as_text).collect::<Vec<_>>().join("\n"),
        other => other.to_string(),
    }
}

fn apps(row: &Value) -> Result<Value, RowError> {
    let io = embedded(row, "input_output")?;
    let inputs = io
        .get("inputs")
        .and_then(Value::as_array)
        .ok_or_else(|| RowError::absent("input_output.inputs", "array"))?;
    let outputs = io
        .get("outputs")
        .and_then(Value::as_array)
        .ok_or_else(|| RowError::absent("input_output.outputs", "array"))?;
    if inputs.len() != outputs.len() {
        return Err(RowError::Unpaired {
            left: inputs.len(),
            left_name: "inputs".into(),
            right: outputs.len(),
            right_name: "outputs".into(),
        });
    }
    let tests = match io.get("fn_name").and_then(Value::as_str) {
        Some(name) => {
            let calls: Vec<(Vec<Value>, Value)> = inputs
                .iter()
                .zip(outputs)
                .map(|(i, o)| {
                    let args = i.as_array().cloned().unwrap_or_else(|| vec![i.clone()]);
                    // APPS wraps single results in a one-element list.
                    let expected = match o {
                        Value::Array(a) if a.len() == 1 => a[0].clone(),
                        other => other.clone(),
                    };
                    (args, expected)
                })
                .collect();
            function_call_tests(name, &calls)
        }
        None => {
            let cases: Vec<Value> = inputs
                .iter()
                .zip(outputs)
                .map(|(i, o)| json!({"input": as_text(i), "output": as_text(o)}))
                .collect();
            json!({"kind": "stdio", "cases": cases})
        }
    };
    let id = id_of(row, "problem_id").or_else(|_| id_of(row, "id"))?;
    Ok(Value::Object(python_row(id, text(row, "question")?, tests)))
}

fn codecontests(row: &Value) -> Result<Value, RowError> {
    let mut cases = Vec::new();
    for key in ["public_tests", "private_tests", "generated_tests"] {
        let Some(t) = row.get(key) else { continue };
        let inputs = t
            .get("input")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let outputs = t
            .get("output")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if inputs.len() != outputs.len() {
            let problem = format!("has {} inputs but {} outputs", inputs.len(), outputs.len());
            return Err(RowError::invalid(key, problem));
        }
        for (i, o) in inputs.iter().zip(&outputs) {
            cases.push(json!({"input": as_text(i), "output": as_text(o)}));
        }
    }
    if cases.is_empty() {
        return Err(RowError::NoTests);
    }
    let tests = json!({"kind": "stdio", "cases": cases});
    let mut m = python_row(id_of(row, "name")?, text(row, "description")?, tests);
    if let Some(limit) = row
        .get("time_limit")
        .and_then(|t| t.get("seconds"))
        .and_then(Value::as_f64)
    {
        m.insert("time_limit_s".into(), limit.into());
    }
    Ok(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn humaneval_row_becomes_assert_test_with_reference() {
        let row = json!({"task_id": "HumanEval/0", "prompt": "def f(x):\n", "canonical_solution": "    return x\n", "test": "def check(c):\n    assert c(1) == 1\n", "entry_point": "f"});
        let out = convert(CodeFormat::HumanEval, &row, LoadOptions { reference: true }).unwrap();
        assert_eq!(out["tests"]["kind"], "assert");
        assert_eq!(out["tests"]["entry_point"], "f");
        assert_eq!(out["response"], "```python\ndef f(x):\n    return x\n```");
    }

    #[test]
    fn mbpp_asserts_go_into_check() {
        let row = json!({"task_id": 11, "text": "Remove chars.", "code": "def remove_Occ(s,ch):\n    return s", "test_list": ["assert remove_Occ(\"hello\",\"l\") == \"heo\""], "test_setup_code": ""});
        let out = convert(CodeFormat::Mbpp, &row, LoadOptions::default()).unwrap();
        assert_eq!(out["id"], "11");
        assert_eq!(out["tests"]["entry_point"], "remove_Occ");
        assert!(out["tests"]["code"]
            .as_str()
            .unwrap()
            .contains("def check(candidate):\n    assert remove_Occ("));
    }

    #[test]
    fn livecodebench_stdin_and_functional() {
        let row = json!({"question_id": "q1", "question_content": "Sum.", "public_test_cases": "[{\"input\": \"1 2\\n\", \"output\": \"3\\n\", \"testtype\": \"stdin\"}]", "metadata": "{}"});
        let out = convert(CodeFormat::LiveCodeBench, &row, LoadOptions::default()).unwrap();
        assert_eq!(
            out["tests"],
            json!({"kind": "stdio", "cases": [{"input": "1 2\n", "output": "3\n"}]})
        );
        let row = json!({"question_id": "q2", "question_content": "Add.", "public_test_cases": "[{\"input\": \"1\\n2\", \"output\": \"3\", \"testtype\": \"functional\"}]", "metadata": "{\"func_name\": \"add\"}"});
        let out = convert(CodeFormat::LiveCodeBench, &row, LoadOptions::default()).unwrap();
        assert_eq!(out["tests"]["entry_point"], "add");
        assert!(out["tests"]["code"]
            .as_str()
            .unwrap()
            .contains("json.loads(\"[1,2]\")"));
    }

    #[test]
    fn apps_and_codecontests_cases() {
        let row = json!({"problem_id": 5, "question": "Echo.", "input_output": "{\"inputs\": [\"1\\n\"], \"outputs\": [\"1\\n\"]}"});
        let out = convert(CodeFormat::Apps, &row, LoadOptions::default()).unwrap();
        assert_eq!(out["tests"]["cases"][0]["output"], "1\n");
        let row = json!({"name": "cc", "description": "D.", "public_tests": {"input": ["a"], "output": ["b"]}, "private_tests": {"input": [], "output": []}, "time_limit": {"seconds": 3}});
        let out = convert(CodeFormat::CodeContests, &row, LoadOptions::default()).unwrap();
        assert_eq!(
            out["tests"]["cases"],
            json!([{"input": "a", "output": "b"}])
        );
        assert_eq!(out["time_limit_s"], 3.0);
        assert!(convert(
            CodeFormat::Apps,
            &json!({"problem_id": 1}),
            LoadOptions::default()
        )
        .is_err());
    }
}
