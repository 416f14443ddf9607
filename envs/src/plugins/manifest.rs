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

/// The environment variable with the operator's ceilings, when no flag sets them.
pub const LIMITS_VAR: &str = "CASCADE_PLUGIN_LIMITS";

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
    /// Lowers every limit above `ceiling` to it (the operator's ceilings: a manifest may
    /// only lower them) and says which were lowered, as `time_s 1e9 -> 2`. A `workers`
    /// ceiling of 0 stands for [`MAX_DEFAULT_WORKERS`].
    pub fn clamp_to(&mut self, ceiling: &PluginLimits) -> Vec<String> {
        let mut lowered = Vec::new();
        let mut clamp_f = |name: &str, value: &mut f64, most: f64| {
            if *value > most {
                lowered.push(format!("{name} {value} -> {most}"));
                *value = most;
            }
        };
        clamp_f("time_s", &mut self.time_s, ceiling.time_s);
        clamp_f("load_time_s", &mut self.load_time_s, ceiling.load_time_s);
        if self.memory_mb > ceiling.memory_mb {
            lowered.push(format!(
                "memory_mb {} -> {}",
                self.memory_mb, ceiling.memory_mb
            ));
            self.memory_mb = ceiling.memory_mb;
        }
        let most_workers = match ceiling.workers {
            0 => MAX_DEFAULT_WORKERS,
            n => n,
        };
        if self.workers > most_workers {
            lowered.push(format!("workers {} -> {most_workers}", self.workers));
            self.workers = most_workers;
        }
        lowered
    }

    /// Operator ceilings written as `time_s=5,memory_mb=1024` (`--plugin-limits`, a
    /// server flag); keys left out keep their default. Unknown keys are refused.
    pub fn parse_ceiling(text: &str) -> Result<Self, String> {
        let table = text
            .split(',')
            .map(str::trim)
            .filter(|pair| !pair.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        let limits: Self = toml::from_str(&table)
            .map_err(|e| format!("plugin limits `{text}`: {}", e.message().trim()))?;
        limits
            .check()
            .map_err(|e| format!("plugin limits `{text}`: {e}"))?;
        Ok(limits)
    }

    /// The operator's ceilings: `flag` (`--plugin-limits`), else the environment
    /// variable `CASCADE_PLUGIN_LIMITS`, else the defaults.
    pub fn operator_ceiling(flag: Option<&str>) -> Result<Self, String> {
        match flag
            .map(str::to_owned)
            .or_else(|| std::env::var(LIMITS_VAR).ok())
        {
            Some(text) => Self::parse_ceiling(&text),
            None => Ok(Self::default()),
        }
    }

    /// The lower of two ceilings, field by field (the CLI's and a recipe's).
    pub fn lower(&self, other: &PluginLimits) -> PluginLimits {
        let mut lowest = self.clone();
        lowest.clamp_to(other);
        if lowest.workers == 0 {
            lowest.workers = other.workers;
        }
        lowest
    }

    /// Every limit is positive (a manifest's, or a ceiling's).
    pub fn check(&self) -> Result<(), &'static str> {
        let positive = |v: f64| v.is_finite() && v > 0.0;
        if !positive(self.time_s) || !positive(self.load_time_s) || self.memory_mb == 0 {
            return Err("time_s, load_time_s and memory_mb must be positive");
        }
        Ok(())
    }

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
    if let Some(relative) = manifest.python.as_ref().or(manifest.wasm.as_ref()) {
        check_confined(relative, path)?;
    }
    if let Some(code) = manifest.code_file(path) {
        if !code.is_file() {
            let message = format!("names {}, which is not a file", code.display());
            return Err(PluginError::new(path, message));
        }
    }
    Ok(manifest)
}

fn check_limits(limits: &PluginLimits, path: &Path) -> Result<(), PluginError> {
    limits
        .check()
        .map_err(|e| PluginError::new(path, format!("[limits] {e}")))
}

/// A manifest's `python`/`wasm` path must stay in the manifest's folder: a relative
/// path of plain names (no `..`, not absolute), and no symlink that leads out (the
/// code file's folder becomes the plugin's `/plugin`, which it may read).
fn check_confined(relative: &Path, manifest_path: &Path) -> Result<(), PluginError> {
    use std::path::Component;
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !plain {
        let message = format!(
            "`{}` must be a path inside the manifest's folder (no `..`, not absolute)",
            relative.display()
        );
        return Err(PluginError::new(manifest_path, message));
    }
    let folder = manifest_path.parent().unwrap_or(Path::new("."));
    let file = folder.join(relative);
    if !file.exists() {
        return Ok(()); // `read` refuses it as "not a file"
    }
    confined(folder, &file).map_err(|m| PluginError::new(manifest_path, m))
}

/// `file` (a path in `folder`), once symlinks are resolved, is still in `folder`.
pub(crate) fn confined(folder: &Path, file: &Path) -> Result<(), String> {
    let folder = folder
        .canonicalize()
        .map_err(|e| format!("{}: {e}", folder.display()))?;
    let real = file
        .canonicalize()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    if real.starts_with(&folder) {
        Ok(())
    } else {
        Err(format!(
            "{} leads out of the plugin folder (to {})",
            file.display(),
            real.display()
        ))
    }
}
