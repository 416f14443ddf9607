//! Applying a parsed patch to a [`FileTree`], all or nothing.
//!
//! Every path is checked before anything else: one path outside the repository
//! refuses the whole patch. Then every hunk of every file is located (see
//! [`super::locate`]) against an in-memory overlay, so several sections may touch the
//! same file. Only when every hunk found its place are the final file states handed
//! back; on any failure the caller gets the per-hunk report and no changes.

use std::collections::BTreeMap;

use serde::Serialize;

use super::error::ApplyError;
use super::lines::{self, strip_cr, Eol, Line};
use super::locate::{locate, Search};
use super::model::{FileOp, FilePatch, Hunk, HunkLine, Patch};
use super::paths::repo_path;
use super::tree::{FileChange, FileTree, Lookup};

/// How tolerant the applier is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyOptions {
    /// `-p` level; `None` guesses it (git's `a/` `b/` first, then none).
    pub strip: Option<usize>,
    /// Like `patch --fuzz`: outer context lines a hunk may ignore. GNU's default is 2;
    /// SWE-bench's last fallback uses 5.
    pub max_fuzz: usize,
    /// Retry failed hunks comparing lines with whitespace runs collapsed.
    pub whitespace_fallback: bool,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        Self {
            strip: None,
            max_fuzz: 2,
            whitespace_fallback: true,
        }
    }
}

/// How one hunk applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HunkStatus {
    Exact,
    Offset,
    Fuzz,
    Whitespace,
    Failed,
}

/// One hunk's outcome, for `details`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HunkReport {
    pub file: String,
    /// 1-based within its file section.
    pub hunk: usize,
    /// The `@@` header's line in the patch.
    pub line: usize,
    pub status: HunkStatus,
    /// Lines between the header's position and where it applied.
    pub offset: i64,
    pub fuzz: usize,
}

/// A patch that applied: the files to write or delete, in path order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub changes: Vec<FileChange>,
    pub hunks: Vec<HunkReport>,
    pub strip: usize,
}

/// A patch that did not apply; nothing may be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub error: ApplyError,
    pub hunks: Vec<HunkReport>,
}

impl Rejected {
    fn bare(error: ApplyError) -> Self {
        Self {
            error,
            hunks: Vec::new(),
        }
    }
}

/// Applies `patch` to `tree`, all or nothing.
pub fn apply_patch(
    patch: &Patch,
    tree: &dyn FileTree,
    options: &ApplyOptions,
) -> Result<Applied, Rejected> {
    if patch
        .files
        .iter()
        .all(|f| f.hunks.is_empty() && f.op == FileOp::Modify && f.new_mode.is_none())
    {
        return Err(Rejected::bare(ApplyError::NoChanges));
    }
    let strip = choose_strip(patch, tree, options.strip).map_err(Rejected::bare)?;
    let mut work = Overlay {
        tree,
        files: BTreeMap::new(),
        modes: BTreeMap::new(),
    };
    let mut reports = Vec::new();
    let mut first_error = None;
    for file in &patch.files {
        if let Err(e) = apply_file(file, strip, &mut work, options, &mut reports) {
            first_error.get_or_insert(e);
        }
    }
    if let Some(error) = first_error {
        return Err(Rejected {
            error,
            hunks: reports,
        });
    }
    let mut changes: Vec<FileChange> = work
        .files
        .into_iter()
        .map(|(path, content)| FileChange {
            mode: work.modes.get(&path).copied(),
            path,
            content,
        })
        .collect();
    for (path, mode) in &work.modes {
        if !changes.iter().any(|c| &c.path == path) {
            changes.push(FileChange {
                path: path.clone(),
                content: match tree.lookup(path) {
                    Lookup::Text(t) => Some(t),
                    _ => None,
                },
                mode: Some(*mode),
            });
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Applied {
        changes,
        hunks: reports,
        strip,
    })
}

/// The tree as modified so far by earlier sections of the same patch.
struct Overlay<'a> {
    tree: &'a dyn FileTree,
    files: BTreeMap<String, Option<String>>,
    modes: BTreeMap<String, u32>,
}

