//! The `code` environment: runs the program in a response against the sample's tests
//! inside the wasmtime sandbox and rewards 1 only if every test passes.
//!
//! Pieces: [`language`] (names), [`extract`] (finding the program in the response),
//! [`task`] (the sample's fields), [`program`] (Python wrapped / C and C++ compiled),
//! [`judge`] (stdio cases), [`assert_judge`] (HumanEval-style assert tests, program and
//! tests in separate interpreters), [`verdict`].
//!
//! `details`: `verdict` (`accepted`, `wrong_answer`, `time_limit`, `memory_limit`,
//! `runtime_error`, `compile_error`, `no_code`), `passed`, `total`, and on failure
//! `first_failure` (0-based case index) and `stderr` (the failing run's stderr or the
//! compiler's diagnostics, truncated to its last `stderr_chars` characters).
//!
//! Config (all optional): `python_runtime` (`cpython-3.15-snapshot`, the default: a
//! pre-initialized CPython, ~10 ms per HumanEval sample, compiled once per machine in
//! 1-2 minutes and cached; or `cpython-3.12`: plain WASI CPython, compiles in ~30 s,
//! ~100 ms per sample), `float_tolerance` (absolute and relative bound for
//! non-integer numeric tokens; integers compare by value; default none: exact tokens), `run_all_cases` (default false: stop at
//! the first failing case, as LiveCodeBench does), `stderr_chars` (default 1000).

pub use cascade_datasets::code::{language, task};

pub mod assert_judge;
pub mod extract;
mod harness;
pub mod judge;
pub mod program;
pub mod verdict;

use cascade_sandboxes::{Limits, Python, PythonRuntime};
use cascade_verifiers::output::FloatTolerance;
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;

use crate::config::{ConfigError, EnvConfig};
use crate::environment::{ChatMessage, Environment};
use crate::registry::EnvPlugin;
use crate::score_error::ScoreError;

use assert_judge::judge_assert;
use extract::extract_code;
use judge::{judge_stdio, Judgement};
use program::{Prepared, Program};
use task::{CodeTask, Tests};
use verdict::Verdict;

/// The `code` environment's settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodeConfig {
    pub python_runtime: PythonRuntime,
    pub float_tolerance: Option<f64>,
    pub run_all_cases: bool,
    pub stderr_chars: usize,
    /// The system message before the problem; `None` is the built-in one below, and an
    /// empty string sends none (short prompts for small models).
    pub system_prompt: Option<String>,
}

impl Default for CodeConfig {
    fn default() -> Self {
        Self {
            python_runtime: PythonRuntime::default(),
            float_tolerance: None,
            run_all_cases: false,
            stderr_chars: 1000,
            system_prompt: None,
        }
    }
}

/// The environment.
pub struct CodeEnv {
    config: CodeConfig,
}

impl CodeEnv {
    pub fn new(config: CodeConfig) -> Result<Self, ConfigError> {
        if let Some(t) = config.float_tolerance {
            if !(t.is_finite() && t >= 0.0) {
                return Err(ConfigError::Invalid {
                    env: "code".into(),
                    message: format!("float_tolerance must be a non-negative number, got {t}"),
                });
            }
        }
        Ok(Self { config })
    }

    fn judge(&self, sample: &Sample) -> Result<Judgement, ScoreError> {
        let task = CodeTask::try_from(sample)?;
        // The final answer only: a response cut off while thinking is an error.
        let response = sample.final_answer()?;
        let total = match &task.tests {
            Tests::Stdio(cases) => cases.len(),
            Tests::Assert { .. } => 1,
        };
        let Some(source) = extract_code(response, task.language) else {
            return Ok(Judgement::failed_before_running(
                Verdict::NoCode,
                total,
                String::new(),
            ));
        };
        let limits = Limits::new(task.time_limit_s, task.memory_limit_mb);
        let python = Python::load(self.config.python_runtime)?;
        match &task.tests {
            Tests::Assert { code, entry_point } => {
                if task.language != language::Language::Python {
                    return Err(ScoreError::AssertNeedsPython);
                }
                Ok(judge_assert(python, &source, code, entry_point, &limits)?)
            }
            Tests::Stdio(cases) => {
                let program = match Program::prepare(task.language, &source, python)? {
                    Prepared::Ready(p) => p,
                    Prepared::CompileError(diagnostics) => {
                        return Ok(Judgement::failed_before_running(
                            Verdict::CompileError,
                            total,
                            diagnostics,
                        ))
                    }
                };
                let tolerance = self.config.float_tolerance.map(FloatTolerance::both);
                let run_all = self.config.run_all_cases;
                Ok(judge_stdio(&program, cases, &limits, tolerance, run_all)?)
            }
        }
    }
}

