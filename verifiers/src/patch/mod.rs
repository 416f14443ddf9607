//! Patches: parsing unified diffs and SEARCH/REPLACE edit blocks, and applying them
//! to an in-memory view of a repository.
//!
//! The SWE-bench harness applies a model patch with `git apply`, then `--reject`,
//! then `patch --fuzz=5`; this module is one applier with the same tolerance,
//! written so it can never half-apply a patch or write outside the repository:
//!
//! - [`parse_patch`]: multi-file unified diffs with git headers (new, deleted,
//!   renamed, copied files, modes, quoted paths, `/dev/null`, `\ No newline at end
//!   of file`, CRLF content, missing hunk counts). Errors name the patch line.
//!   Truncation: a hunk whose body reaches the end of the patch before its header's
//!   counts are met is a response cut off mid-hunk, and the whole patch is refused
//!   (as `git apply` refuses a corrupt patch; GNU `patch` instead pads up to two
//!   missing lines as blank context and may apply the rest with fuzz). A header whose
//!   counts are merely wrong while the body is complete (it runs past the counts, or
//!   the next `@@` or file header follows early, or the diff is in a fenced block the
//!   response closed) is recounted from the body, where `git apply` would refuse:
//!   models often miscount. A bare diff missing only its final newline is accepted
//!   (git refuses it too); inside an unclosed fence, where the cut is visible, a last
//!   line without a newline is a truncation.
//! - [`apply_patch`]: offset search, fuzz and a whitespace-tolerant fallback, with a
//!   per-hunk report (exact, offset, fuzz, whitespace, failed). All or nothing; any
//!   path escaping the repository refuses the whole patch.
//! - [`parse_edit_blocks`] / [`apply_edit_blocks`]: the agentless SEARCH/REPLACE
//!   format, exact then whitespace-normalised; ambiguous or missing matches fail.
//! - [`apply_response`]: finds whichever of these a model response holds.
//!
//! ```
//! use std::collections::BTreeMap;
//! use cascade_verifiers::patch::{apply_patch, parse_patch, ApplyOptions};
//! let tree = BTreeMap::from([("x.py".to_owned(), "a\nb\n".to_owned())]);
//! let patch = parse_patch("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n").unwrap();
//! let done = apply_patch(&patch, &tree, &ApplyOptions::default()).unwrap();
//! assert_eq!(done.changes[0].content.as_deref(), Some("a\nc\n"));
//! ```
//!
//! Not done here: binary patches, symlink creation (mode 120000 is refused), and
//! any I/O. Callers read files through a [`FileTree`] and write the changes.

mod apply;
mod edit_blocks;
mod error;
mod lines;
mod locate;
mod model;
mod parse;
mod paths;
mod response;
mod tree;

pub use apply::{apply_patch, Applied, ApplyOptions, HunkReport, HunkStatus, Rejected};
pub use edit_blocks::{
    apply_edit_blocks, has_edit_blocks, parse_edit_blocks, BlockReport, BlockStatus, EditBlock,
    EditsApplied,
};
pub use error::{ApplyError, EditError, ParseError, PathError};
pub use model::{FileOp, FilePatch, Hunk, HunkLine, Patch};
pub use parse::parse_patch;
pub use paths::{check_relative, repo_path};
pub use response::{apply_diff_text, apply_response, extract_patch, EditFormat, ResponseOutcome};
pub use tree::{apply_changes, FileChange, FileTree, Lookup};
