//! Environments built once per (name, config) and kept, a bounded number of them:
//! building the code and swe environments compiles sandbox modules, far too slow to
//! repeat per request.
//!
//! This is also where the operator's choices bind every request:
//! - only the environments named with `--env` are served (all when none is named);
//! - paths inside samples stay under `--base-dir` ([`PathPolicy::Confined`]);
//! - settings that touch the host or set a sample's cost ([`HostSetting`]) come from
//!   the operator (`--config`) alone: a request that sets one is refused (422), naming
//!   it, and a request may not change a setting the operator gave.
//!
//! A config the environment refuses is not kept, so refused configs cost no memory.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cascade_envs::{EnvConfig, Environment, PathPolicy, Registry, RegistryError};
use serde_json::{Map, Value};

use crate::error::ApiError;

type Built = Result<Arc<dyn Environment>, ApiError>;

/// One cache slot; the `OnceLock` makes concurrent first requests build it once.
type Slot = Arc<OnceLock<Built>>;

/// Environment settings only the operator may give: they name host files, programs,
/// environment variables or endpoints, choose the runtime, or set what one sample may
/// cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostSetting {
    DataDir,
    ApiKeyEnv,
    Endpoint,
    Backend,
    Python,
    Bwrap,
    TestCommand,
    PythonRuntime,
    Runner,
    MemoryMb,
    TimeoutS,
    TimeS,
    LoadTimeS,
    Workers,
}

impl HostSetting {
    const ALL: [HostSetting; 14] = [
        Self::DataDir,
        Self::ApiKeyEnv,
        Self::Endpoint,
        Self::Backend,
        Self::Python,
        Self::Bwrap,
        Self::TestCommand,
        Self::PythonRuntime,
        Self::Runner,
        Self::MemoryMb,
        Self::TimeoutS,
        Self::TimeS,
        Self::LoadTimeS,
        Self::Workers,
    ];

