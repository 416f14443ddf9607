//! `[[stage.route]]`: one mixed dataset whose rows each go to an environment, and the
//! domain they count for (which picks their MOPD teacher), by a row field. NeMo Gym
//! rows name their agent in `agent_ref.name`, and NeMo-RL routes Cascade 2's mixed
//! MOPD file the same way (`teacher_model_by_agent_name`), so that is the default.
//!
//! ```toml
//! [[stage.route]]
//! dataset = "MOPD/train.jsonl"
//! field = "agent_ref.name"                              # the default
//! [stage.route.map]
//! math_with_judge_simple_agent = "math"                 # env; the domain is its name
//! mcqa_simple_agent = { env = "mcqa", domain = "stem" } # or a table (env, domain, config)
//! ```
//!
//! When the recipe is parsed, a route becomes one [`StageEnv`] per mapped value, each
//! reading the rows that carry that value. Validation, loading, mixing and the MOPD
//! teacher choice then treat them as any `[[stage.env]]`, and errors name the route's
//! key (`stage[3].route[0].map.mcqa_simple_agent`). Each routed env's mixture weight
//! is the route's `weight` times its share of the file's rows, so a mixed file is
//! drawn from uniformly, as NeMo-RL draws from one dataset. A row whose value the map
//! does not name, or that lacks the field, is refused with its line when the data
//! loads, before any step: a silently dropped row would change the mixture.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::{invalid, RecipeError, StageEnv};

/// `[[stage.route]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageRoute {
    /// The mixed rows (relative to the recipe).
    pub dataset: String,
    /// The row field that names each row's target: a dotted path into objects.
    #[serde(default = "default_field")]
    pub field: String,
    /// The route's share of the stage's mixture, split across its envs by rows.
    #[serde(default = "super::stage::one")]
    pub weight: f64,
    /// Field value → `"env"` or `{ env, domain, config }`.
    #[serde(default)]
    pub map: BTreeMap<String, toml::Value>,
}

fn default_field() -> String {
    "agent_ref.name".into()
}

/// A map entry written as a table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteTarget {
    env: String,
    domain: Option<String>,
    #[serde(default)]
    config: toml::Table,
}

/// Which rows of its dataset a routed env reads.
#[derive(Debug, Clone)]
pub struct RowSelector {
    /// The route's recipe key (`stage[3].route[0]`), for errors.
    pub route: String,
    /// The dotted field path.
    pub field: String,
    /// The value this env takes.
    pub value: String,
    /// Every value the route maps; a row with any other is refused.
    pub mapped: Arc<[String]>,
}

impl RowSelector {
    /// Whether this env takes `row`; an error (naming the field and value) for a row
    /// that no env of the route takes.
    pub fn takes(&self, row: &Value) -> Result<bool, String> {
        let value = self.value_of(row)?;
        if value == self.value {
            return Ok(true);
        }
        if self.mapped.contains(&value) {
            return Ok(false);
        }
        Err(format!(
            "`{}` is \"{value}\", which {}.map does not name (it names: {})",
            self.field,
            self.route,
            self.mapped.join(", ")
        ))
    }

    /// The row's routing value: a string, or an integer written in decimal.
    fn value_of(&self, row: &Value) -> Result<String, String> {
        let found = self
            .field
            .split('.')
            .try_fold(row, |v, part| v.get(part))
            .ok_or_else(|| format!("no `{}` to route the row by ({})", self.field, self.route))?;
        match found {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
            other => Err(format!(
                "`{}` must be a string to route the row by ({}), found {other}",
                self.field, self.route
            )),
        }
    }
}

