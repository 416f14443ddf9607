//! `score --route-by FIELD`: a mixed file (Cascade 2's multi-domain and MOPD subsets)
//! scored row by row by the env its FIELD names, as a recipe's `[[stage.route]]` trains
//! on it. Values map to envs through `--route VALUE=ENV`, then NeMo Gym's agent names
//! (`cascade_envs::gym::agent_env`). Each env scores its rows through the one guarded
//! path; results come back in input order, and a row no env takes gets reward 0 with
//! the reason, never dropped.

use std::collections::BTreeMap;

use cascade_envs::{Registry, ResultLine};
use cascade_verifiers::Reward;
use serde_json::Value;

use super::batch::score_all;
use super::input::NumberedSample;
use super::score::{build_env, ScoreArgs};
use super::Failure;

/// How rows pick their env: the field, and the explicit value → env table.
pub struct Routing {
    field: String,
    map: BTreeMap<String, String>,
}

impl Routing {
    /// From `--route-by` and the `--route VALUE=ENV` pairs.
    pub fn new(field: &str, pairs: &[String]) -> Result<Self, Failure> {
        let mut map = BTreeMap::new();
        for pair in pairs {
            let (value, env) = pair
                .split_once('=')
                .filter(|(v, e)| !v.is_empty() && !e.is_empty())
                .ok_or_else(|| {
                    Failure::usage(anyhow::anyhow!(
                        "--route `{pair}`: expected VALUE=ENV, e.g. mcqa_simple_agent=mcqa"
                    ))
                })?;
            map.insert(value.to_owned(), env.to_owned());
        }
        if field.is_empty() || field.split('.').any(str::is_empty) {
            return Err(Failure::usage(anyhow::anyhow!(
                "--route-by `{field}`: expected a dotted field path, e.g. agent_ref.name"
            )));
        }
        Ok(Routing {
            field: field.to_owned(),
            map,
        })
    }

    /// The env that scores `row`, or why none does.
    fn env_of(&self, row: &Value) -> Result<String, String> {
        let value = match self.field.split('.').try_fold(row, |v, part| v.get(part)) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
            Some(other) => {
                return Err(format!(
                    "`{}` must be a string to route the row by, found {other}",
                    self.field
                ))
            }
            None => return Err(format!("no `{}` to route the row by", self.field)),
        };
        self.map
            .get(&value)
            .cloned()
            .or_else(|| cascade_envs::gym::agent_env(&value).map(str::to_owned))
            .ok_or_else(|| {
                format!(
                    "no env for `{}` = \"{value}\": pass --route {value}=ENV",
                    self.field
                )
            })
    }
}

/// Scores each sample with the env its routing field names; in input order.
pub fn score_routed(
    registry: &Registry,
    routing: &Routing,
    args: &ScoreArgs,
    samples: &[NumberedSample],
) -> Result<Vec<ResultLine>, Failure> {
    let mut results: Vec<Option<ResultLine>> = vec![None; samples.len()];
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, numbered) in samples.iter().enumerate() {
        match routing.env_of(numbered.sample.value()) {
            Ok(env) => groups.entry(env).or_default().push(i),
            Err(why) => results[i] = Some(ResultLine::new(&numbered.sample, Reward::error(why))),
        }
    }
    for (name, indices) in groups {
        let env = build_env(registry, &name, &args.config, &args.input)?;
        let group: Vec<NumberedSample> = indices.iter().map(|&i| samples[i].clone()).collect();
        for (i, line) in indices
            .into_iter()
            .zip(score_all(env.as_ref(), &group, args.jobs)?)
        {
            results[i] = Some(line);
        }
    }
    Ok(results.into_iter().flatten().collect())
}
