//! The parsed form of a unified diff: files, their git metadata and their hunks.

/// A whole patch: every file section in the order it appeared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub files: Vec<FilePatch>,
}

/// What a file section does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    Modify,
    Create,
    Delete,
    Rename,
    Copy,
}

/// One file section (`diff --git` block or `---`/`+++` pair). Paths are raw: still
/// carrying their `a/` `b/` prefixes; `None` stands for `/dev/null`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub op: FileOp,
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    /// File mode after the patch (`new mode`, `new file mode`), e.g. `0o100755`.
    pub new_mode: Option<u32>,
    /// The section is a binary patch, which this crate does not apply.
    pub binary: bool,
    /// 1-based line of the patch where the section starts, for messages.
    pub line: usize,
    pub hunks: Vec<Hunk>,
}

/// One `@@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based first old line from the header (0 for an empty old side).
    pub old_start: usize,
    pub new_start: usize,
    pub lines: Vec<HunkLine>,
    /// The old side's last line has no final newline (`\ No newline at end of file`).
    pub old_no_newline: bool,
    pub new_no_newline: bool,
    /// The header's counts disagreed with the body and were recomputed from it.
    pub recounted: bool,
    /// 1-based line of the `@@` header.
    pub line: usize,
}

/// One body line of a hunk, without its `' '`/`-`/`+` marker and line ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Remove(String),
    Add(String),
}

impl HunkLine {
    pub fn text(&self) -> &str {
        match self {
            HunkLine::Context(t) | HunkLine::Remove(t) | HunkLine::Add(t) => t,
        }
    }
}

impl Hunk {
    /// The lines the old file must contain (context and removed lines), in order.
    pub fn old_lines(&self) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(|l| match l {
            HunkLine::Context(t) | HunkLine::Remove(t) => Some(t.as_str()),
            HunkLine::Add(_) => None,
        })
    }

    pub fn old_len(&self) -> usize {
        self.old_lines().count()
    }

    pub fn new_len(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| !matches!(l, HunkLine::Remove(_)))
            .count()
    }

    /// Leading context lines before the first change.
    pub fn prefix_context(&self) -> usize {
        self.lines
            .iter()
            .take_while(|l| matches!(l, HunkLine::Context(_)))
            .count()
    }

    /// Trailing context lines after the last change.
    pub fn suffix_context(&self) -> usize {
        self.lines
            .iter()
            .rev()
            .take_while(|l| matches!(l, HunkLine::Context(_)))
            .count()
    }
}

impl FilePatch {
    /// The path this section reads from (old side, or new side for a creation).
    pub fn source_path(&self) -> Option<&str> {
        self.old_path.as_deref().or(self.new_path.as_deref())
    }
}
