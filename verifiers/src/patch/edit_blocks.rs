//! SEARCH/REPLACE edit blocks, the agentless format models are asked for instead of
//! diffs:
//!
//! ```text
//! ### src/app.py
//! <<<<<<< SEARCH
//!     return a - b
//! =======
//!     return a + b
//! >>>>>>> REPLACE
//! ```
//!
//! The path is the nearest non-blank, non-fence line before `<<<<<<< SEARCH`
//! (markdown `#`, `*` and backticks stripped); a block with no path line reuses the
//! previous block's path. A block applies where its SEARCH text occurs exactly once;
//! failing that, where its lines occur exactly once with whitespace runs collapsed,
//! re-indenting the replacement by the indentation the SEARCH text was missing.
//! Zero or several places is an error, and any error leaves every file untouched.
//! An empty SEARCH creates a file that does not exist yet.

use std::collections::BTreeMap;

use serde::Serialize;

use super::error::EditError;
use super::lines::{self, normalise_ws, Eol, Line};
use super::paths::check_relative;
use super::tree::{FileChange, FileTree, Lookup};

/// One parsed block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditBlock {
    pub path: String,
    pub search: Vec<String>,
    pub replace: Vec<String>,
    /// 1-based line of `<<<<<<< SEARCH` in the response.
    pub line: usize,
}

/// How one block applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockStatus {
    Exact,
    Whitespace,
    Created,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockReport {
    pub file: String,
    pub block: usize,
    pub status: BlockStatus,
}

/// Blocks that applied: final file states in path order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditsApplied {
    pub changes: Vec<FileChange>,
    pub blocks: Vec<BlockReport>,
}

fn is_search(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("<<<<<<<") && t.trim_start_matches('<').trim() == "SEARCH"
}

fn is_divider(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 7 && t.chars().all(|c| c == '=')
}

fn is_replace(line: &str) -> bool {
    let t = line.trim();
    t.starts_with(">>>>>>>") && t.trim_start_matches('>').trim() == "REPLACE"
}

/// True when the text holds at least one SEARCH marker.
pub fn has_edit_blocks(text: &str) -> bool {
    text.lines().any(is_search)
}

/// Reads every block of a response.
pub fn parse_edit_blocks(text: &str) -> Result<Vec<EditBlock>, EditError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut blocks = Vec::new();
    let mut last_path: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        if !is_search(lines[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let path = path_before(&lines, start)
            .or_else(|| last_path.clone())
            .ok_or(EditError::NoPath { line: start + 1 })?;
        let mut search = Vec::new();
        i += 1;
        while i < lines.len() && !is_divider(lines[i]) {
            search.push(lines[i].to_owned());
            i += 1;
        }
        let mut replace = Vec::new();
        i += 1;
        while i < lines.len() && !is_replace(lines[i]) {
            replace.push(lines[i].to_owned());
            i += 1;
        }
        if i >= lines.len() {
            return Err(EditError::Unterminated { line: start + 1 });
        }
        i += 1;
        last_path = Some(path.clone());
        blocks.push(EditBlock {
            path,
            search,
            replace,
            line: start + 1,
        });
    }
    if blocks.is_empty() {
        return Err(EditError::NoBlocks);
    }
    Ok(blocks)
}

/// The file path written just before a block, if that line looks like one.
fn path_before(lines: &[&str], start: usize) -> Option<String> {
    let line = lines[..start]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !l.starts_with("```"))?;
    if is_replace(line) {
        return None;
    }
    let cleaned = line
        .trim_matches(|c: char| c == '#' || c == '*' || c == '`' || c.is_whitespace())
        .trim_end_matches(':')
        .trim_matches('`')
        .trim();
    let cleaned = cleaned
        .strip_prefix("File:")
        .or_else(|| cleaned.strip_prefix("file:"))
        .unwrap_or(cleaned)
        .trim();
    (!cleaned.is_empty() && !cleaned.contains(char::is_whitespace)).then(|| cleaned.to_owned())
}

/// Applies blocks in order against `tree`, all or nothing.
pub fn apply_edit_blocks(
    blocks: &[EditBlock],
    tree: &dyn FileTree,
) -> Result<EditsApplied, EditError> {
    let paths = blocks
        .iter()
        .map(|b| check_relative(&b.path))
        .collect::<Result<Vec<_>, _>>()?;
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut reports = Vec::new();
    for (i, (block, path)) in blocks.iter().zip(&paths).enumerate() {
        let number = i + 1;
        let current = match files.get(path) {
            Some(text) => Lookup::Text(text.clone()),
            None => tree.lookup(path),
        };
        let (text, status) = match current {
            Lookup::NotText => {
                return Err(EditError::NotText {
                    block: number,
                    path: path.clone(),
                })
            }
            Lookup::Missing if block.search.iter().all(|l| l.trim().is_empty()) => {
                (joined(&block.replace, "\n"), BlockStatus::Created)
            }
            Lookup::Missing => {
                return Err(EditError::Missing {
                    block: number,
                    path: path.clone(),
                })
            }
            Lookup::Text(text) => replace_once(&text, block, number, path)?,
        };
        files.insert(path.clone(), text);
        reports.push(BlockReport {
            file: path.clone(),
            block: number,
            status,
        });
    }
    Ok(EditsApplied {
        changes: files
            .into_iter()
            .map(|(path, text)| FileChange {
                path,
                content: Some(text),
                mode: None,
            })
            .collect(),
        blocks: reports,
    })
}