    /// The config key.
    pub fn key(self) -> &'static str {
        match self {
            Self::DataDir => "data_dir",
            Self::ApiKeyEnv => "api_key_env",
            Self::Endpoint => "endpoint",
            Self::Backend => "backend",
            Self::Python => "python",
            Self::Bwrap => "bwrap",
            Self::TestCommand => "test_command",
            Self::PythonRuntime => "python_runtime",
            Self::Runner => "runner",
            Self::MemoryMb => "memory_mb",
            Self::TimeoutS => "timeout_s",
            Self::TimeS => "time_s",
            Self::LoadTimeS => "load_time_s",
            Self::Workers => "workers",
        }
    }

    /// The host setting `key` names, if it is one.
    pub fn of(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// The config a request runs with: the operator's `operator` settings with the
/// request's `request` settings added. Refused (422, naming the key) when the request
/// sets a [`HostSetting`] or changes a setting the operator gave.
pub fn request_config(
    operator: &Map<String, Value>,
    request: Map<String, Value>,
) -> Result<Map<String, Value>, ApiError> {
    let mut config = operator.clone();
    for (key, value) in request {
        match operator.get(&key) {
            Some(given) if *given == value => continue,
            Some(_) => {
                return Err(ApiError::unprocessable(format!(
                    "config.{key}: set by the operator (--config); a request may not change it"
                )))
            }
            None => {}
        }
        if HostSetting::of(&key).is_some() {
            return Err(ApiError::unprocessable(format!(
                "config.{key}: a host setting, only the operator may give it (cascade serve --config {key}=…)"
            )));
        }
        config.insert(key, value);
    }
    Ok(config)
}

/// The registry and the environments built from it so far.
pub struct EnvCache {
    registry: Registry,
    /// The environments served; `None` = every one the registry has.
    exposed: Option<Vec<String>>,
    base_dir: PathBuf,
    max_copy_bytes: u64,
    capacity: usize,
    /// Most recently used last; the front is evicted first.
    slots: Mutex<VecDeque<(String, Slot)>>,
}

impl EnvCache {
    pub fn new(registry: Registry, base_dir: PathBuf, capacity: usize) -> Self {
        Self {
            registry,
            exposed: None,
            base_dir,
            max_copy_bytes: u64::MAX,
            capacity: capacity.max(1),
            slots: Mutex::new(VecDeque::new()),
        }
    }

    /// Serves only `names` (all when empty); an unknown name is an error.
    pub fn exposing(mut self, names: &[String]) -> Result<Self, String> {
        if names.is_empty() {
            return Ok(self);
        }
        if let Some(bad) = names.iter().find(|n| !self.registry.contains(n)) {
            let known: Vec<&str> = self.registry.names().collect();
            return Err(format!(
                "unknown environment `{bad}`; known: {}",
                known.join(", ")
            ));
        }
        let mut names = names.to_vec();
        names.sort();
        names.dedup();
        self.exposed = Some(names);
        Ok(self)
    }

    /// Caps the folder copied for one sample.
    pub fn with_max_copy_bytes(mut self, bytes: u64) -> Self {
        self.max_copy_bytes = bytes;
        self
    }

    /// The environments this server serves, sorted.
    pub fn names(&self) -> Vec<String> {
        match &self.exposed {
            Some(names) => names.clone(),
            None => self.registry.names().map(str::to_owned).collect(),
        }
    }

    /// 404 unless `name` is served: cheap, so routes check it before queueing work.
    pub fn check_known(&self, name: &str) -> Result<(), ApiError> {
        let served = match &self.exposed {
            Some(names) => names.iter().any(|n| n == name),
            None => self.registry.contains(name),
        };
        if served {
            Ok(())
        } else {
            Err(ApiError::unknown_env(name, &self.names()))
        }
    }

    /// The environment `name` with `config`, built on first use. Blocking (the build may
    /// compile modules): call it from a scoring thread, not the async runtime. A config
    /// the environment refuses is 422, and is not kept.
    pub fn get(&self, name: &str, config: &Map<String, Value>) -> Built {
        self.check_known(name)?;
        let key = format!("{name}\u{0}{}", Value::Object(config.clone()));
        let slot = self.slot(&key);
        let built = slot.get_or_init(|| self.build(name, config)).clone();
        if built.is_err() {
            self.forget(&key, &slot);
        }
        built
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Slot)>> {
        // A poisoned lock only means a panic elsewhere mid-update of this list, which
        // leaves it valid; keep serving.
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn slot(&self, key: &str) -> Slot {
        let mut slots = self.lock();
        if let Some(entry) = slots
            .iter()
            .position(|(k, _)| k == key)
            .and_then(|i| slots.remove(i))
        {
            let slot = entry.1.clone();
            slots.push_back(entry);
            return slot;
        }
        if slots.len() >= self.capacity {
            slots.pop_front();
        }
        let slot = Slot::default();
        slots.push_back((key.to_owned(), slot.clone()));
        slot
    }

    /// Drops the slot of a refused config (if it is still this one).
    fn forget(&self, key: &str, slot: &Slot) {
        self.lock()
            .retain(|(k, s)| !(k == key && Arc::ptr_eq(s, slot)));
    }

    /// How many configs are kept (built or being built).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no config is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn build(&self, name: &str, config: &Map<String, Value>) -> Built {
        let config = EnvConfig::new(config.clone())
            .with_base_dir(&self.base_dir)
            .with_path_policy(PathPolicy::Confined {
                max_copy_bytes: self.max_copy_bytes,
            });
        match self.registry.create(name, &config) {
            Ok(env) => Ok(Arc::from(env)),
            Err(RegistryError::Unknown { name, known }) => {
                Err(ApiError::unknown_env(&name, &known))
            }
            Err(e) => Err(ApiError::unprocessable(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn requests_may_not_set_host_settings() {
        let operator = map(json!({"backend": "wasi", "fuzz": 2}));
        let ok = request_config(&operator, map(json!({"strip": 1, "fuzz": 2}))).unwrap();
        assert_eq!(ok, map(json!({"backend": "wasi", "fuzz": 2, "strip": 1})));
        for (key, value) in [("data_dir", json!("/etc")), ("api_key_env", json!("HOME"))] {
            let e = request_config(&operator, map(json!({key: value}))).unwrap_err();
            assert_eq!(e.status, 422);
            assert!(e.message.contains(key), "{}", e.message);
        }
        let e = request_config(&operator, map(json!({"fuzz": 5}))).unwrap_err();
        assert!(e.message.contains("set by the operator"), "{}", e.message);
    }
}
