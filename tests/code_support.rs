//! Shared by the `code` test files: build a sample, score it with the registered
//! `code` environment (one per process, so the runtime is loaded once).

#![allow(dead_code)]

use std::sync::OnceLock;

use cascade_envs::{EnvConfig, Environment, Registry, Reward, Sample};
use serde_json::{json, Value};

pub fn env() -> &'static dyn Environment {
    static ENV: OnceLock<Box<dyn Environment>> = OnceLock::new();
    ENV.get_or_init(|| {
        Registry::discover()
            .expect("registry")
            .create("code", &EnvConfig::default())
            .expect("code env")
    })
    .as_ref()
}

pub fn score(sample: Value) -> Reward {
    env().score(&Sample::new(sample))
}

/// A stdio sample with one case.
pub fn stdio(language: &str, code: &str, input: &str, output: &str) -> Value {
    json!({
        "id": "t",
        "language": language,
        "response": format!("```{language}\n{code}\n```"),
        "tests": {"kind": "stdio", "cases": [{"input": input, "output": output}]},
    })
}

/// A HumanEval-style sample: `code` must define `add(a, b)`.
pub fn assert_add(code: &str) -> Value {
    json!({
        "id": "t",
        "language": "python",
        "response": format!("```python\n{code}\n```"),
        "tests": {
            "kind": "assert",
            "code": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n",
            "entry_point": "add",
        },
    })
}

pub fn verdict(reward: &Reward) -> String {
    reward
        .details
        .get("verdict")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| format!("no verdict: {:?}", reward.details))
}

pub fn stderr(reward: &Reward) -> String {
    reward
        .details
        .get("stderr")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}
