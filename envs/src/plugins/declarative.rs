//! Declarative plugins: a `name.toml` of `[[component]]` tables that compose built-in
//! checks without code. The reward is the weighted mean of the components' scores
//! (0 when a `required` component scores below 1), and every component's score is
//! reported in `details.reward_components` (multi-reward training: NeMo Gym's and
//! verl's per-component rewards).
//!
//! ```toml
//! description = "a boxed number within 1e-6 of the row's answer, in at most 200 words"
//! [[component]]
//! name = "answer"
//! check = "numeric"                    # regex | exact | numeric | math | json_schema
//! field = "answer"                     # | length | verifier
//! extract = '\\boxed\{([^}]*)\}'       # optional: check the last match (group 1)
//! tolerance = 1e-6
//! weight = 0.8
//! [[component]]
//! name = "short"
//! check = "length"
//! max_words = 200
//! weight = 0.2
//! ```
//!
//! Keys by check: `regex` `pattern`; `exact` `field`, `normalize` (`none`, `strip`,
//! `whitespace` (default), `casefold`); `numeric` `field`, `tolerance` (absolute,
//! default 1e-9), `relative`; `math` `field` (equivalence, the `math` env's); `json_schema`
//! `schema` (inline) or `schema_field`; `length` `min_chars`, `max_chars`,
//! `min_words`, `max_words`; `verifier` `verifier` (a built-in or plugin name, scored
//! on the whole sample). Every component takes `name`, `check`, `weight` (default 1),
//! `required` and `extract` (not `verifier`). Any other key is refused.

use std::sync::Arc;

use cascade_verifiers::{FieldError, Reward, Sample};
use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{PluginError, PluginSource};
use crate::environment::{ChatMessage, Environment};

mod checks;

use checks::Check;

/// One `[[component]]` table as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentSpec {
    pub name: String,
    pub check: CheckKind,
    #[serde(default = "one")]
    pub weight: f64,
    /// A score below 1 makes the whole reward 0.
    #[serde(default)]
    pub required: bool,
    pub extract: Option<String>,
    pub pattern: Option<String>,
    pub field: Option<String>,
    pub normalize: Option<Normalize>,
    pub tolerance: Option<f64>,
    pub relative: Option<f64>,
    pub schema: Option<toml::Value>,
    pub schema_field: Option<String>,
    pub min_chars: Option<usize>,
    pub max_chars: Option<usize>,
    pub min_words: Option<usize>,
    pub max_words: Option<usize>,
    pub verifier: Option<String>,
}

fn one() -> f64 {
    1.0
}

/// The built-in check a component runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Regex,
    Exact,
    Numeric,
    Math,
    JsonSchema,
    Length,
    Verifier,
}

/// How `exact` compares text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Normalize {
    None,
    Strip,
    #[default]
    Whitespace,
    Casefold,
}

/// Finds an environment (built-in or already loaded plugin) by name.
pub type Lookup<'a> = dyn Fn(&str) -> Option<Box<dyn Environment>> + 'a;

struct Component {
    name: String,
    weight: f64,
    required: bool,
    extract: Option<Regex>,
    check: Check,
}

/// A loaded declarative plugin.
pub struct DeclarativePlugin {
    name: String,
    components: Vec<Component>,
}

impl DeclarativePlugin {
    /// Compiles every component; a bad key, pattern, schema or verifier name is an error
    /// naming the component.
    pub fn load(
        source: &PluginSource,
        lookup: &Lookup<'_>,
    ) -> Result<Arc<DeclarativePlugin>, PluginError> {
        let mut components: Vec<Component> = Vec::new();
        for spec in &source.manifest.components {
            let fail = |m: String| {
                PluginError::new(&source.path, format!("component `{}`: {m}", spec.name))
            };
            if components.iter().any(|c| c.name == spec.name) {
                return Err(fail("the name is used twice".into()));
            }
            if !(spec.weight.is_finite() && spec.weight >= 0.0) {
                return Err(fail("`weight` must be a finite number >= 0".into()));
            }
            components.push(Component {
                name: spec.name.clone(),
                weight: spec.weight,
                required: spec.required,
                extract: extract_of(spec).map_err(fail)?,
                check: Check::compile(spec, lookup).map_err(fail)?,
            });
        }
        if components.iter().map(|c| c.weight).sum::<f64>() <= 0.0 {
            return Err(PluginError::new(
                &source.path,
                "the components' weights sum to 0",
            ));
        }
        Ok(Arc::new(DeclarativePlugin {
            name: source.name.clone(),
            components,
        }))
    }

    fn combine(&self, sample: &Sample, response: &str) -> Reward {
        let (mut total, mut weights, mut failed_required) = (0.0, 0.0, false);
        let mut scores = Map::new();
        let mut why = Map::new();
        for c in &self.components {
            let (score, reason) = match target(c.extract.as_ref(), response) {
                Some(text) => c.check.score(sample, text),
                None => (0.0, Some("the `extract` pattern does not match".into())),
            };
            total += c.weight * score;
            weights += c.weight;
            failed_required |= c.required && score < 1.0;
            scores.insert(c.name.clone(), Value::from(score));
            if let Some(reason) = reason {
                why.insert(c.name.clone(), Value::String(reason));
            }
        }
        let score = if failed_required {
            0.0
        } else {
            total / weights
        };
        let mut reward = Reward::new(score).with("reward_components", Value::Object(scores));
        if !why.is_empty() {
            reward = reward.with("why", Value::Object(why));
        }
        reward
    }
}

fn extract_of(spec: &ComponentSpec) -> Result<Option<Regex>, String> {
    match &spec.extract {
        None => Ok(None),
        Some(_) if spec.check == CheckKind::Verifier => {
            Err("`extract` does not apply to a `verifier` check".into())
        }
        Some(pattern) => checks::compile_regex(pattern, "extract").map(Some),
    }
}

/// The text a component checks: the response, or the last match of `extract` (its
/// first group when it has one).
fn target<'a>(extract: Option<&Regex>, response: &'a str) -> Option<&'a str> {
    let Some(extract) = extract else {
        return Some(response);
    };
    let last = extract.captures_iter(response).last()?;
    let m = last.get(1).or_else(|| last.get(0))?;
    Some(m.as_str())
}

impl Environment for DeclarativePlugin {
    fn name(&self) -> &str {
        &self.name
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        super::prompt_of(row)
    }

    fn score(&self, sample: &Sample) -> Reward {
        match sample.final_answer() {
            Err(e) => Reward::error(e.to_string()),
            Ok(response) => self.combine(sample, response),
        }
    }
}
