//! From a model's whole response to file changes: finds the edit (SEARCH/REPLACE
//! blocks, a fenced diff or a bare diff), applies it and reports what happened.
//!
//! Fenced diffs: every fenced block that holds a diff header is a candidate. Working
//! back from the last one, blocks are taken while they touch files no later block
//! touches, so a diff split per file is applied whole, while an earlier draft of the
//! same change is ignored in favour of the final one.
//!
//! Truncation: a response cut off inside a hunk fails to parse (see
//! [`super::parse`]). Fences tell more: a diff in a fence the response closed is
//! whole, so a short last hunk there is a miscount and is recounted; an unclosed
//! final fence is where the cut is visible, so a diff there whose last line has no
//! newline was cut mid-line and is refused, even when the hunk counts are met.

use std::collections::BTreeSet;

use serde::Serialize;

use super::apply::{apply_patch, ApplyOptions, HunkReport};
use super::edit_blocks::{apply_edit_blocks, has_edit_blocks, parse_edit_blocks, BlockReport};
use super::model::Patch;
use super::parse::{parse_patch, parse_whole_patch};
use super::tree::{FileChange, FileTree};

/// Which kind of edit the response held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditFormat {
    Diff,
    EditBlocks,
    None,
}

/// The result of applying a response: either `changes` to write, or an `error`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseOutcome {
    pub format: EditFormat,
    pub applied: bool,
    pub changes: Vec<FileChange>,
    pub hunks: Vec<HunkReport>,
    pub blocks: Vec<BlockReport>,
    pub error: Option<String>,
}

impl ResponseOutcome {
    fn failed(format: EditFormat, error: String, hunks: Vec<HunkReport>) -> Self {
        Self {
            format,
            applied: false,
            changes: Vec::new(),
            hunks,
            blocks: Vec::new(),
            error: Some(error),
        }
    }
}

/// Finds and applies the edit in `response`. Never panics; every failure is
/// `applied: false` with the reason.
pub fn apply_response(
    response: &str,
    tree: &dyn FileTree,
    options: &ApplyOptions,
) -> ResponseOutcome {
    if has_edit_blocks(response) {
        let applied = parse_edit_blocks(response).and_then(|b| apply_edit_blocks(&b, tree));
        return match applied {
            Ok(done) => ResponseOutcome {
                format: EditFormat::EditBlocks,
                applied: true,
                changes: done.changes,
                hunks: Vec::new(),
                blocks: done.blocks,
                error: None,
            },
            Err(e) => ResponseOutcome::failed(EditFormat::EditBlocks, e.to_string(), Vec::new()),
        };
    }
    let patch = match extract_patch(response) {
        Ok(Some(p)) => p,
        Ok(None) => {
            return ResponseOutcome::failed(
                EditFormat::None,
                "response holds no diff and no SEARCH/REPLACE blocks".to_owned(),
                Vec::new(),
            )
        }
        Err(e) => return ResponseOutcome::failed(EditFormat::Diff, e, Vec::new()),
    };
    match apply_patch(&patch, tree, options) {
        Ok(done) => ResponseOutcome {
            format: EditFormat::Diff,
            applied: true,
            changes: done.changes,
            hunks: done.hunks,
            blocks: Vec::new(),
            error: None,
        },
        Err(rejected) => {
            ResponseOutcome::failed(EditFormat::Diff, rejected.error.to_string(), rejected.hunks)
        }
    }
}

/// Applies a patch given as plain diff text (a dataset's `test_patch` or gold patch).
pub fn apply_diff_text(text: &str, tree: &dyn FileTree, options: &ApplyOptions) -> ResponseOutcome {
    match parse_patch(text) {
        Ok(patch) => match apply_patch(&patch, tree, options) {
            Ok(done) => ResponseOutcome {
                format: EditFormat::Diff,
                applied: true,
                changes: done.changes,
                hunks: done.hunks,
                blocks: Vec::new(),
                error: None,
            },
            Err(r) => ResponseOutcome::failed(EditFormat::Diff, r.error.to_string(), r.hunks),
        },
        Err(e) => ResponseOutcome::failed(EditFormat::Diff, e.to_string(), Vec::new()),
    }
}

