//! Verifier plugins loaded at run time, from files: no Rust, no rebuild.
//!
//! Three kinds, found in the folders (or files) a user names:
//! - **Python** (`name.py` defining `verify(sample) -> float | bool | dict`): run in
//!   the sandbox's WASI CPython 3.15, loaded once per worker ([`python`]).
//! - **WASM** (`name.wasm`, a WASI command: one sample as JSON on stdin, one answer as
//!   JSON on stdout), in any language that targets wasm32-wasi ([`wasm`]).
//! - **Declarative** (`name.toml` with `[[component]]` tables): built-in checks
//!   combined with weights, each component's score reported ([`declarative`]).
//!
//! A `name.toml` with `python = "file.py"` or `wasm = "file.wasm"` is a manifest: it
//! names the plugin and sets its limits ([`manifest`]). Files whose name starts with
//! `_` or `.` are never plugins (helper modules of a Python plugin).
//!
//! Python and WASM plugins receive the sample as it is, plus `final_answer`: the
//! response's final answer (`cascade_verifiers::final_answer`: the text after the last
//! `</think>`, end tokens cut), or `null` when the response was cut off while thinking;
//! `response` stays the raw text, for a plugin that grades the reasoning too. A
//! declarative plugin grades the final answer (reward 0 and `details.error` when there
//! is none).
//!
//! Every plugin is an [`crate::Environment`] in the [`crate::Registry`], scored
//! through the same guard as the built-ins; its listing carries its kind, path and the
//! sha256 of its files, and each result it scores names that sha256
//! (`details.plugin_sha256`), so a changed plugin shows as the cause of a diff.

pub mod answer;
pub mod declarative;
pub mod host_api;
pub mod manifest;
pub mod python;
pub mod wasm;

use std::path::{Path, PathBuf};

use cascade_sandboxes::{Execution, Limits, Status};
use cascade_verifiers::{FieldError, Reward, Sample, ScoringFailure};
use serde_json::Value;
use sha2::{Digest, Sha256};
use thiserror::Error;

pub use manifest::{Manifest, PluginLimits};

use std::sync::Arc;

use crate::environment::{ChatMessage, Environment};

/// What a plugin is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginKind {
    Python,
    Wasm,
    Declarative,
}

impl PluginKind {
    /// The kind as `cascade envs` prints it.
    pub fn label(self) -> &'static str {
        match self {
            PluginKind::Python => "python plugin",
            PluginKind::Wasm => "wasm plugin",
            PluginKind::Declarative => "toml plugin",
        }
    }
}

/// Why a plugin could not be loaded: always names the file, and the line when known.
#[derive(Debug, Clone, Error, PartialEq)]
#[error("plugin {}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct PluginError {
    pub path: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl PluginError {
    pub fn new(path: &Path, message: impl Into<String>) -> Self {
        Self {
            path: path.to_owned(),
            line: None,
            message: message.into(),
        }
    }

    pub fn at_line(mut self, line: Option<usize>) -> Self {
        self.line = line;
        self
    }
}

/// One plugin found on disk, before it is loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginSource {
    pub name: String,
    pub kind: PluginKind,
    /// The file that holds its code (the `.py`, `.wasm` or declarative `.toml`).
    pub path: PathBuf,
    pub manifest: Manifest,
    /// sha256 (hex) of the manifest, when there is one, then of the code file; for a
    /// plugin that uses other plugins, of that and their digests (see
    /// [`combined_digest`]).
    pub sha256: String,
    /// The manifest's limits the operator's ceilings lowered, as `time_s 1e9 -> 2`.
    pub lowered: Vec<String>,
}

