//! Dataset rows for training and evaluation: JSONL files of environment rows, turned
//! into prompt token ids through the environment's `prompt` and the chat template.

use std::path::Path;
use std::sync::Arc;

use cascade_envs::{EnvConfig, Environment, Registry, Sample};
use serde_json::{Map, Value};

use super::RunError;
use crate::tokenizer::TextTokenizer;

/// One environment with its rows, their rendered prompts and the domain they count for.
pub struct EnvData {
    pub domain: String,
    pub env: Arc<dyn Environment>,
    pub rows: Vec<Sample>,
    pub prompts: Vec<Vec<i64>>,
    pub weight: f64,
    /// SFT stages: each row's reference response as token ids, end-of-turn appended;
    /// empty otherwise.
    pub targets: Vec<Vec<i64>>,
}

impl EnvData {
    /// Scores `response` for row `i`: the row plus `"response"`, through the environment.
    pub fn score(&self, i: usize, response: &str) -> f64 {
        let mut value = self.rows[i].value().clone();
        if let Value::Object(map) = &mut value {
            map.insert("response".into(), Value::String(response.to_owned()));
        }
        let r = self.env.score(&Sample::new(value)).score;
        if r.is_finite() {
            r
        } else {
            0.0
        }
    }
}

/// Reads `path` (JSONL), keeping at most `limit` rows; errors name the file and line.
pub fn read_rows(path: &Path, limit: Option<usize>) -> Result<Vec<Sample>, RunError> {
    let text = std::fs::read_to_string(path).map_err(|e| RunError::Dataset {
        path: path.to_owned(),
        line: 0,
        message: e.to_string(),
    })?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if limit.is_some_and(|l| rows.len() >= l) {
            break;
        }
        let sample = Sample::from_json_line(line).map_err(|e| RunError::Dataset {
            path: path.to_owned(),
            line: n + 1,
            message: e.to_string(),
        })?;
        rows.push(sample);
    }
    if rows.is_empty() {
        return Err(RunError::Dataset {
            path: path.to_owned(),
            line: 0,
            message: "no rows".into(),
        });
    }
    Ok(rows)
}

fn table_to_json(table: &toml::Table) -> Map<String, Value> {
    match serde_json::to_value(table) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Builds the environment `name` with its recipe table; relative paths inside rows
/// resolve against the dataset's folder.
pub fn make_env(
    registry: &Registry,
    name: &str,
    config: &toml::Table,
    dataset: &Path,
) -> Result<Arc<dyn Environment>, RunError> {
    let mut cfg = EnvConfig::new(table_to_json(config));
    if let Some(dir) = dataset.parent() {
        cfg = cfg.with_base_dir(dir);
    }
    let env = registry.create(name, &cfg).map_err(|e| RunError::Env {
        name: name.to_owned(),
        message: e.to_string(),
    })?;
    Ok(Arc::from(env))
}

/// Loads an environment's rows and renders each prompt to token ids.
#[allow(clippy::too_many_arguments)]
pub fn load_env_data(
    registry: &Registry,
    tokenizer: &TextTokenizer,
    enable_thinking: Option<bool>,
    name: &str,
    domain: &str,
    config: &toml::Table,
    dataset: &Path,
    limit: Option<usize>,
    weight: f64,
) -> Result<EnvData, RunError> {
    let env = make_env(registry, name, config, dataset)?;
    let rows = read_rows(dataset, limit)?;
    let mut prompts = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let messages = env.prompt(row).map_err(|e| RunError::Dataset {
            path: dataset.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        let text = tokenizer.render_chat(&messages, enable_thinking)?;
        prompts.push(tokenizer.encode(&text)?);
    }
    Ok(EnvData {
        domain: domain.to_owned(),
        env,
        rows,
        prompts,
        weight,
        targets: Vec::new(),
    })
}

/// Reads each row's reference response from field `field` (a string) and encodes it,
/// followed by the tokenizer's end-of-turn token, for supervised training.
pub fn load_targets(
    data: &mut EnvData,
    tokenizer: &TextTokenizer,
    field: &str,
    dataset: &Path,
) -> Result<(), RunError> {
    let end = tokenizer.stop_ids.first().copied();
    let mut targets = Vec::with_capacity(data.rows.len());
    for (i, row) in data.rows.iter().enumerate() {
        let text = row.str_field(field).map_err(|e| RunError::Dataset {
            path: dataset.to_path_buf(),
            line: i + 1,
            message: format!("SFT target: {e}"),
        })?;
        let mut ids = tokenizer.encode(text)?;
        ids.extend(end);
        targets.push(ids);
    }
    data.targets = targets;
    Ok(())
}
