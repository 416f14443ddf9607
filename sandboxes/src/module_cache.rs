//! Compiled modules cached on disk and in memory.
//!
//! Compiling a CPython runtime takes seconds to minutes; it must happen once per
//! machine, not once per run. A compiled module is stored as
//! `$CASCADE_CACHE/modules/<key>.cwasm`, where the key hashes the module bytes, the
//! wasmtime version and the engine's compatibility hash (its settings), so a changed
//! setting or upgrade never loads a stale artifact. Loading maps the file (milliseconds).
//! Within a process each module is loaded once and shared.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};
use wasmtime::{Engine, Module};

use crate::error::SandboxError;

/// `$CASCADE_CACHE`, or `~/.cache/cascade`.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("CASCADE_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("cascade")
}

/// The wasmtime release series this crate is built against (the engine's
/// compatibility hash covers the exact version and settings as well).
const WASMTIME_MAJOR: &str = "wasmtime-48";

type Loaded = Arc<Mutex<HashMap<String, Module>>>;

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(Loaded::default)
}

/// The cache key of module bytes under this engine.
pub fn cache_key(engine: &Engine, wasm: &[u8]) -> String {
    let mut compat = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut compat);
    let mut h = Sha256::new();
    h.update(wasm);
    h.update(WASMTIME_MAJOR.as_bytes());
    h.update(compat.finish().to_le_bytes());
    hex(&h.finalize())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The compiled module for a `.wasm` file, from memory, disk cache, or compiled now
/// (and then stored).
pub fn load_file(engine: &Engine, path: &Path) -> Result<Module, SandboxError> {
    let wasm = std::fs::read(path).map_err(|source| SandboxError::Io {
        path: path.to_owned(),
        source,
    })?;
    load_bytes(engine, &wasm, &path.display().to_string())
}

/// The compiled module for wasm bytes (see [`load_file`]); `what` names it in errors.
pub fn load_bytes(engine: &Engine, wasm: &[u8], what: &str) -> Result<Module, SandboxError> {
    let key = cache_key(engine, wasm);
    // Hold the lock while compiling: two threads asking for the same module must not
    // both spend a minute compiling it.
    let mut map = loaded().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = map.get(&key) {
        return Ok(m.clone());
    }
    let dir = cache_root().join("modules");
    let file = dir.join(format!("{key}.cwasm"));
    let module = match deserialize(engine, &file) {
        Some(m) => m,
        None => {
            let compiled = engine.precompile_module(wasm).map_err(|e| SandboxError::Module {
                what: what.to_owned(),
                message: format!("does not compile: {e:#}"),
            })?;
            // A cache we cannot write is only slower, never wrong.
            let _ = store_atomically(&dir, &file, &compiled);
            // SAFETY: the bytes were produced by this engine's `precompile_module` just now.
            unsafe { Module::deserialize(engine, &compiled) }.map_err(|e| SandboxError::Module {
                what: what.to_owned(),
                message: format!("{e:#}"),
            })?
        }
    };
    map.insert(key, module.clone());
    Ok(module)
}

fn deserialize(engine: &Engine, file: &Path) -> Option<Module> {
    if !file.is_file() {
        return None;
    }
    // SAFETY: files in the module cache are only ever written by `store_atomically`
    // from `Engine::precompile_module`, under a key that includes the wasmtime version
    // and the engine's settings; wasmtime also checks the header before using it.
    unsafe { Module::deserialize_file(engine, file) }.ok()
}

fn store_atomically(dir: &Path, file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Compiles wasm bytes without touching the disk cache (for one-off programs such as
/// compiled C/C++ submissions, which compile in milliseconds).
pub fn load_bytes_uncached(engine: &Engine, wasm: &[u8], what: &str) -> Result<Module, SandboxError> {
    Module::new(engine, wasm).map_err(|e| SandboxError::Module {
        what: what.to_owned(),
        message: format!("does not compile: {e:#}"),
    })
}