/// The diff in a response: from fenced blocks when any holds a diff, else the whole
/// text. `Ok(None)` when there is nothing diff-like at all.
pub fn extract_patch(response: &str) -> Result<Option<Patch>, String> {
    let blocks = fenced_blocks(response);
    let cut_mid_line = blocks
        .last()
        .is_some_and(|b| !b.closed && looks_like_diff(&b.body) && !b.body.ends_with('\n'));
    if cut_mid_line {
        return Err(
            "the response ends inside a fenced diff, in the middle of a line (truncated patch)"
                .to_owned(),
        );
    }
    let fenced: Vec<Fenced> = blocks
        .into_iter()
        .filter(|b| looks_like_diff(&b.body))
        .collect();
    if fenced.is_empty() {
        if !looks_like_diff(response) {
            return Ok(None);
        }
        return parse_patch(response).map(Some).map_err(|e| e.to_string());
    }
    let mut chosen: Vec<Patch> = Vec::new();
    let mut touched: BTreeSet<String> = BTreeSet::new();
    for (k, block) in fenced.iter().enumerate().rev() {
        // A closed fence shows the diff ended where its author meant it to.
        let parsed = if block.closed {
            parse_whole_patch(&block.body)
        } else {
            parse_patch(&block.body)
        };
        let patch = match parsed {
            Ok(p) => p,
            // The final block must parse; an earlier broken draft is simply dropped.
            Err(e) if k + 1 == fenced.len() => return Err(e.to_string()),
            Err(_) => break,
        };
        let paths: BTreeSet<String> = patch
            .files
            .iter()
            .flat_map(|f| [f.old_path.clone(), f.new_path.clone()])
            .flatten()
            .map(|p| {
                p.trim_start_matches("a/")
                    .trim_start_matches("b/")
                    .to_owned()
            })
            .collect();
        if !chosen.is_empty() && !touched.is_disjoint(&paths) {
            break;
        }
        touched.extend(paths);
        chosen.push(patch);
    }
    chosen.reverse();
    Ok(Some(Patch {
        files: chosen.into_iter().flat_map(|p| p.files).collect(),
    }))
}

fn looks_like_diff(text: &str) -> bool {
    let mut prev_minus = false;
    for line in text.lines() {
        if line.starts_with("diff --git ") || line.starts_with("@@ -") {
            return true;
        }
        if prev_minus && line.starts_with("+++ ") {
            return true;
        }
        prev_minus = line.starts_with("--- ");
    }
    false
}

/// The content of one markdown fenced block.
struct Fenced {
    body: String,
    /// False for a fence still open at the end of the response (it was cut off).
    closed: bool,
}

/// Contents of markdown fenced blocks. Fences must start in column 0 so diff body
/// lines such as ` ```` (context of a markdown file) never close a block.
fn fenced_blocks(text: &str) -> Vec<Fenced> {
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match &mut current {
            None => {
                if let Some(fence) = fence_of(bare) {
                    current = Some((fence, String::new()));
                }
            }
            Some((fence, body)) => {
                if bare.trim_end() == fence.as_str() {
                    blocks.push(Fenced {
                        body: std::mem::take(body),
                        closed: true,
                    });
                    current = None;
                } else {
                    body.push_str(line);
                }
            }
        }
    }
    if let Some((_, body)) = current {
        // An unclosed fence (the response was cut off) still holds the diff.
        blocks.push(Fenced {
            body,
            closed: false,
        });
    }
    blocks
}

fn fence_of(line: &str) -> Option<String> {
    for ch in ['`', '~'] {
        let n = line.chars().take_while(|&c| c == ch).count();
        if n >= 3 {
            return Some(std::iter::repeat_n(ch, n).collect());
        }
    }
    None
}
