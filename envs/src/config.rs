//! Environment configuration: a JSON/TOML table, parsed by each environment into its
//! own typed config that rejects unknown keys.

use std::path::{Component, Path, PathBuf};

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
    /// How far paths inside samples may reach: anywhere (the CLI, training: the user
    /// wrote the samples) or only under `base_dir` (`cascade serve`: a client did).
    pub path_policy: PathPolicy,
}

/// What paths inside samples (swe's `repo`) may name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PathPolicy {
    /// The samples are the user's own: a path is joined to `base_dir` as written.
    #[default]
    Trusted,
    /// The samples come from untrusted clients: a path must be relative and stay under
    /// `base_dir` after every symlink is resolved, and a folder copied for a sample
    /// holds at most `max_copy_bytes`.
    Confined { max_copy_bytes: u64 },
}

/// A path inside a sample that [`PathPolicy::Confined`] refuses.
#[derive(Debug, Error, PartialEq)]
pub enum PathError {
    #[error("path `{0}` is absolute; this server only takes paths relative to its --base-dir")]
    Absolute(String),
    #[error("path `{0}` leaves --base-dir")]
    Escapes(String),
    #[error("path `{0}` does not exist under --base-dir")]
    Missing(String),
}

/// Resolves paths inside samples against a base folder, under a [`PathPolicy`].
#[derive(Debug, Clone, PartialEq)]
pub struct SamplePaths {
    pub base_dir: PathBuf,
    pub policy: PathPolicy,
}

impl SamplePaths {
    /// The paths of `config` (base `.` when it names none).
    pub fn of(config: &EnvConfig) -> Self {
        Self {
            base_dir: config
                .base_dir
                .clone()
                .unwrap_or_else(|| PathBuf::from(".")),
            policy: config.path_policy,
        }
    }

    /// The most bytes one copy of a sample's folder may hold.
    pub fn max_copy_bytes(&self) -> u64 {
        match self.policy {
            PathPolicy::Trusted => u64::MAX,
            PathPolicy::Confined { max_copy_bytes } => max_copy_bytes,
        }
    }

    /// Where `path` (from a sample) leads. Confined, it is checked lexically first (no
    /// absolute path, no `..` above the base) and then after canonicalisation, so a
    /// symlink anywhere on the way cannot lead out either.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let joined = self.base_dir.join(path);
        if self.policy == PathPolicy::Trusted {
            return Ok(joined);
        }
        let relative = Path::new(path);
        if relative.has_root() || relative.is_absolute() {
            return Err(PathError::Absolute(path.to_owned()));
        }
        let mut depth = 0usize;
        for c in relative.components() {
            depth = match c {
                Component::ParentDir => depth
                    .checked_sub(1)
                    .ok_or_else(|| PathError::Escapes(path.to_owned()))?,
                Component::Normal(_) => depth + 1,
                _ => depth,
            };
        }
        let base = self
            .base_dir
            .canonicalize()
            .map_err(|_| PathError::Missing(".".to_owned()))?;
        let real = joined
            .canonicalize()
            .map_err(|_| PathError::Missing(path.to_owned()))?;
        if real.starts_with(&base) {
            Ok(real)
        } else {
            Err(PathError::Escapes(path.to_owned()))
        }
    }
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
            path_policy: PathPolicy::Trusted,
        }
    }

    /// Sets the folder relative sample paths are resolved against.
    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = Some(dir.into());
        self
    }

    /// Sets how far paths inside samples may reach.
    pub fn with_path_policy(mut self, policy: PathPolicy) -> Self {
        self.path_policy = policy;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn confined(base: &Path) -> SamplePaths {
        SamplePaths {
            base_dir: base.to_owned(),
            policy: PathPolicy::Confined { max_copy_bytes: 1 },
        }
    }

    #[test]
    fn confined_paths_stay_under_the_base() {
        let root = tempfile::tempdir().unwrap();
        let base = root.path().join("base");
        std::fs::create_dir_all(base.join("repo")).unwrap();
        std::fs::create_dir(root.path().join("secret")).unwrap();
        std::os::unix::fs::symlink(root.path().join("secret"), base.join("link")).unwrap();
        let paths = confined(&base);
        assert!(paths.resolve("repo").unwrap().ends_with("base/repo"));
        assert!(paths.resolve("repo/../repo").is_ok());
        let secret = root.path().join("secret").display().to_string();
        assert!(matches!(
            paths.resolve(&secret),
            Err(PathError::Absolute(_))
        ));
        assert!(matches!(
            paths.resolve("../secret"),
            Err(PathError::Escapes(_))
        ));
        assert!(matches!(
            paths.resolve("repo/../../secret"),
            Err(PathError::Escapes(_))
        ));
        assert!(matches!(paths.resolve("link"), Err(PathError::Escapes(_))));
        assert!(matches!(
            paths.resolve("nothing"),
            Err(PathError::Missing(_))
        ));
        // The CLI's samples are the user's own: paths resolve as written.
        let trusted = SamplePaths {
            policy: PathPolicy::Trusted,
            ..paths
        };
        assert_eq!(
            trusted.resolve("../secret").unwrap(),
            base.join("../secret")
        );
    }
}