impl Overlay<'_> {
    fn lookup(&self, path: &str) -> Lookup {
        match self.files.get(path) {
            Some(Some(text)) => Lookup::Text(text.clone()),
            Some(None) => Lookup::Missing,
            None => self.tree.lookup(path),
        }
    }
}

fn raw_paths(patch: &Patch) -> impl Iterator<Item = &str> {
    patch
        .files
        .iter()
        .flat_map(|f| [f.old_path.as_deref(), f.new_path.as_deref()])
        .flatten()
}

/// The `-p` level: the given one, or the first candidate under which every file the
/// patch reads exists. Paths are checked first under every candidate, so an escape
/// is refused whatever level would be picked.
fn choose_strip(
    patch: &Patch,
    tree: &dyn FileTree,
    given: Option<usize>,
) -> Result<usize, ApplyError> {
    if let Some(level) = given {
        for raw in raw_paths(patch) {
            repo_path(raw, level)?;
        }
        return Ok(level);
    }
    let git_style = raw_paths(patch).all(|p| p.starts_with("a/") || p.starts_with("b/"));
    let candidates: [usize; 2] = if git_style { [1, 0] } else { [0, 1] };
    let mut usable = Vec::new();
    for level in candidates {
        let mut ok = true;
        for raw in raw_paths(patch) {
            match repo_path(raw, level) {
                Ok(_) => {}
                Err(super::error::PathError::Empty(_)) => ok = false,
                Err(e) => return Err(e.into()),
            }
        }
        if ok {
            usable.push(level);
        }
    }
    let first = *usable.first().ok_or_else(|| {
        let raw = raw_paths(patch).next().unwrap_or_default().to_owned();
        ApplyError::Path(super::error::PathError::Empty(raw))
    })?;
    let all_sources_exist = |level: usize| {
        patch.files.iter().all(|f| match (f.op, &f.old_path) {
            (FileOp::Create, _) | (_, None) => true,
            (_, Some(old)) => repo_path(old, level)
                .map(|p| tree.lookup(&p) != Lookup::Missing)
                .unwrap_or(false),
        })
    };
    Ok(usable
        .iter()
        .copied()
        .find(|&l| all_sources_exist(l))
        .unwrap_or(first))
}

fn apply_file(
    file: &FilePatch,
    strip: usize,
    work: &mut Overlay<'_>,
    options: &ApplyOptions,
    reports: &mut Vec<HunkReport>,
) -> Result<(), ApplyError> {
    let old = file
        .old_path
        .as_deref()
        .map(|p| repo_path(p, strip))
        .transpose()?;
    let new = file
        .new_path
        .as_deref()
        .map(|p| repo_path(p, strip))
        .transpose()?;
    let shown = new.clone().or_else(|| old.clone()).unwrap_or_default();
    if file.binary {
        return Err(ApplyError::Binary { path: shown });
    }
    if file.new_mode.is_some_and(|m| m & 0o170000 == 0o120000) {
        return Err(ApplyError::SymlinkMode { path: shown });
    }
    let read = |work: &Overlay<'_>, path: &str| match work.lookup(path) {
        Lookup::Text(t) => Ok(t),
        Lookup::Missing => Err(ApplyError::Missing {
            path: path.to_owned(),
        }),
        Lookup::NotText => Err(ApplyError::NotText {
            path: path.to_owned(),
        }),
    };
    let must_be_absent = |work: &Overlay<'_>, path: &str| match work.lookup(path) {
        Lookup::Missing => Ok(()),
        Lookup::Text(t) if t.is_empty() => Ok(()),
        _ => Err(ApplyError::Exists {
            path: path.to_owned(),
        }),
    };
    let (source, target, keep_source) = match (file.op, old, new) {
        (FileOp::Create, _, Some(new)) => {
            must_be_absent(work, &new)?;
            (None, Some(new), false)
        }
        (FileOp::Delete, Some(old), _) => (Some(old), None, false),
        (FileOp::Rename | FileOp::Copy, Some(old), Some(new)) => {
            if old != new {
                must_be_absent(work, &new)?;
            }
            (Some(old), Some(new), file.op == FileOp::Copy)
        }
        (_, Some(old), Some(new)) => {
            // Plain diffs may name a backup file on one side; patch the one that exists.
            let path = if work.lookup(&old) != Lookup::Missing {
                old
            } else {
                new
            };
            (Some(path.clone()), Some(path), true)
        }
        (_, old, new) => {
            return Err(ApplyError::Missing {
                path: old.or(new).unwrap_or_default(),
            })
        }
    };
    let original = match &source {
        Some(path) => read(work, path)?,
        None => String::new(),
    };
    let patched = apply_hunks(&original, &file.hunks, &shown, options, reports)?;
    if let Some(src) = &source {
        if !keep_source && target.as_deref() != Some(src.as_str()) {
            work.files.insert(src.clone(), None);
        }
    }
    match target {
        Some(path) => {
            if let Some(mode) = file.new_mode {
                work.modes.insert(path.clone(), mode & 0o777);
            }
            work.files.insert(path, Some(patched));
        }
        None => {
            if !patched.is_empty() {
                return Err(ApplyError::DeleteLeavesContent {
                    path: source.unwrap_or_default(),
                });
            }
        }
    }
    Ok(())
}

