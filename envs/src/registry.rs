//! The registry: every environment and verifier plugin linked into the binary, found
//! by name. Names are unique; a duplicate is an error, never a silent override.

use std::collections::BTreeMap;
use std::sync::Arc;

use cascade_verifiers::VerifierPlugin;
use thiserror::Error;

use crate::config::{ConfigError, EnvConfig};
use crate::environment::Environment;
use crate::verifier_env::VerifierEnv;

/// An environment offered to the registry by any crate linked into the binary:
///
/// ```ignore
/// cascade_envs::inventory::submit! {
///     cascade_envs::EnvPlugin {
///         name: "math",
///         origin: env!("CARGO_PKG_NAME"),
///         description: "final answers checked for mathematical equivalence",
///         make: |config| Ok(Box::new(MathEnv::new(config.parse("math")?))),
///     }
/// }
/// ```
pub struct EnvPlugin {
    pub name: &'static str,
    /// The crate that provides it, shown by `cascade envs`.
    pub origin: &'static str,
    pub description: &'static str,
    pub make: fn(&EnvConfig) -> Result<Box<dyn Environment>, ConfigError>,
}

inventory::collect!(EnvPlugin);

#[derive(Debug, Error, PartialEq)]
pub enum RegistryError {
    #[error("unknown environment `{name}`; known: {}", known.join(", "))]
    Unknown { name: String, known: Vec<String> },
    #[error("`{name}` is registered twice (by {first} and {second})")]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// What `cascade envs` prints for one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub name: String,
    /// `environment` or `verifier`.
    pub kind: &'static str,
    pub origin: String,
    pub description: String,
}

type MakeEnv = Arc<dyn Fn(&EnvConfig) -> Result<Box<dyn Environment>, ConfigError> + Send + Sync>;

struct Entry {
    listing: Listing,
    make: MakeEnv,
}

/// Environments by name. Every verifier is also usable as an environment (its prompt
/// is the row's `prompt` field), so a verifier plugin is scoreable with `cascade score`.
#[derive(Default)]
pub struct Registry {
    entries: BTreeMap<String, Entry>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every plugin submitted by any crate linked into this binary.
    pub fn discover() -> Result<Self, RegistryError> {
        let mut registry = Self::new();
        for plugin in inventory::iter::<EnvPlugin> {
            registry.register_env(plugin)?;
        }
        for plugin in inventory::iter::<VerifierPlugin> {
            registry.register_verifier(plugin)?;
        }
        Ok(registry)
    }

    /// Adds an environment plugin.
    pub fn register_env(&mut self, plugin: &EnvPlugin) -> Result<(), RegistryError> {
        let make = plugin.make;
        self.insert(
            Listing {
                name: plugin.name.to_owned(),
                kind: "environment",
                origin: plugin.origin.to_owned(),
                description: plugin.description.to_owned(),
            },
            Arc::new(make),
        )
    }

    /// Adds a verifier plugin, usable as an environment of the same name.
    pub fn register_verifier(&mut self, plugin: &VerifierPlugin) -> Result<(), RegistryError> {
        let make = plugin.make;
        self.insert(
            Listing {
                name: plugin.name.to_owned(),
                kind: "verifier",
                origin: plugin.origin.to_owned(),
                description: plugin.description.to_owned(),
            },
            Arc::new(move |_config: &EnvConfig| {
                Ok(Box::new(VerifierEnv::new(make())) as Box<dyn Environment>)
            }),
        )
    }

    fn insert(&mut self, listing: Listing, make: MakeEnv) -> Result<(), RegistryError> {
        if let Some(existing) = self.entries.get(&listing.name) {
            return Err(RegistryError::Duplicate {
                name: listing.name.clone(),
                first: existing.listing.origin.clone(),
                second: listing.origin,
            });
        }
        self.entries
            .insert(listing.name.clone(), Entry { listing, make });
        Ok(())
    }

    /// Builds the named environment with its config.
    pub fn create(
        &self,
        name: &str,
        config: &EnvConfig,
    ) -> Result<Box<dyn Environment>, RegistryError> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| RegistryError::Unknown {
                name: name.to_owned(),
                known: self.names().map(str::to_owned).collect(),
            })?;
        Ok((entry.make)(config)?)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// Names in sorted order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Everything registered, sorted by name.
    pub fn listings(&self) -> Vec<Listing> {
        self.entries.values().map(|e| e.listing.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChatMessage;
    use cascade_verifiers::{FieldError, Reward, Sample};

    struct Always;
    impl Environment for Always {
        fn name(&self) -> &str {
            "always"
        }
        fn prompt(&self, _row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
            Ok(vec![])
        }
        fn score(&self, _sample: &Sample) -> Reward {
            Reward::new(1.0)
        }
    }

    static ALWAYS: EnvPlugin = EnvPlugin {
        name: "always",
        origin: "test",
        description: "reward 1",
        make: |_| Ok(Box::new(Always)),
    };

    #[test]
    fn refuses_duplicates_and_names_known_on_unknown() {
        let mut r = Registry::new();
        r.register_env(&ALWAYS).unwrap();
        assert!(matches!(
            r.register_env(&ALWAYS),
            Err(RegistryError::Duplicate { .. })
        ));
        let err = r.create("nope", &EnvConfig::default()).err().unwrap();
        assert_eq!(err.to_string(), "unknown environment `nope`; known: always");
        assert!(r.create("always", &EnvConfig::default()).is_ok());
    }
}
