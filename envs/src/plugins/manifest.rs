//! A plugin's `name.toml`: its name, description and limits, and either the code file
//! it describes (`python = "…"`, `wasm = "…"`) or, for a declarative plugin, its
//! `[[component]]` tables. Unknown keys are refused with their line.
//!
//! ```toml
//! name = "length_penalty"         # default: the file name without `.toml`
//! description = "…"
//! python = "length_penalty.py"    # relative to this file
//! [limits]
//! time_s = 2.0                    # per call
//! memory_mb = 512
//! load_time_s = 30.0              # loading the module (imports included)
//! workers = 0                     # resident interpreters; 0: one per core, at most 8
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::declarative::ComponentSpec;
use super::{line_of, PluginError};

/// Limits of one plugin (defaults when the plugin has no manifest).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PluginLimits {
    /// CPU time per call, in seconds of sandbox fuel.
    pub time_s: f64,
    /// Memory of the plugin's interpreter or module, in MiB.
    pub memory_mb: u64,
    /// CPU time to load a Python plugin's module (its imports included).
    pub load_time_s: f64,
    /// Resident interpreters of a Python plugin; 0: one per core, at most
    /// [`MAX_DEFAULT_WORKERS`].
    pub workers: usize,
}

/// The most resident interpreters a plugin gets by default: each one holds its memory
/// for the run, and the sandbox's instance slots are shared with every other run.
pub const MAX_DEFAULT_WORKERS: usize = 8;

impl Default for PluginLimits {
    fn default() -> Self {
        Self {
            time_s: 2.0,
            memory_mb: 512,
            load_time_s: 30.0,
            workers: 0,
        }
    }
}

impl PluginLimits {
    /// The resident interpreters to keep: the setting, else one per core (capped).
    pub fn worker_count(&self) -> usize {
        if self.workers > 0 {
            return self.workers;
        }
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_DEFAULT_WORKERS)
    }
}

/// A plugin manifest, as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: Option<String>,
    pub description: Option<String>,
    /// The Python file this manifest describes.
    pub python: Option<PathBuf>,
    /// The WASM module this manifest describes.
    pub wasm: Option<PathBuf>,
    #[serde(default)]
    pub limits: PluginLimits,
    /// A declarative plugin's checks.
    #[serde(default, rename = "component")]
    pub components: Vec<ComponentSpec>,
}

impl Manifest {
    /// The code file the manifest at `manifest_path` describes, resolved against its
    /// folder; `None` for a declarative plugin (or no manifest).
    pub fn code_file(&self, manifest_path: &Path) -> Option<PathBuf> {
        let relative = self.python.as_ref().or(self.wasm.as_ref())?;
        let folder = manifest_path.parent().unwrap_or(Path::new("."));
        Some(folder.join(relative))
    }
}

/// Reads and checks the manifest at `path`.
pub fn read(path: &Path) -> Result<Manifest, PluginError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| PluginError::new(path, format!("cannot read: {e}")))?;
    let manifest: Manifest = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| line_of(&text, s.start));
        PluginError::new(path, e.message().trim().to_owned()).at_line(line)
    })?;
    let kinds = [
        manifest.python.is_some(),
        manifest.wasm.is_some(),
        !manifest.components.is_empty(),
    ];
    match kinds.iter().filter(|&&k| k).count() {
        1 => {}
        0 => {
            return Err(PluginError::new(
                path,
                "a plugin manifest needs `python = \"…\"`, `wasm = \"…\"` or [[component]] tables",
            ))
        }
        _ => {
            return Err(PluginError::new(
                path,
                "a plugin manifest has one of `python`, `wasm` or [[component]], not several",
            ))
        }
    }
    check_limits(&manifest.limits, path)?;
    if let Some(code) = manifest.code_file(path) {
        if !code.is_file() {
            let message = format!("names {}, which is not a file", code.display());
            return Err(PluginError::new(path, message));
        }
    }
    Ok(manifest)
}

fn check_limits(limits: &PluginLimits, path: &Path) -> Result<(), PluginError> {
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if !positive(limits.time_s) || !positive(limits.load_time_s) || limits.memory_mb == 0 {
        return Err(PluginError::new(
            path,
            "[limits] time_s, load_time_s and memory_mb must be positive",
        ));
    }
    Ok(())
}