/// The last `max` characters of `text`, prefixed by `…` if cut.
fn tail(text: &str, max: usize) -> String {
    let cleaned = text.trim();
    let count = cleaned.chars().count();
    if count <= max {
        return cleaned.to_owned();
    }
    let start = cleaned
        .char_indices()
        .nth(count - max)
        .map_or(0, |(i, _)| i);
    format!("…{}", &cleaned[start..])
}

/// The built-in system message: which fence to answer in, and how the program is run.
fn default_system_prompt(language: &str) -> String {
    let fence = match language::Language::parse(language) {
        Some(language::Language::Cpp) => "cpp",
        Some(language::Language::C) => "c",
        _ => "python",
    };
    format!(
        "Solve the programming problem. Give the complete program in one ```{fence} code \
         block; it reads standard input and writes standard output unless the problem asks \
         for a function."
    )
}

impl Environment for CodeEnv {
    fn name(&self) -> &str {
        "code"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        if let Some(gym) = crate::gym::gym_prompt(row)? {
            return Ok(gym);
        }
        let question = row.str_field("prompt")?;
        let language = row.str_field("language")?;
        let system = match &self.config.system_prompt {
            Some(custom) => custom.clone(),
            None => default_system_prompt(language),
        };
        Ok(ChatMessage::system_then_user(&system, question))
    }

    fn score(&self, sample: &Sample) -> Reward {
        // NeMo Gym's code_gen rows carry their tests in `verifier_metadata`.
        let derived = crate::gym::code_gen_fields(sample);
        let sample = derived.as_ref().unwrap_or(sample);
        let judgement = match self.judge(sample) {
            Ok(j) => j,
            Err(error) => return error.into(),
        };
        let mut reward = Reward::pass_fail(judgement.verdict == Verdict::Accepted)
            .with("verdict", judgement.verdict.as_str())
            .with("passed", judgement.passed as u64)
            .with("total", judgement.total as u64);
        if let Some(i) = judgement.first_failure {
            reward.set("first_failure", i as u64);
            reward.set("stderr", tail(&judgement.stderr, self.config.stderr_chars));
        }
        reward
    }
}

inventory::submit! {
    EnvPlugin {
        name: "code",
        origin: env!("CARGO_PKG_NAME"),
        description: "programs run in a wasmtime sandbox against stdio or assert tests (Python, C, C++)",
        make: |config: &EnvConfig| Ok(Box::new(CodeEnv::new(config.parse("code")?)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_system_prompt_sends_only_the_problem() {
        let row = Sample::new(serde_json::json!({"prompt": "Print 3.", "language": "python"}));
        let default = CodeEnv::new(CodeConfig::default()).unwrap();
        let messages = default.prompt(&row).unwrap();
        assert_eq!(messages.len(), 2);
        assert!(messages[0].content.contains("```python"), "{messages:?}");
        let config = EnvConfig::from_pairs(["system_prompt="]).unwrap();
        let bare = CodeEnv::new(config.parse("code").unwrap()).unwrap();
        let messages = bare.prompt(&row).unwrap();
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].content, "Print 3.");
    }

    #[test]
    fn only_the_final_answer_holds_the_program() {
        let env = CodeEnv::new(CodeConfig::default()).unwrap();
        let row = |response: &str| {
            Sample::new(
                serde_json::json!({"id": "t", "language": "python", "response": response,
                "tests": {"kind": "stdio", "cases": [{"input": "", "output": "1"}]}}),
            )
        };
        // Code drafted only in the thinking is not run: the answer has none.
        let closed = env.score(&row("<think>```python\nprint(1)\n```</think>Done."));
        assert_eq!(closed.details["verdict"], "no_code");
        let cut = env.score(&row("<think>```python\nprint(1)\n```"));
        assert_eq!(cut.score, 0.0);
        assert!(
            cut.error_message().unwrap().contains("truncated"),
            "{cut:?}"
        );
    }

    #[test]
    fn tail_keeps_the_end() {
        assert_eq!(tail("\na\nb\n", 10), "a\nb");
        assert_eq!(tail("abcdef", 3), "…def");
    }

    #[test]
    fn config_rejects_unknown_runtime_and_keys() {
        let pypy = EnvConfig::from_pairs(["python_runtime=pypy"]).unwrap();
        let err = pypy.parse::<CodeConfig>("code").unwrap_err().to_string();
        assert!(
            err.contains(
                "unknown variant `pypy`, expected `cpython-3.12` or `cpython-3.15-snapshot`"
            ),
            "{err}"
        );
        let cfg = EnvConfig::from_pairs(["nope=1"]).unwrap();
        assert!(cfg.parse::<CodeConfig>("code").is_err());
    }
}
