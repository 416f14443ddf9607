//! Why a patch could not be parsed or applied. Every variant names the bad input: a
//! patch line number, a path or a hunk.

use thiserror::Error;

/// The patch text is not a usable unified diff. `line` is 1-based in the patch text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    #[error("no unified diff found (no `---`/`+++` or `diff --git` file header)")]
    NoDiff,
    #[error("line {line}: garbled hunk header `{text}`")]
    BadHunkHeader { line: usize, text: String },
    #[error("line {line}: hunk header before any file header")]
    HunkOutsideFile { line: usize },
    #[error(
        "line {line}: `{text}` inside a hunk (expected a line starting with ' ', '-', '+' or '\\')"
    )]
    BadHunkLine { line: usize, text: String },
    #[error(
        "line {line}: hunk header promises {old_count} old and {new_count} new lines, but the \
         patch ends after {old_seen} and {new_seen} (truncated patch)"
    )]
    TruncatedHunk {
        line: usize,
        old_count: usize,
        new_count: usize,
        old_seen: usize,
        new_seen: usize,
    },
    #[error("line {line}: hunk has no body lines")]
    EmptyHunk { line: usize },
    #[error("line {line}: `\\ No newline at end of file` with no line before it")]
    StrayNoNewline { line: usize },
    #[error("line {line}: file section for `{path}` has no hunks")]
    NoHunks { line: usize, path: String },
    #[error("line {line}: unreadable path `{text}`")]
    BadPath { line: usize, text: String },
    #[error("line {line}: unreadable file mode `{text}`")]
    BadMode { line: usize, text: String },
}

/// A path in the patch that must not be touched. Any of these refuses the whole patch.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathError {
    #[error("absolute path `{0}` is outside the repository")]
    Absolute(String),
    #[error("path `{0}` climbs out of the repository with `..`")]
    ParentDir(String),
    #[error("path `{0}` is inside the `.git` directory")]
    GitDir(String),
    #[error("path `{0}` is empty after stripping its prefix")]
    Empty(String),
    #[error("path `{0}` contains a backslash or NUL byte")]
    Invalid(String),
}

/// The parsed patch does not fit the files it targets. Nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ApplyError {
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("patch has no hunks and no file operations")]
    NoChanges,
    #[error("`{path}` is a symlink mode (120000), which is refused")]
    SymlinkMode { path: String },
    #[error("`{path}` is a binary patch, which is not supported")]
    Binary { path: String },
    #[error("`{path}` does not exist")]
    Missing { path: String },
    #[error("`{path}` already exists")]
    Exists { path: String },
    #[error("`{path}` is not a regular UTF-8 text file inside the repository")]
    NotText { path: String },
    #[error("hunk {hunk} of `{path}` (patch line {line}) does not match the file")]
    HunkFailed {
        path: String,
        hunk: usize,
        line: usize,
    },
    #[error("deleting `{path}` would leave content behind")]
    DeleteLeavesContent { path: String },
}

/// An edit block that cannot be applied. Nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EditError {
    #[error("no SEARCH/REPLACE blocks found")]
    NoBlocks,
    #[error("line {line}: unterminated SEARCH/REPLACE block")]
    Unterminated { line: usize },
    #[error("line {line}: SEARCH/REPLACE block without a file path before it")]
    NoPath { line: usize },
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("block {block}: `{path}` does not exist")]
    Missing { block: usize, path: String },
    #[error("block {block}: `{path}` is not a regular UTF-8 text file inside the repository")]
    NotText { block: usize, path: String },
    #[error("block {block}: SEARCH text not found in `{path}`")]
    NotFound { block: usize, path: String },
    #[error("block {block}: SEARCH text matches {count} places in `{path}`")]
    Ambiguous {
        block: usize,
        path: String,
        count: usize,
    },
    #[error("block {block}: empty SEARCH for existing file `{path}`")]
    EmptySearch { block: usize, path: String },
}
