//! What a Python or WASM plugin returns, turned into a [`Reward`]: a number, a bool,
//! or an object `{"reward": …, "details": {…}, "reward_components": {…}}`. Anything
//! else (another type, NaN or infinity, an unknown key) is a scoring failure
//! ([`Reward::failed`], `plugin_crash`) with `details.error` naming what was wrong.

use cascade_verifiers::sample::type_name;
use cascade_verifiers::{Reward, ScoringFailure};
use serde_json::{Map, Value};

/// The keys a returned object may have.
const KEYS: [&str; 3] = ["reward", "details", "reward_components"];

/// The reward a plugin's returned value stands for.
pub fn reward_of(value: &Value) -> Reward {
    match parse(value) {
        Ok(reward) => reward,
        Err(message) => Reward::failed(ScoringFailure::PluginCrash, message),
    }
}

fn parse(value: &Value) -> Result<Reward, String> {
    match value {
        Value::Object(object) => parse_object(object),
        other => Ok(Reward::new(score_of(other, "the returned value")?)),
    }
}

fn parse_object(object: &Map<String, Value>) -> Result<Reward, String> {
    if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!(
            "the returned dict has the unknown key `{key}` (allowed: {})",
            KEYS.join(", ")
        ));
    }
    let score = match object.get("reward") {
        Some(v) => score_of(v, "`reward`")?,
        None => return Err("the returned dict has no `reward`".into()),
    };
    let mut reward = Reward::new(score);
    match object.get("details") {
        None | Some(Value::Null) => {}
        Some(Value::Object(details)) => reward.details = details.clone(),
        Some(other) => return Err(format!("`details` is {}, not a dict", type_name(other))),
    }
    if let Some(components) = object.get("reward_components") {
        let components = components_of(components)?;
        reward
            .details
            .insert("reward_components".into(), components);
    }
    Ok(reward)
}

fn components_of(value: &Value) -> Result<Value, String> {
    let Value::Object(map) = value else {
        return Err(format!(
            "`reward_components` is {}, not a dict of numbers",
            type_name(value)
        ));
    };
    let mut out = Map::new();
    for (name, v) in map {
        let score = score_of(v, &format!("`reward_components.{name}`"))?;
        out.insert(name.clone(), Value::from(score));
    }
    Ok(Value::Object(out))
}

/// A finite number or a bool (1.0 / 0.0).
fn score_of(value: &Value, what: &str) -> Result<f64, String> {
    match value {
        Value::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(format!("{what} is not a finite number")),
        },
        Value::Null => Err(format!("{what} is None; expected a float or a bool")),
        other => Err(format!(
            "{what} is {}; expected a float, a bool or a dict",
            type_name(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_bools_and_dicts_are_rewards() {
        assert_eq!(reward_of(&json!(0.25)).score, 0.25);
        assert_eq!(reward_of(&json!(true)).score, 1.0);
        assert_eq!(reward_of(&json!(3)).score, 3.0);
        let r = reward_of(&json!({"reward": 0.5, "details": {"why": "x"},
            "reward_components": {"format": true, "answer": 0.0}}));
        assert_eq!(r.score, 0.5);
        assert_eq!(r.details["why"], "x");
        assert_eq!(
            r.details["reward_components"],
            json!({"format": 1.0, "answer": 0.0})
        );
    }

    #[test]
    fn anything_else_is_zero_with_the_reason() {
        let error = |v: Value| {
            let r = reward_of(&v);
            assert_eq!(r.score, 0.0);
            r.details["error"].as_str().unwrap().to_owned()
        };
        assert!(error(json!("1.0")).contains("is a string"));
        assert!(error(json!(null)).contains("None"));
        assert!(error(json!({"score": 1})).contains("unknown key `score`"));
        assert!(error(json!({"details": {}})).contains("no `reward`"));
        assert!(error(json!({"reward": 1, "details": 3})).contains("not a dict"));
        assert!(error(json!({"reward": 1, "reward_components": {"a": "x"}}))
            .contains("reward_components.a"));
    }
}