/// Every plugin in `paths` (folders, searched without recursion, or files), in the
/// order given and by file name within a folder. Two plugins of one name are refused.
/// Each plugin's limits are lowered to `ceiling` (the operator's): a manifest may only
/// lower them.
pub fn find(paths: &[PathBuf], ceiling: &PluginLimits) -> Result<Vec<PluginSource>, PluginError> {
    let mut found: Vec<PluginSource> = Vec::new();
    for path in paths {
        for mut source in find_in(path)? {
            source.lowered = source.manifest.limits.clamp_to(ceiling);
            if let Some(first) = found.iter().find(|s| s.name == source.name) {
                return Err(PluginError::new(
                    &source.path,
                    format!(
                        "plugin `{}` is also defined by {}",
                        source.name,
                        first.path.display()
                    ),
                ));
            }
            found.push(source);
        }
    }
    Ok(found)
}

fn find_in(path: &Path) -> Result<Vec<PluginSource>, PluginError> {
    if path.is_file() {
        return Ok(source_of(path, &[])?.into_iter().collect());
    }
    let entries = std::fs::read_dir(path)
        .map_err(|e| PluginError::new(path, format!("cannot read the plugin folder: {e}")))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    // Code files a manifest claims are that manifest's plugin, not plugins of their own.
    let mut claimed = Vec::new();
    for file in files.iter().filter(|f| has_extension(f, "toml")) {
        if let Some(code) = manifest::read(file)?.code_file(file) {
            claimed.push(code);
        }
    }
    let mut sources = Vec::new();
    for file in &files {
        if let Some(source) = source_of(file, &claimed)? {
            sources.push(source);
        }
    }
    Ok(sources)
}

/// The plugin `file` defines, if it is one.
fn source_of(file: &Path, claimed: &[PathBuf]) -> Result<Option<PluginSource>, PluginError> {
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if stem.is_empty() || stem.starts_with(['_', '.']) || claimed.iter().any(|c| c == file) {
        return Ok(None);
    }
    let (manifest, manifest_path) = if has_extension(file, "toml") {
        (manifest::read(file)?, Some(file))
    } else if has_extension(file, "py") || has_extension(file, "wasm") {
        (Manifest::default(), None)
    } else {
        return Ok(None);
    };
    let (kind, code) = match (&manifest_path, manifest.code_file(file)) {
        (Some(_), Some(code)) if has_extension(&code, "py") => (PluginKind::Python, code),
        (Some(_), Some(code)) => (PluginKind::Wasm, code),
        (Some(_), None) => (PluginKind::Declarative, file.to_owned()),
        (None, _) if has_extension(file, "py") => (PluginKind::Python, file.to_owned()),
        (None, _) => (PluginKind::Wasm, file.to_owned()),
    };
    let name = manifest.name.clone().unwrap_or_else(|| stem.to_owned());
    check_name(&name, file)?;
    if let Some(folder) = file.parent() {
        manifest::confined(folder, file).map_err(|m| PluginError::new(file, m))?;
    }
    let sha256 = digest(manifest_path, &code)?;
    Ok(Some(PluginSource {
        name,
        kind,
        path: code,
        manifest,
        sha256,
        lowered: Vec::new(),
    }))
}

fn check_name(name: &str, file: &Path) -> Result<(), PluginError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(PluginError::new(
            file,
            format!("`{name}` is not a plugin name (letters, digits, `_`, `-`, `.`)"),
        ))
    }
}

/// sha256 of the manifest, then of the code file (once, for a declarative plugin whose
/// manifest is its code).
fn digest(manifest: Option<&Path>, code: &Path) -> Result<String, PluginError> {
    let mut files: Vec<&Path> = manifest.into_iter().collect();
    if manifest != Some(code) {
        files.push(code);
    }
    let mut hasher = Sha256::new();
    for file in files {
        let bytes =
            std::fs::read(file).map_err(|e| PluginError::new(file, format!("cannot read: {e}")))?;
        hasher.update(&bytes);
    }
    Ok(hex(&hasher.finalize()))
}

