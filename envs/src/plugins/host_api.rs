//! The host API a Python plugin reaches through the sandbox's door: cascade's own
//! checks, so that composite rewards are written in Python over the fast Rust ones.
//!
//! A request is a JSON object with an `op`; the answer is `{"value": …}` or
//! `{"error": "…"}`. The guest module `cascade_plugin` wraps each op as a function:
//!
//! | op | arguments | value |
//! |---|---|---|
//! | `math_equal` | `answer`, `gold` | whether they are mathematically equivalent |
//! | `math_check` | `response`, `gold` | `{correct, verdict, extracted, reason}` |
//! | `ifeval` | `response`, `instruction_id_list`, `kwargs` | `{strict: [bool], loose: [bool]}` |
//! | `json_schema` | `instance`, `schema` | `{valid, error}` |
//! | `score` | `env`, `sample` | a built-in environment's `{reward, details}` |
//!
//! Every op is a bounded, pure check; `score` reaches built-in environments only (never
//! a plugin, so a plugin cannot wait on itself, and never `code` or `swe`, whose runs
//! would cost the host far more than the call's fuel). Each call costs the guest
//! [`cascade_sandboxes::door::DOOR_CALL_FUEL`] of its time limit, plus
//! [`cascade_sandboxes::door::HOST_WORK_FUEL_PER_BYTE`] per request byte; the host's
//! wall time on one sample's calls may not pass the plugin's time limit, and a request
//! is at most [`MAX_REQUEST_BYTES`].

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use cascade_verifiers::structured_output::{prepare_schema, validate};
use cascade_verifiers::{ifeval, math, Sample};
use serde_json::{json, Map, Value};

use crate::config::EnvConfig;
use crate::environment::Environment;
use crate::registry::Registry;
use crate::scoring::score_guarded;

/// The largest request a plugin may send. Every op's work and memory are linear in its
/// input (each parser caps its expansion), so this bounds what one call can make the
/// host spend; the sandbox charges the plugin's time limit per request byte
/// ([`cascade_sandboxes::door::HOST_WORK_FUEL_PER_BYTE`]) and stops it when the host's
/// time on its calls passes that limit.
pub const MAX_REQUEST_BYTES: usize = 4 << 20;

/// Answers one request (JSON bytes) with JSON bytes.
pub fn answer(request: &[u8]) -> Vec<u8> {
    if request.len() > MAX_REQUEST_BYTES {
        let message = format!(
            "a host request is at most {MAX_REQUEST_BYTES} bytes, this one is {}",
            request.len()
        );
        return json!({ "error": message }).to_string().into_bytes();
    }
    let reply = match serde_json::from_slice::<Value>(request) {
        Ok(Value::Object(args)) => match run(&args) {
            Ok(value) => json!({ "value": value }),
            Err(message) => json!({ "error": message }),
        },
        Ok(_) | Err(_) => json!({ "error": "a host request is a JSON object with an `op`" }),
    };
    reply.to_string().into_bytes()
}

fn run(args: &Map<String, Value>) -> Result<Value, String> {
    let op = args.get("op").and_then(Value::as_str).unwrap_or("");
    match op {
        "math_equal" => Ok(Value::Bool(
            math::equivalent(text(args, "answer")?, text(args, "gold")?).correct,
        )),
        "math_check" => {
            let verdict = math::check(text(args, "response")?, text(args, "gold")?);
            Ok(json!({
                "correct": verdict.correct,
                "verdict": verdict.verdict,
                "extracted": verdict.extracted,
                "reason": verdict.reason,
            }))
        }
        "ifeval" => ifeval_op(args),
        "json_schema" => json_schema_op(args),
        "score" => score_op(args),
        other => Err(format!(
            "unknown op `{other}` (ops: math_equal, math_check, ifeval, json_schema, score)"
        )),
    }
}

fn text<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("`{key}` must be a string"))
}

fn list<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a Vec<Value>, String> {
    args.get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("`{key}` must be a list"))
}

