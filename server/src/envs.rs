//! Environments built once per (name, config) and kept, a bounded number of them:
//! building the code and swe environments compiles sandbox modules, far too slow to
//! repeat per request.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cascade_envs::{EnvConfig, Environment, Registry, RegistryError};
use serde_json::{Map, Value};

use crate::error::ApiError;

type Built = Result<Arc<dyn Environment>, ApiError>;

/// One cache slot; the `OnceLock` makes concurrent first requests build it once.
type Slot = Arc<OnceLock<Built>>;

/// The registry and the environments built from it so far.
pub struct EnvCache {
    registry: Registry,
    base_dir: PathBuf,
    capacity: usize,
    /// Most recently used last; the front is evicted first.
    slots: Mutex<VecDeque<(String, Slot)>>,
}

impl EnvCache {
    pub fn new(registry: Registry, base_dir: PathBuf, capacity: usize) -> Self {
        Self {
            registry,
            base_dir,
            capacity: capacity.max(1),
            slots: Mutex::new(VecDeque::new()),
        }
    }

    /// The environments this server knows, sorted.
    pub fn names(&self) -> Vec<String> {
        self.registry.names().map(str::to_owned).collect()
    }

    /// 404 unless `name` is known: cheap, so routes check it before queueing work.
    pub fn check_known(&self, name: &str) -> Result<(), ApiError> {
        if self.registry.contains(name) {
            Ok(())
        } else {
            Err(ApiError::unknown_env(name, &self.names()))
        }
    }

    /// The environment `name` with `config`, built on first use. Blocking (the build may
    /// compile modules): call it from a scoring thread, not the async runtime. A config
    /// the environment refuses is 422.
    pub fn get(&self, name: &str, config: &Map<String, Value>) -> Built {
        self.check_known(name)?;
        let key = format!("{name}\u{0}{}", Value::Object(config.clone()));
        let slot = self.slot(key);
        slot.get_or_init(|| self.build(name, config)).clone()
    }

    fn slot(&self, key: String) -> Slot {
        // A poisoned lock only means a panic elsewhere mid-update of this list, which
        // leaves it valid; keep serving.
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = slots
            .iter()
            .position(|(k, _)| *k == key)
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
        slots.push_back((key, slot.clone()));
        slot
    }

    fn build(&self, name: &str, config: &Map<String, Value>) -> Built {
        let config = EnvConfig::new(config.clone()).with_base_dir(&self.base_dir);
        match self.registry.create(name, &config) {
            Ok(env) => Ok(Arc::from(env)),
            Err(RegistryError::Unknown { name, known }) => {
                Err(ApiError::unknown_env(&name, &known))
            }
            Err(e) => Err(ApiError::unprocessable(e.to_string())),
        }
    }
}