/// The sha256 of a plugin's own digest followed by those of the plugins it uses.
pub fn combined_digest(own: &str, used: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for digest in std::iter::once(own).chain(used.iter().copied()) {
        hasher.update(digest.as_bytes());
    }
    hex(&hasher.finalize())
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some(extension)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The line (1-based) of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// A loaded plugin and what `cascade envs` says of it.
pub struct Loaded {
    pub env: Arc<dyn Environment>,
    /// The manifest's description, else a Python module's docstring.
    pub description: String,
}

/// Loads one plugin. `lookup` finds the environments a declarative plugin's `verifier`
/// components name (built-ins and plugins loaded before it).
pub fn load(
    source: &PluginSource,
    lookup: &declarative::Lookup<'_>,
) -> Result<Loaded, PluginError> {
    let described = source.manifest.description.clone();
    let (env, description): (Arc<dyn Environment>, String) = match source.kind {
        PluginKind::Python => {
            let plugin = python::PythonPlugin::load(source)?;
            let doc = plugin.doc().to_owned();
            (plugin, described.unwrap_or(doc))
        }
        PluginKind::Wasm => (
            wasm::WasmPlugin::load(source)?,
            described.unwrap_or_default(),
        ),
        PluginKind::Declarative => (
            declarative::DeclarativePlugin::load(source, lookup)?,
            described.unwrap_or_default(),
        ),
    };
    Ok(Loaded { env, description })
}

/// The names a declarative plugin's `verifier` components refer to.
pub fn references(source: &PluginSource) -> Vec<&str> {
    source
        .manifest
        .components
        .iter()
        .filter_map(|c| c.verifier.as_deref())
        .collect()
}

/// A plugin's run that ended without an answer: a scoring failure (the plugin, not the
/// model, failed): `scorer_limit` for its time, memory or output limit, else
/// `plugin_crash`.
pub(crate) fn ended(run: &Execution, limits: &Limits) -> Reward {
    let kind = match run.status {
        Status::TimeLimit | Status::MemoryLimit | Status::OutputLimit => {
            ScoringFailure::ScorerLimit
        }
        Status::Exited(_) | Status::Crashed(_) => ScoringFailure::PluginCrash,
    };
    Reward::failed(kind, ended_reason(run, limits))
}

/// Why a plugin's run ended without an answer, for `details.error`.
pub(crate) fn ended_reason(run: &Execution, limits: &Limits) -> String {
    match &run.status {
        Status::TimeLimit => format!(
            "the plugin ran past its time limit ({} s)",
            limits.time_limit_s()
        ),
        Status::MemoryLimit => format!(
            "the plugin ran out of memory ({} MiB)",
            limits.memory_bytes >> 20
        ),
        Status::OutputLimit => "the plugin wrote past its output limit".into(),
        Status::Exited(code) => format!(
            "the plugin exited with code {code}: {}",
            stderr_tail(&run.stderr_text())
        ),
        Status::Crashed(why) => format!("the plugin crashed: {why}"),
    }
}

fn stderr_tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" | ")
}

/// The JSON a Python or WASM plugin receives: the sample with `final_answer` added
/// (a string, or null when the response was cut off while thinking or is missing).
pub(crate) fn plugin_request(sample: &Sample) -> String {
    let mut value = sample.value().clone();
    if let Value::Object(fields) = &mut value {
        let answer = sample.final_answer().ok().map(str::to_owned);
        fields.insert(
            "final_answer".into(),
            answer.map_or(Value::Null, Value::String),
        );
    }
    value.to_string()
}

/// A plugin's prompt: the row's `prompt`, a string (one user message) or a list of
/// `{role, content}` messages.
pub(crate) fn prompt_of(row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
    match row.require("prompt")? {
        Value::String(text) => Ok(vec![ChatMessage::user(text.clone())]),
        value @ Value::Array(_) => serde_json::from_value(value.clone()).map_err(|_| {
            FieldError::wrong_type("prompt", "a string or a list of {role, content}", value)
        }),
        other => Err(FieldError::wrong_type(
            "prompt",
            "a string or a list of {role, content}",
            other,
        )),
    }
}