fn joined(lines: &[String], eol: &str) -> String {
    lines.iter().map(|l| format!("{l}{eol}")).collect()
}

fn replace_once(
    text: &str,
    block: &EditBlock,
    number: usize,
    path: &str,
) -> Result<(String, BlockStatus), EditError> {
    if block.search.iter().all(|l| l.trim().is_empty()) {
        if text.is_empty() {
            return Ok((joined(&block.replace, "\n"), BlockStatus::Created));
        }
        return Err(EditError::EmptySearch {
            block: number,
            path: path.to_owned(),
        });
    }
    let file_lines = lines::split(text);
    let eol = lines::dominant(&file_lines).unwrap_or(Eol::Lf);
    let eol_str = if eol == Eol::CrLf { "\r\n" } else { "\n" };
    let search = joined(&block.search, eol_str);
    let count = text.matches(search.as_str()).count();
    if count == 1 {
        let replaced = text.replacen(search.as_str(), &joined(&block.replace, eol_str), 1);
        return Ok((replaced, BlockStatus::Exact));
    }
    if count > 1 {
        return Err(EditError::Ambiguous {
            block: number,
            path: path.to_owned(),
            count,
        });
    }
    // Whitespace-tolerant, line by line, ignoring blank lines at the block's ends.
    let trimmed = trim_blank_ends(&block.search);
    let wanted: Vec<String> = trimmed.iter().map(|l| normalise_ws(l)).collect();
    let have: Vec<String> = file_lines.iter().map(|l| normalise_ws(&l.text)).collect();
    let hits: Vec<usize> = (0..(have.len() + 1).saturating_sub(wanted.len()))
        .filter(|&at| have[at..at + wanted.len()] == wanted[..])
        .collect();
    let at = match hits.as_slice() {
        [at] => *at,
        [] => {
            return Err(EditError::NotFound {
                block: number,
                path: path.to_owned(),
            })
        }
        many => {
            return Err(EditError::Ambiguous {
                block: number,
                path: path.to_owned(),
                count: many.len(),
            })
        }
    };
    let replacement = reindent(&block.replace, trimmed, &file_lines[at..]);
    let mut out: Vec<Line> = file_lines[..at].to_vec();
    out.extend(replacement.into_iter().map(|text| Line { text, eol }));
    out.extend_from_slice(&file_lines[at + wanted.len()..]);
    Ok((lines::join(&out, eol), BlockStatus::Whitespace))
}

fn trim_blank_ends(lines: &[String]) -> &[String] {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(start, |e| e + 1);
    &lines[start..end]
}

fn indent(text: &str) -> &str {
    &text[..text.len() - text.trim_start().len()]
}

/// Shifts the replacement by the indentation the SEARCH text lacked (or had extra)
/// compared with the file, so a block written without its enclosing indentation
/// still produces valid Python. Only a shift shared by every non-blank SEARCH line
/// is applied; anything else is left as written.
fn reindent(replace: &[String], search: &[String], matched: &[Line]) -> Vec<String> {
    let pairs: Vec<(&str, &str)> = search
        .iter()
        .zip(matched)
        .filter(|(s, _)| !s.trim().is_empty())
        .map(|(s, m)| (indent(s), indent(&m.text)))
        .collect();
    let Some(&(want, have)) = pairs.first() else {
        return replace.to_vec();
    };
    if let Some(extra) = have.strip_prefix(want).filter(|e| !e.is_empty()) {
        if pairs.iter().all(|(s, m)| m.strip_prefix(s) == Some(extra)) {
            return replace
                .iter()
                .map(|l| {
                    if l.trim().is_empty() {
                        l.clone()
                    } else {
                        format!("{extra}{l}")
                    }
                })
                .collect();
        }
    }
    if let Some(excess) = want.strip_prefix(have).filter(|e| !e.is_empty()) {
        if pairs.iter().all(|(s, m)| s.strip_prefix(m) == Some(excess)) {
            return replace
                .iter()
                .map(|l| l.strip_prefix(excess).unwrap_or(l).to_owned())
                .collect();
        }
    }
    replace.to_vec()
}
