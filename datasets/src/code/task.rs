//! A `code` row's task fields, read and checked (see `SPEC.md`): what the `code`
//! environment judges against, and what every loader's output must parse as.

use cascade_verifiers::{FieldError, Sample};
use serde_json::Value;

use super::language::Language;

/// Default time limit per case, in seconds.
pub const DEFAULT_TIME_LIMIT_S: f64 = 2.0;
/// Default memory limit, in MiB.
pub const DEFAULT_MEMORY_LIMIT_MB: u64 = 256;

/// One stdin/stdout case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCase {
    pub input: String,
    pub output: String,
}

/// How a program is tested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tests {
    Stdio(Vec<StdioCase>),
    /// HumanEval style: program, then `code`, then `check(entry_point)`.
    Assert {
        code: String,
        entry_point: String,
    },
}

/// Everything needed to judge one response.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeTask {
    pub language: Language,
    pub tests: Tests,
    pub time_limit_s: f64,
    pub memory_limit_mb: u64,
}

impl TryFrom<&Sample> for CodeTask {
    type Error = FieldError;

    /// Reads `language`, `tests`, `time_limit_s` and `memory_limit_mb`.
    fn try_from(sample: &Sample) -> Result<Self, FieldError> {
        let name = sample.str_field("language")?;
        let language = Language::parse(name).ok_or_else(|| FieldError::WrongType {
            field: "language".into(),
            expected: "\"python\", \"c\" or \"cpp\"",
            found: "another string",
        })?;
        let tests = sample.object_field("tests")?;
        let kind = tests
            .get("kind")
            .ok_or_else(|| FieldError::Missing("tests.kind".into()))?;
        let tests = match kind.as_str() {
            Some("stdio") => {
                let cases = tests
                    .get("cases")
                    .and_then(Value::as_array)
                    .ok_or_else(|| wrong("tests.cases", "an array of {input, output}"))?;
                let mut parsed = Vec::with_capacity(cases.len());
                for case in cases {
                    let text = |key: &str| {
                        case.get(key)
                            .and_then(Value::as_str)
                            .map(str::to_owned)
                            .ok_or_else(|| {
                                wrong("tests.cases[]", "objects with string `input` and `output`")
                            })
                    };
                    parsed.push(StdioCase {
                        input: text("input")?,
                        output: text("output")?,
                    });
                }
                if parsed.is_empty() {
                    return Err(wrong("tests.cases", "a non-empty array"));
                }
                Tests::Stdio(parsed)
            }
            Some("assert") => {
                let text = |key: &str| {
                    tests
                        .get(key)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| wrong(&format!("tests.{key}"), "a string"))
                };
                Tests::Assert {
                    code: text("code")?,
                    entry_point: text("entry_point")?,
                }
            }
            _ => return Err(wrong("tests.kind", "\"stdio\" or \"assert\"")),
        };
        let time_limit_s = sample
            .opt_f64_field("time_limit_s")?
            .unwrap_or(DEFAULT_TIME_LIMIT_S);
        if !(time_limit_s > 0.0 && time_limit_s <= 3600.0) {
            return Err(wrong("time_limit_s", "a number of seconds in (0, 3600]"));
        }
        let memory_limit_mb = sample
            .opt_f64_field("memory_limit_mb")?
            .unwrap_or(DEFAULT_MEMORY_LIMIT_MB as f64);
        if !(1.0..=4096.0).contains(&memory_limit_mb) {
            return Err(wrong("memory_limit_mb", "a number of MiB in [1, 4096]"));
        }
        Ok(CodeTask {
            language,
            tests,
            time_limit_s,
            memory_limit_mb: memory_limit_mb as u64,
        })
    }
}

fn wrong(field: &str, expected: &'static str) -> FieldError {
    FieldError::WrongType {
        field: field.to_owned(),
        expected,
        found: "something else",
    }
}
