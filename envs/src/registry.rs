//! The registry: every environment and verifier plugin linked into the binary, found
//! by name. Names are unique; a duplicate is an error, never a silent override.

use std::collections::BTreeMap;
use std::sync::Arc;

use std::path::PathBuf;

use cascade_verifiers::{FieldError, Reward, Sample, VerifierPlugin};
use thiserror::Error;

use crate::config::{ConfigError, EnvConfig};
use crate::environment::{ChatMessage, Environment};
use crate::plugins::{self, PluginError, PluginLimits, PluginSource};
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
    #[error(transparent)]
    Plugin(#[from] PluginError),
}

/// What `cascade envs` prints for one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub name: String,
    /// `environment`, `verifier`, or a plugin's [`PluginKind::label`].
    pub kind: &'static str,
    pub origin: String,
    pub description: String,
    /// A plugin's code file.
    pub path: Option<PathBuf>,
    /// A plugin's sha256 (see [`crate::plugins::PluginSource::sha256`]).
    pub sha256: Option<String>,
    /// The environments a declarative plugin's components use.
    pub uses: Vec<String>,
    /// A plugin's manifest limits that the operator's ceilings lowered.
    pub lowered_limits: Vec<String>,
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
                path: None,
                sha256: None,
                uses: Vec::new(),
                lowered_limits: Vec::new(),
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
                path: None,
                sha256: None,
                uses: Vec::new(),
                lowered_limits: Vec::new(),
            },
            Arc::new(move |_config: &EnvConfig| {
                Ok(Box::new(VerifierEnv::new(make())) as Box<dyn Environment>)
            }),
        )
    }

    /// [`Registry::discover`] plus every plugin in `paths` (see [`crate::plugins`]),
    /// their limits lowered to the operator's `ceiling`.
    pub fn discover_with_plugins(
        paths: &[PathBuf],
        ceiling: &PluginLimits,
    ) -> Result<Self, RegistryError> {
        let mut registry = Self::discover()?;
        registry.load_plugins(paths, ceiling)?;
        Ok(registry)
    }

    /// Loads every plugin in `paths`, their limits lowered to `ceiling`. A plugin named
    /// like a registered environment is refused, naming both; declarative plugins load
    /// after the plugins they use.
    pub fn load_plugins(
        &mut self,
        paths: &[PathBuf],
        ceiling: &PluginLimits,
    ) -> Result<(), RegistryError> {
        let sources = plugins::find(paths, ceiling)?;
        for source in &sources {
            if let Some(existing) = self.entries.get(&source.name) {
                return Err(RegistryError::Duplicate {
                    name: source.name.clone(),
                    first: existing.listing.origin.clone(),
                    second: source.path.display().to_string(),
                });
            }
        }
        let mut pending: Vec<&PluginSource> = sources.iter().collect();
        while !pending.is_empty() {
            // The first plugin whose references are all registered; when none is
            // ready (a missing or circular reference), the first, to report it.
            let ready = pending
                .iter()
                .position(|s| plugins::references(s).iter().all(|r| self.contains(r)))
                .unwrap_or(0);
            let source = self.with_used_digests(pending.remove(ready));
            let loaded = plugins::load(&source, &|name| {
                self.create(name, &EnvConfig::default()).ok()
            })?;
            self.insert(
                plugin_listing(&source, loaded.description),
                plugin_maker(loaded.env, source.sha256.clone()),
            )?;
        }
        Ok(())
    }

    /// A plugin that uses other plugins (a declarative `verifier` component) reports a
    /// sha256 over its own and theirs, so that a change in any of them shows in its
    /// results.
    fn with_used_digests(&self, source: &PluginSource) -> PluginSource {
        let mut source = source.clone();
        let used: Vec<&str> = plugins::references(&source)
            .into_iter()
            .filter_map(|name| self.listing(name)?.sha256.as_deref())
            .collect();
        if !used.is_empty() {
            source.sha256 = plugins::combined_digest(&source.sha256, &used);
        }
        source
    }

    /// The listing of `name`, when registered.
    pub fn listing(&self, name: &str) -> Option<&Listing> {
        self.entries.get(name).map(|e| &e.listing)
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

fn plugin_listing(source: &PluginSource, description: String) -> Listing {
    Listing {
        name: source.name.clone(),
        kind: source.kind.label(),
        origin: source.path.display().to_string(),
        description,
        path: Some(source.path.clone()),
        sha256: Some(source.sha256.clone()),
        uses: plugins::references(source)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        lowered_limits: source.lowered.clone(),
    }
}

/// Every `create` of a plugin shares its one loaded instance (its interpreters).
fn plugin_maker(env: Arc<dyn Environment>, sha256: String) -> MakeEnv {
    Arc::new(move |config: &EnvConfig| {
        if let Some(key) = config.table.keys().next() {
            return Err(ConfigError::Invalid {
                env: env.name().to_owned(),
                message: format!("a plugin takes no settings (got `{key}`)"),
            });
        }
        let plugin = PluginEnv {
            env: env.clone(),
            sha256: sha256.clone(),
        };
        Ok(Box::new(plugin) as Box<dyn Environment>)
    })
}

/// A loaded plugin as every caller sees it: the sample's common fields checked before
/// the plugin runs, and each reward stamped with the plugin's sha256
/// (`details.plugin_sha256`), whatever the plugin's kind.
struct PluginEnv {
    env: Arc<dyn Environment>,
    sha256: String,
}

impl Environment for PluginEnv {
    fn name(&self) -> &str {
        self.env.name()
    }
    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        self.env.prompt(row)
    }
    fn score(&self, sample: &Sample) -> Reward {
        let reward = match sample.validate_common() {
            Err(e) => Reward::error(e.to_string()),
            Ok(()) => self.env.score(sample),
        };
        reward.with("plugin_sha256", self.sha256.clone())
    }
    fn multi_turn(&self) -> Option<&dyn crate::multi_turn::MultiTurnEnvironment> {
        self.env.multi_turn()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
