//! The applier's view of a repository: a lookup of file contents by path, and the
//! changes it hands back. The caller does the I/O, so patching stays pure.

use std::collections::BTreeMap;

/// What a path holds, as far as patching is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Missing,
    Text(String),
    /// A directory, a symlink, a binary or non-UTF-8 file, or anything that resolves
    /// outside the repository: never patched.
    NotText,
}

/// A read-only source of file contents, keyed by normalised repository path.
pub trait FileTree {
    fn lookup(&self, path: &str) -> Lookup;
}

/// An in-memory tree: the simplest [`FileTree`], used by tests and by callers that
/// already hold the files.
impl FileTree for BTreeMap<String, String> {
    fn lookup(&self, path: &str) -> Lookup {
        match self.get(path) {
            Some(text) => Lookup::Text(text.clone()),
            None => Lookup::Missing,
        }
    }
}

/// One file's final state after a successful patch. `content: None` deletes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub content: Option<String>,
    /// Permission bits to set (`0o755`), when the patch changed the mode.
    pub mode: Option<u32>,
}

/// Applies changes to an in-memory tree (for tests and dry runs).
pub fn apply_changes(tree: &mut BTreeMap<String, String>, changes: &[FileChange]) {
    for change in changes {
        match &change.content {
            Some(text) => {
                tree.insert(change.path.clone(), text.clone());
            }
            None => {
                tree.remove(&change.path);
            }
        }
    }
}
