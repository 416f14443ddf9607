//! Environment configuration: a JSON/TOML table, parsed by each environment into its
//! own typed config that rejects unknown keys.

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use thiserror::Error;

/// An environment's settings as given by the user (recipe table or `--config k=v`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvConfig {
    pub table: Map<String, Value>,
    /// The folder that relative paths inside samples are resolved against (the input
    /// file's folder for `cascade score`, the dataset's folder for training).
    pub base_dir: Option<PathBuf>,
}

#[derive(Debug, Error, PartialEq)]
pub enum ConfigError {
    #[error("invalid config for environment `{env}`: {message}")]
    Invalid { env: String, message: String },
    #[error("`{0}` is not a KEY=VALUE setting")]
    NotKeyValue(String),
}

impl EnvConfig {
    pub fn new(table: Map<String, Value>) -> Self {
        Self {
            table,
            base_dir: None,
        }
    }

    /// Sets the folder relative sample paths are resolved against.
    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = Some(dir.into());
        self
    }

    /// Parses `key=value` pairs; values are read as JSON when they parse, else as
    /// strings (`fractional=true`, `tolerance=1e-6`, `backend=wasi`).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<Self, ConfigError> {
        let mut table = Map::new();
        for pair in pairs {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| ConfigError::NotKeyValue(pair.to_owned()))?;
            let value = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_owned()));
            table.insert(k.trim().to_owned(), value);
        }
        Ok(Self::new(table))
    }

    /// Deserialises into an environment's typed config. Use
    /// `#[serde(deny_unknown_fields, default)]` on `T` so unknown keys are named.
    pub fn parse<T: DeserializeOwned>(&self, env: &str) -> Result<T, ConfigError> {
        serde_json::from_value(Value::Object(self.table.clone())).map_err(|e| {
            ConfigError::Invalid {
                env: env.to_owned(),
                message: e.to_string(),
            }
        })
    }
}