/// Applies one file's hunks in order; reports each, and fails after trying them all.
fn apply_hunks(
    original: &str,
    hunks: &[Hunk],
    path: &str,
    options: &ApplyOptions,
    reports: &mut Vec<HunkReport>,
) -> Result<String, ApplyError> {
    let old = lines::split(original);
    let eol_for_file = lines::dominant(&old);
    let mut out: Vec<Line> = Vec::with_capacity(old.len());
    let mut copied = 0usize;
    let mut drift: i64 = 0;
    let mut failure = None;
    for (i, hunk) in hunks.iter().enumerate() {
        let declared = if hunk.old_len() == 0 {
            hunk.old_start
        } else {
            hunk.old_start.saturating_sub(1)
        };
        let guess = (declared as i64 + drift).max(0) as usize;
        let search = Search {
            guess,
            min_at: copied,
            max_fuzz: options.max_fuzz,
            whitespace_fallback: options.whitespace_fallback,
        };
        let mut report = HunkReport {
            file: path.to_owned(),
            hunk: i + 1,
            line: hunk.line,
            status: HunkStatus::Failed,
            offset: 0,
            fuzz: 0,
        };
        let Some(loc) = locate(&old, hunk, &search) else {
            reports.push(report);
            failure.get_or_insert(ApplyError::HunkFailed {
                path: path.to_owned(),
                hunk: i + 1,
                line: hunk.line,
            });
            continue;
        };
        report.offset = loc.at as i64 - declared as i64;
        report.fuzz = loc.fuzz;
        report.status = if loc.whitespace {
            HunkStatus::Whitespace
        } else if loc.fuzz > 0 {
            HunkStatus::Fuzz
        } else if report.offset != 0 {
            HunkStatus::Offset
        } else {
            HunkStatus::Exact
        };
        reports.push(report);
        drift = loc.at as i64 - declared as i64;
        out.extend_from_slice(&old[copied..loc.at]);
        let mut cursor = loc.at;
        let new_eol = eol_for_file.unwrap_or(Eol::Lf);
        let last_new = hunk
            .lines
            .iter()
            .rposition(|l| !matches!(l, HunkLine::Remove(_)));
        for (j, line) in hunk.lines.iter().enumerate() {
            match line {
                HunkLine::Context(_) => {
                    if let Some(l) = old.get(cursor) {
                        out.push(l.clone());
                    }
                    cursor += 1;
                }
                HunkLine::Remove(_) => cursor += 1,
                HunkLine::Add(text) => {
                    let eol = if hunk.new_no_newline && Some(j) == last_new {
                        Eol::None
                    } else if eol_for_file.is_none() && text.ends_with('\r') {
                        Eol::CrLf
                    } else {
                        new_eol
                    };
                    out.push(Line {
                        text: strip_cr(text).to_owned(),
                        eol,
                    });
                }
            }
        }
        copied = cursor.min(old.len());
    }
    if let Some(e) = failure {
        return Err(e);
    }
    out.extend_from_slice(&old[copied..]);
    Ok(lines::join(&out, eol_for_file.unwrap_or(Eol::Lf)))
}