fn ifeval_op(args: &Map<String, Value>) -> Result<Value, String> {
    let ids = list(args, "instruction_id_list")?;
    let nulls = vec![Value::Null; ids.len()];
    let kwargs = match args.get("kwargs") {
        None | Some(Value::Null) => &nulls,
        Some(_) => list(args, "kwargs")?,
    };
    let instructions = ifeval::parse_list(ids, kwargs).map_err(|e| e.to_string())?;
    let verdicts = ifeval::evaluate(&instructions, text(args, "response")?);
    Ok(json!({ "strict": verdicts.strict, "loose": verdicts.loose }))
}

fn json_schema_op(args: &Map<String, Value>) -> Result<Value, String> {
    let schema = args.get("schema").ok_or("`schema` is missing")?;
    let instance = args.get("instance").unwrap_or(&Value::Null);
    let prepared = prepare_schema(schema, false).map_err(|f| f.message)?;
    Ok(match validate(&prepared, instance) {
        Ok(()) => json!({ "valid": true, "error": null }),
        Err(f) => json!({ "valid": false, "error": f.message }),
    })
}

type Builtins = Mutex<BTreeMap<String, Arc<dyn Environment>>>;

/// Built-in environments that run programs in the sandbox: a door call costs the guest
/// 1 ms of fuel, and one of these could make the host work for seconds, so a plugin
/// could buy far more host time than its limit. They are refused.
const RUN_PROGRAMS: [&str; 2] = ["code", "swe"];

fn score_op(args: &Map<String, Value>) -> Result<Value, String> {
    let name = text(args, "env")?;
    if RUN_PROGRAMS.contains(&name) {
        return Err(format!(
            "`{name}` runs programs and cannot be scored from a plugin (its cost is not \
             bounded by the plugin's time limit)"
        ));
    }
    let sample = args.get("sample").ok_or("`sample` is missing")?;
    let env = builtin(name)?;
    let reward = score_guarded(env.as_ref(), &Sample::new(sample.clone()));
    Ok(json!({ "reward": reward.score, "details": reward.details }))
}

/// The built-in environment `name`, made once with its default settings.
fn builtin(name: &str) -> Result<Arc<dyn Environment>, String> {
    static REGISTRY: OnceLock<Result<Registry, String>> = OnceLock::new();
    static MADE: OnceLock<Builtins> = OnceLock::new();
    let made = MADE.get_or_init(Builtins::default);
    if let Some(env) = made.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
        return Ok(env.clone());
    }
    let registry = REGISTRY
        .get_or_init(|| Registry::discover().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)?;
    let env: Arc<dyn Environment> = registry
        .create(name, &EnvConfig::default())
        .map_err(|e| e.to_string())?
        .into();
    made.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_owned(), env.clone());
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(request: Value) -> Value {
        serde_json::from_slice(&answer(request.to_string().as_bytes())).unwrap()
    }

    #[test]
    fn ops_answer_with_the_builtin_checks() {
        let r = ask(json!({"op": "math_equal", "answer": "\\frac{1}{2}", "gold": "0.5"}));
        assert_eq!(r["value"], true);
        let r = ask(
            json!({"op": "ifeval", "response": "this answer is written in plain lower case english words",
            "instruction_id_list": ["change_case:english_lowercase"]}),
        );
        assert_eq!(r["value"]["strict"], json!([true]));
        let r = ask(json!({"op": "json_schema", "instance": {"a": 1},
            "schema": {"type": "object", "required": ["b"]}}));
        assert_eq!(r["value"]["valid"], false);
        let r = ask(json!({"op": "score", "env": "exact_match",
            "sample": {"id": "i", "response": "x", "answer": "x"}}));
        assert_eq!(r["value"]["reward"], 1.0);
    }

    #[test]
    fn bad_requests_are_errors_not_panics() {
        assert!(ask(json!({"op": "nope"}))["error"]
            .as_str()
            .unwrap()
            .contains("unknown op"));
        assert!(ask(json!({"op": "math_equal", "answer": 1}))["error"]
            .as_str()
            .unwrap()
            .contains("`answer`"));
        assert!(ask(json!([1]))["error"].is_string());
        assert!(ask(json!({"op": "score", "env": "nope", "sample": {}}))["error"].is_string());
        let code = ask(json!({"op": "score", "env": "code", "sample": {}}));
        assert!(
            code["error"].as_str().unwrap().contains("runs programs"),
            "{code}"
        );
    }
}
