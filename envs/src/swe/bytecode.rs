//! Precompiled bytecode of the pytest wheels, one folder per WASI runtime.
//!
//! The guest never writes bytecode (reruns must match byte for byte, and the wheels
//! are mounted read-only), so without this every run would compile pytest from
//! source: about half of a small task's test time. Once per machine and runtime, a
//! guest compiles the wheels into a fresh folder under
//! `$CASCADE_CACHE/swe/pytest-bytecode/`, which is then renamed into place (so
//! concurrent processes never see half a folder) and mounted read-only at `/pyc`.
//! Bytecode only caches compilation: results are the same with or without it.

use std::path::{Path, PathBuf};

use cascade_sandboxes::module_cache::cache_root;
use cascade_sandboxes::{Limits, Mount, Python, Status};

use super::backend::PYTEST_DRIVER_PY;
use super::pytest_site::PytestSite;

/// Where the bytecode folder is mounted in the guest.
pub const GUEST_PYC: &str = "/pyc";

/// The bytecode folder for `python`'s runtime and `site`, built on first use; `None`
/// when it cannot be built (the tests then run from source, only slower).
pub fn bytecode_dir(python: &Python, site: &PytestSite) -> Option<PathBuf> {
    let root = cache_root().join("swe").join("pytest-bytecode");
    let dir = root.join(format!("{}_{}", python.runtime().name(), site.key));
    if dir.join(".complete").is_file() {
        return Some(dir);
    }
    let work = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in({
            std::fs::create_dir_all(&root).ok()?;
            &root
        })
        .ok()?;
    let out = work.path().join("pyc");
    let driver = work.path().join("driver");
    std::fs::create_dir(&out).ok()?;
    std::fs::create_dir(&driver).ok()?;
    std::fs::write(driver.join("pytest_driver.py"), PYTEST_DRIVER_PY).ok()?;
    let mut args = vec![
        "/driver/pytest_driver.py".to_owned(),
        "--warm".into(),
        GUEST_PYC.into(),
    ];
    args.extend(site.dirs.iter().map(|(_, guest)| guest.clone()));
    let mut invocation = python.invocation(&args);
    invocation.mounts.push(Mount::read_only(&driver, "/driver"));
    invocation.mounts.push(Mount::read_write(&out, GUEST_PYC));
    for (host, guest) in &site.dirs {
        invocation
            .mounts
            .push(Mount::read_only(host, guest.clone()));
    }
    invocation.temp_dir = true;
    let run = python.run(&invocation, &Limits::new(600.0, 1024)).ok()?;
    if run.status != Status::Exited(0) {
        return None;
    }
    std::fs::write(out.join(".complete"), site.key.as_bytes()).ok()?;
    publish(&out, &dir)
}

/// Renames the finished folder into place; another process may have won the race,
/// which is as good.
fn publish(built: &Path, dir: &Path) -> Option<PathBuf> {
    match std::fs::rename(built, dir) {
        Ok(()) => Some(dir.to_path_buf()),
        Err(_) if dir.join(".complete").is_file() => Some(dir.to_path_buf()),
        Err(_) => None,
    }
}
