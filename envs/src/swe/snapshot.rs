//! The working copy: the repository snapshot copied into a fresh temporary folder,
//! read and written only through checks that keep every access inside it.
//!
//! The original snapshot is never modified. Symlinks are copied only when they are
//! relative and stay inside the snapshot; an absolute one, or one that climbs out,
//! makes the copy fail. Reads and writes of the patch never pass through a symlink.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use cascade_verifiers::patch::{FileChange, FileTree, Lookup};
use thiserror::Error;

/// Folders not copied: version control and caches that tests never need. `.git` above
/// all: a snapshot's history may hold the fix itself (commits, refs or packed objects
/// newer than the base commit, SWE-bench issue 465), and neither the tests nor the
/// patch need it, so no part of it reaches the working copy.
const SKIPPED_DIRS: [&str; 5] = [
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".tox",
    ".mypy_cache",
];

#[derive(Debug, Error)]
pub enum SnapshotError {
    #[error("repository `{0}` is not a directory")]
    NotADirectory(String),
    #[error("symlink `{path}` leads outside the repository (to `{target}`)")]
    SymlinkEscapes { path: String, target: String },
    #[error("cannot copy `{path}`: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("the repository holds more than {limit} bytes, this server's copy limit")]
    TooLarge { limit: u64 },
    #[error("refusing to write `{0}`: it passes through a symlink or non-directory")]
    UnsafeWrite(String),
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SnapshotError + '_ {
    move |source| SnapshotError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Copies `src` into `dst` (which must exist and be empty).
pub fn copy_snapshot(src: &Path, dst: &Path) -> Result<u64, SnapshotError> {
    copy_snapshot_within(src, dst, u64::MAX)
}

/// [`copy_snapshot`], refusing (before copying it) a file that would take the copy past
/// `limit` bytes.
pub fn copy_snapshot_within(src: &Path, dst: &Path, limit: u64) -> Result<u64, SnapshotError> {
    if !src.is_dir() {
        return Err(SnapshotError::NotADirectory(src.display().to_string()));
    }
    let mut bytes = Budget { used: 0, limit };
    copy_dir(src, dst, Path::new(""), &mut bytes)?;
    Ok(bytes.used)
}

/// Bytes copied so far, and the most allowed.
struct Budget {
    used: u64,
    limit: u64,
}

fn copy_dir(src: &Path, dst: &Path, rel: &Path, bytes: &mut Budget) -> Result<(), SnapshotError> {
    let mut entries: Vec<_> = fs::read_dir(src)
        .map_err(io_err(src))?
        .collect::<Result<_, _>>()
        .map_err(io_err(src))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let from = entry.path();
        let to = dst.join(&name);
        let rel_path = rel.join(&name);
        let kind = entry.file_type().map_err(io_err(&from))?;
        if kind.is_symlink() {
            let target = fs::read_link(&from).map_err(io_err(&from))?;
            if !link_stays_inside(rel, &target) {
                return Err(SnapshotError::SymlinkEscapes {
                    path: rel_path.display().to_string(),
                    target: target.display().to_string(),
                });
            }
            std::os::unix::fs::symlink(&target, &to).map_err(io_err(&to))?;
        } else if kind.is_dir() {
            if SKIPPED_DIRS.iter().any(|d| name == *d) {
                continue;
            }
            fs::create_dir(&to).map_err(io_err(&to))?;
            copy_dir(&from, &to, &rel_path, bytes)?;
        } else if kind.is_file() {
            let len = entry.metadata().map_err(io_err(&from))?.len();
            if bytes.used.saturating_add(len) > bytes.limit {
                return Err(SnapshotError::TooLarge { limit: bytes.limit });
            }
            bytes.used += fs::copy(&from, &to).map_err(io_err(&from))?;
        }
    }
    Ok(())
}

/// A relative symlink in folder `rel` (relative to the root) pointing at `target`
/// stays inside the root when resolved lexically.
fn link_stays_inside(rel: &Path, target: &Path) -> bool {
    if target.is_absolute() {
        return false;
    }
    let mut depth: i64 = rel.components().count() as i64;
    for c in target.components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return false,
        }
        if depth < 0 {
            return false;
        }
    }
    true
}