impl StageRoute {
    /// The envs route `r` of stage `stage` stands for, one per mapped value in key
    /// order.
    pub(super) fn expand(&self, stage: usize, r: usize) -> Result<Vec<StageEnv>, RecipeError> {
        let key = format!("stage[{stage}].route[{r}]");
        if self.field.is_empty() || self.field.split('.').any(str::is_empty) {
            return Err(invalid(
                format!("{key}.field"),
                format!("`{}` is not a dotted field path", self.field),
            ));
        }
        if self.map.is_empty() {
            return Err(invalid(
                format!("{key}.map"),
                "a route needs at least one `value = \"env\"` entry",
            ));
        }
        let mapped: Arc<[String]> = self.map.keys().cloned().collect();
        self.map
            .iter()
            .map(|(value, target)| {
                let entry = format!("{key}.map.{value}");
                let target = read_target(&entry, target)?;
                Ok(StageEnv {
                    name: target.env,
                    domain: target.domain,
                    weight: self.weight,
                    dataset: self.dataset.clone(),
                    config: target.config,
                    target: None,
                    select: Some(RowSelector {
                        route: key.clone(),
                        field: self.field.clone(),
                        value: value.clone(),
                        mapped: Arc::clone(&mapped),
                    }),
                    key: Some(entry),
                })
            })
            .collect()
    }
}

fn read_target(key: &str, value: &toml::Value) -> Result<RouteTarget, RecipeError> {
    match value {
        toml::Value::String(env) => Ok(RouteTarget {
            env: env.clone(),
            domain: None,
            config: toml::Table::new(),
        }),
        toml::Value::Table(table) => table
            .clone()
            .try_into()
            .map_err(|e: toml::de::Error| invalid(key, e.message().to_owned())),
        other => Err(invalid(
            key,
            format!(
                "must be an env name or a table {{ env, domain, config }}, found a {}",
                other.type_str()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn route(map: &str) -> Result<Vec<StageEnv>, RecipeError> {
        let text = format!("dataset = \"mixed.jsonl\"\n[map]\n{map}");
        let route: StageRoute = toml::from_str(&text).unwrap();
        route.expand(2, 0)
    }

    #[test]
    fn a_route_becomes_one_env_per_value_in_key_order() {
        let envs = route(
            "mcqa_simple_agent = { env = \"mcqa\", domain = \"stem\" }\nmath_with_judge_simple_agent = \"math\"",
        )
        .unwrap();
        let names: Vec<(&str, &str)> = envs.iter().map(|e| (e.name.as_str(), e.domain())).collect();
        assert_eq!(names, [("math", "math"), ("mcqa", "stem")]);
        assert_eq!(
            envs[1].key.as_deref(),
            Some("stage[2].route[0].map.mcqa_simple_agent")
        );
    }

    #[test]
    fn rows_go_to_their_env_and_unmapped_rows_are_refused() {
        let envs = route("a = \"math\"\nb = \"mcqa\"").unwrap();
        let select = envs[0].select.as_ref().unwrap();
        let row =
            |name: Value| json!({"agent_ref": {"type": "responses_api_agents", "name": name}});
        assert_eq!(select.takes(&row(json!("a"))), Ok(true));
        assert_eq!(select.takes(&row(json!("b"))), Ok(false));
        let err = select.takes(&row(json!("c"))).unwrap_err();
        assert!(
            err.contains("\"c\"") && err.contains("names: a, b"),
            "{err}"
        );
        let err = select.takes(&json!({"id": 1})).unwrap_err();
        assert!(err.contains("no `agent_ref.name`"), "{err}");
        let err = select.takes(&row(json!(["a"]))).unwrap_err();
        assert!(err.contains("must be a string"), "{err}");
    }

    #[test]
    fn bad_maps_name_their_key() {
        let err = route("").unwrap_err().to_string();
        assert!(err.contains("stage[2].route[0].map"), "{err}");
        let err = route("a = 3").unwrap_err().to_string();
        assert!(err.contains("map.a") && err.contains("integer"), "{err}");
        let err = route("a = { env = \"math\", teacher = \"x\" }")
            .unwrap_err()
            .to_string();
        assert!(err.contains("map.a") && err.contains("teacher"), "{err}");
    }
}