/// The working copy as the patch applier sees it.
pub struct DiskTree {
    root: PathBuf,
}

impl DiskTree {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The on-disk path for a repository path, or `None` when any existing component
    /// is a symlink (or a non-final component is not a directory).
    fn safe_path(&self, rel: &str) -> Option<PathBuf> {
        let mut path = self.root.clone();
        let parts: Vec<&str> = rel.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            if part.is_empty() || *part == "." || *part == ".." {
                return None;
            }
            path.push(part);
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => return None,
                Ok(meta) if i + 1 < parts.len() && !meta.is_dir() => return None,
                Ok(_) => {}
                Err(_) => {}
            }
        }
        Some(path)
    }

    /// A file's text, when it is a UTF-8 file reached without symlinks.
    pub fn read_text(&self, path: &str) -> Option<String> {
        match self.lookup(path) {
            Lookup::Text(text) => Some(text),
            _ => None,
        }
    }

    /// Writes or deletes the files of a successful patch.
    pub fn write(&self, changes: &[FileChange]) -> Result<(), SnapshotError> {
        for change in changes {
            let path = self
                .safe_path(&change.path)
                .ok_or_else(|| SnapshotError::UnsafeWrite(change.path.clone()))?;
            match &change.content {
                Some(text) => {
                    if let Some(parent) = path.parent() {
                        fs::create_dir_all(parent).map_err(io_err(parent))?;
                    }
                    // Re-check: creating parents must not have crossed a symlink.
                    if self.safe_path(&change.path).is_none() {
                        return Err(SnapshotError::UnsafeWrite(change.path.clone()));
                    }
                    if let Err(e) = fs::write(&path, text) {
                        // A read-only file in the snapshot: the copy is ours to change.
                        if e.kind() != io::ErrorKind::PermissionDenied {
                            return Err(io_err(&path)(e));
                        }
                        use std::os::unix::fs::PermissionsExt;
                        fs::set_permissions(&path, fs::Permissions::from_mode(0o644))
                            .and_then(|_| fs::write(&path, text))
                            .map_err(io_err(&path))?;
                    }
                    if let Some(mode) = change.mode {
                        use std::os::unix::fs::PermissionsExt;
                        fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o777))
                            .map_err(io_err(&path))?;
                    }
                }
                None => match fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_err(&path)(e)),
                },
            }
        }
        Ok(())
    }
}

impl FileTree for DiskTree {
    fn lookup(&self, path: &str) -> Lookup {
        let Some(full) = self.safe_path(path) else {
            return Lookup::NotText;
        };
        match fs::symlink_metadata(&full) {
            Err(_) => Lookup::Missing,
            Ok(meta) if !meta.is_file() => Lookup::NotText,
            Ok(_) => match fs::read(&full).map(String::from_utf8) {
                Ok(Ok(text)) => Lookup::Text(text),
                _ => Lookup::NotText,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_history_never_reaches_the_working_copy() {
        let src = tempfile::tempdir().unwrap();
        let dst = tempfile::tempdir().unwrap();
        for (rel, text) in [
            (".git/refs/heads/fix", "0123"),
            (".git/objects/pack/p.pack", "future"),
            ("pkg/__pycache__/m.pyc", "x"),
            ("pkg/m.py", "x = 1\n"),
        ] {
            let p = src.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        copy_snapshot(src.path(), dst.path()).unwrap();
        assert!(!dst.path().join(".git").exists());
        assert!(!dst.path().join("pkg/__pycache__").exists());
        assert_eq!(
            fs::read_to_string(dst.path().join("pkg/m.py")).unwrap(),
            "x = 1\n"
        );
    }

    #[test]
    fn symlinks_inside_are_fine_outside_are_not() {
        assert!(link_stays_inside(Path::new("a/b"), Path::new("../c")));
        assert!(link_stays_inside(Path::new(""), Path::new("x/../y")));
        assert!(!link_stays_inside(Path::new("a"), Path::new("../../etc")));
        assert!(!link_stays_inside(Path::new(""), Path::new("/etc/passwd")));
    }
}
