//! Unified-diff parser: `git diff` and plain `diff -u` output, with git's extended
//! headers (modes, renames, copies, new and deleted files, binary markers).
//!
//! It is lenient where patches written by models are commonly sloppy and strict
//! where a wrong guess would change the meaning:
//! - text before, between and after file sections is ignored (commit messages,
//!   prose), as GNU `patch` does;
//! - missing hunk counts mean 1 (`@@ -3 +3 @@`);
//! - a hunk whose header counts disagree with its body is recounted from the body
//!   when the body is complete: it runs past its counts, or stops short of them at
//!   the next `@@` or file header (a model's miscount);
//! - but a hunk whose body stops short of its counts at the end of the text is
//!   truncated (a response cut off inside its last hunk): [`ParseError::TruncatedHunk`],
//!   and the whole patch is refused, as `git apply` refuses a corrupt patch. Nothing
//!   can follow the point where a response was cut, so a short body before a
//!   later header cannot be a truncation, nor can one at the end of a fenced block
//!   that the response went on to close (see [`super::response`]);
//! - an empty line inside a hunk is an empty context line (editors strip the space);
//! - but a garbled `@@` header, a hunk with no body, or a foreign line where the
//!   header promises more body lines is an error naming the line.

use std::sync::OnceLock;

use regex::Regex;

use super::error::ParseError;
use super::model::{FileOp, FilePatch, Hunk, HunkLine, Patch};

/// Parses a patch. A text with no file section at all is [`ParseError::NoDiff`]; a
/// hunk that ends with the text before its counts are met is
/// [`ParseError::TruncatedHunk`].
pub fn parse_patch(text: &str) -> Result<Patch, ParseError> {
    parse(text, false)
}

/// Parses a patch whose text is known to be whole (a fenced block the response went
/// on to close), so a short last hunk is a miscount and is recounted.
pub(crate) fn parse_whole_patch(text: &str) -> Result<Patch, ParseError> {
    parse(text, true)
}

fn parse(text: &str, whole: bool) -> Result<Patch, ParseError> {
    let lines = split_lines(text);
    let mut parser = Parser {
        lines: &lines,
        pos: 0,
        files: Vec::new(),
        whole,
    };
    parser.run()?;
    if parser.files.is_empty() {
        return Err(ParseError::NoDiff);
    }
    Ok(Patch {
        files: parser.files,
    })
}

/// Splits on `\n`, keeping any `\r` in the line (CRLF content survives into hunk
/// lines); a final newline does not make an extra empty line.
fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

fn no_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

struct Parser<'a> {
    lines: &'a [&'a str],
    pos: usize,
    files: Vec<FilePatch>,
    /// The text is known to end where its author meant it to.
    whole: bool,
}

impl Parser<'_> {
    fn line(&self, i: usize) -> Option<&str> {
        self.lines.get(i).map(|l| no_cr(l))
    }

    /// `--- x` directly followed by `+++ y` at `i`.
    fn is_plain_header(&self, i: usize) -> bool {
        self.line(i).is_some_and(|l| l.starts_with("--- "))
            && self.line(i + 1).is_some_and(|l| l.starts_with("+++ "))
    }

    fn run(&mut self) -> Result<(), ParseError> {
        let mut current: Option<FilePatch> = None;
        while let Some(line) = self.line(self.pos) {
            if line.starts_with("diff --git ") {
                if let Some(done) = current.take() {
                    self.finish(done)?;
                }
                current = Some(self.git_section()?);
            } else if self.is_plain_header(self.pos) {
                if let Some(done) = current.take() {
                    self.finish(done)?;
                }
                current = Some(self.plain_section()?);
            } else if line.starts_with("@@") {
                let Some(file) = current.as_mut() else {
                    return Err(ParseError::HunkOutsideFile { line: self.pos + 1 });
                };
                let hunk = parse_hunk(self.lines, &mut self.pos, self.whole)?;
                file.hunks.push(hunk);
            } else {
                if line.starts_with("Binary files ") && line.ends_with(" differ") {
                    if let Some(file) = current.as_mut() {
                        file.binary = true;
                    }
                }
                self.pos += 1;
            }
        }
        if let Some(done) = current.take() {
            self.finish(done)?;
        }
        Ok(())
    }

    fn finish(&mut self, mut file: FilePatch) -> Result<(), ParseError> {
        if file.op == FileOp::Modify {
            file.op = match (&file.old_path, &file.new_path) {
                (None, _) => FileOp::Create,
                (_, None) => FileOp::Delete,
                _ => FileOp::Modify,
            };
        }
        let metadata_only = file.binary
            || file.new_mode.is_some()
            || matches!(
                file.op,
                FileOp::Create | FileOp::Delete | FileOp::Rename | FileOp::Copy
            );
        if file.hunks.is_empty() && !metadata_only {
            return Err(ParseError::NoHunks {
                line: file.line,
                path: file.source_path().unwrap_or("/dev/null").to_owned(),
            });
        }
        self.files.push(file);
        Ok(())
    }

    /// A `---`/`+++` pair outside a git section.
    fn plain_section(&mut self) -> Result<FilePatch, ParseError> {
        let start = self.pos;
        let old = header_path(self.line(start).unwrap_or_default(), start + 1)?;
        let new = header_path(self.line(start + 1).unwrap_or_default(), start + 2)?;
        self.pos += 2;
        Ok(FilePatch {
            op: FileOp::Modify,
            old_path: old,
            new_path: new,
            new_mode: None,
            binary: false,
            line: start + 1,
            hunks: Vec::new(),
        })
    }

    /// `diff --git a/x b/y` and its extended headers, up to the first hunk.
    fn git_section(&mut self) -> Result<FilePatch, ParseError> {
        let start = self.pos;
        let first = self.line(start).unwrap_or_default();
        let (old, new) = git_line_paths(&first["diff --git ".len()..], start + 1)?;
        let mut file = FilePatch {
            op: FileOp::Modify,
            old_path: Some(old),
            new_path: Some(new),
            new_mode: None,
            binary: false,
            line: start + 1,
            hunks: Vec::new(),
        };
        self.pos += 1;
        while let Some(line) = self.line(self.pos) {
            let n = self.pos + 1;
            if let Some(rest) = line.strip_prefix("new file mode ") {
                file.op = FileOp::Create;
                file.old_path = None;
                file.new_mode = Some(parse_mode(rest, n)?);
            } else if line.starts_with("deleted file mode ") {
                file.op = FileOp::Delete;
                file.new_path = None;
            } else if let Some(rest) = line.strip_prefix("new mode ") {
                file.new_mode = Some(parse_mode(rest, n)?);
            } else if line.starts_with("old mode ")
                || line.starts_with("index ")
                || line.starts_with("similarity index ")
                || line.starts_with("dissimilarity index ")
            {
            } else if let Some(rest) = line.strip_prefix("rename from ") {
                file.op = FileOp::Rename;
                file.old_path = Some(prefixed("a/", unquote(rest, n)?));
            } else if let Some(rest) = line.strip_prefix("rename to ") {
                file.op = FileOp::Rename;
                file.new_path = Some(prefixed("b/", unquote(rest, n)?));
            } else if let Some(rest) = line.strip_prefix("copy from ") {
                file.op = FileOp::Copy;
                file.old_path = Some(prefixed("a/", unquote(rest, n)?));
            } else if let Some(rest) = line.strip_prefix("copy to ") {
                file.op = FileOp::Copy;
                file.new_path = Some(prefixed("b/", unquote(rest, n)?));
            } else if line == "GIT binary patch"
                || (line.starts_with("Binary files ") && line.ends_with(" differ"))
            {
                file.binary = true;
            } else if self.is_plain_header(self.pos) {
                // The `---`/`+++` paths are authoritative (no space ambiguity), except
                // that /dev/null there only confirms what the mode lines said.
                let old = header_path(line, n)?;
                let new = header_path(self.line(self.pos + 1).unwrap_or_default(), n + 1)?;
                if file.op != FileOp::Rename && file.op != FileOp::Copy {
                    file.old_path = old;
                    file.new_path = new;
                }
                self.pos += 2;
                break;
            } else {
                break;
            }
            self.pos += 1;
        }
        Ok(file)
    }
}

/// Git writes `rename from` paths without their `a/`/`b/` prefix; add it back so every
/// path in a git section strips the same way.
fn prefixed(prefix: &str, path: String) -> String {
    format!("{prefix}{path}")
}

fn parse_mode(text: &str, line: usize) -> Result<u32, ParseError> {
    u32::from_str_radix(text.trim(), 8).map_err(|_| ParseError::BadMode {
        line,
        text: text.to_owned(),
    })
}

/// The path of a `--- x` or `+++ x` line: quoted or not, with any tab-separated
/// timestamp removed; `/dev/null` is `None`.
fn header_path(line: &str, n: usize) -> Result<Option<String>, ParseError> {
    let rest = line.get(4..).unwrap_or_default();
    let path = if rest.starts_with('"') {
        unquote(rest, n)?
    } else {
        let end = rest.find('\t').unwrap_or(rest.len());
        rest[..end].trim_end().to_owned()
    };
    if path.is_empty() {
        return Err(ParseError::BadPath {
            line: n,
            text: line.to_owned(),
        });
    }
    Ok((path != "/dev/null").then_some(path))
}

/// Splits the two paths of a `diff --git` line. Unquoted paths may contain spaces,
/// so prefer the split where both sides name the same file.
fn git_line_paths(rest: &str, n: usize) -> Result<(String, String), ParseError> {
    let bad = || ParseError::BadPath {
        line: n,
        text: rest.to_owned(),
    };
    if rest.starts_with('"') {
        let end = closing_quote(rest).ok_or_else(bad)?;
        let old = unquote(&rest[..=end], n)?;
        let new = unquote(rest[end + 1..].trim_start(), n)?;
        return Ok((old, new));
    }
    let splits: Vec<usize> = rest.match_indices(' ').map(|(i, _)| i).collect();
    let same = splits.iter().find(|&&i| {
        let (a, b) = (&rest[..i], &rest[i + 1..]);
        a.get(2..).is_some() && a.get(2..) == b.get(2..)
    });
    let at = same
        .or_else(|| splits.iter().find(|&&i| rest[i + 1..].starts_with("b/")))
        .or(splits.first())
        .ok_or_else(bad)?;
    let new = &rest[at + 1..];
    let new = if new.starts_with('"') {
        unquote(new, n)?
    } else {
        new.to_owned()
    };
    Ok((rest[..*at].to_owned(), new))
}

fn closing_quote(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Undoes git's C-style quoting (`"a/sp\303\251cial\tname"`); unquoted text is
/// returned as is.
fn unquote(text: &str, n: usize) -> Result<String, ParseError> {
    let bad = || ParseError::BadPath {
        line: n,
        text: text.to_owned(),
    };
    let Some(inner) = text.strip_prefix('"') else {
        return Ok(text.to_owned());
    };
    let end = closing_quote(text).ok_or_else(bad)?;
    let inner = &inner[..end - 1];
    let mut out: Vec<u8> = Vec::with_capacity(inner.len());
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let c = *bytes.get(i + 1).ok_or_else(bad)?;
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'"' | b'\\' => out.push(c),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'0'..=b'7' => {
                let digits = inner.get(i - 1..i + 2).ok_or_else(bad)?;
                out.push(u8::from_str_radix(digits, 8).map_err(|_| bad())?);
                i += 2;
            }
            _ => return Err(bad()),
        }
    }
    String::from_utf8(out).map_err(|_| bad())
}

fn hunk_header_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@").expect("static regex is valid")
    })
}

fn number(m: Option<regex::Match<'_>>, default: usize) -> Option<usize> {
    match m {
        None => Some(default),
        Some(m) => m.as_str().parse().ok(),
    }
}

/// The `[old_start, old_count, new_start, new_count]` of the `@@` header at index `at`.
fn hunk_header(raw: &str, at: usize) -> Result<[usize; 4], ParseError> {
    let header = no_cr(raw);
    let bad_header = || ParseError::BadHunkHeader {
        line: at + 1,
        text: header.chars().take(80).collect(),
    };
    let caps = hunk_header_regex()
        .captures(header)
        .ok_or_else(bad_header)?;
    Ok([
        number(caps.get(1), 0).ok_or_else(bad_header)?,
        number(caps.get(2), 1).ok_or_else(bad_header)?,
        number(caps.get(3), 0).ok_or_else(bad_header)?,
        number(caps.get(4), 1).ok_or_else(bad_header)?,
    ])
}

/// One body line (at index `i`) by its marker; an empty line is empty context.
fn body_line(raw: &str, i: usize) -> Result<HunkLine, ParseError> {
    let line = no_cr(raw);
    // Only reached for an ASCII marker byte, so slicing after it is safe.
    let body = raw.get(1..).unwrap_or_default();
    match line.as_bytes().first() {
        Some(b' ') => Ok(HunkLine::Context(body.to_owned())),
        Some(b'-') => Ok(HunkLine::Remove(body.to_owned())),
        Some(b'+') => Ok(HunkLine::Add(body.to_owned())),
        None => Ok(HunkLine::Context(String::new())),
        _ => Err(ParseError::BadHunkLine {
            line: i + 1,
            text: line.chars().take(80).collect(),
        }),
    }
}

/// Whether the `--- ` line at `i` starts the next file section rather than removing
/// a line `-- …`: a `+++ ` line must follow, and then either the hunk has no old lines
/// left to remove or a hunk header comes next (a miscounted hunk before a new file).
fn file_header_follows(lines: &[&str], i: usize, old_left: usize) -> bool {
    let starts =
        |at: usize, prefix: &str| lines.get(at).is_some_and(|l| no_cr(l).starts_with(prefix));
    starts(i + 1, "+++ ") && (old_left == 0 || starts(i + 2, "@@ -"))
}

/// Parses the hunk whose `@@` header is at `*pos`, leaving `*pos` after its body.
fn parse_hunk(lines: &[&str], pos: &mut usize, whole: bool) -> Result<Hunk, ParseError> {
    let header_at = *pos;
    let [old_start, old_count, new_start, new_count] = hunk_header(lines[header_at], header_at)?;
    let mut hunk = Hunk {
        old_start,
        new_start,
        lines: Vec::new(),
        old_no_newline: false,
        new_no_newline: false,
        recounted: false,
        line: header_at + 1,
    };
    let (mut old_left, mut new_left) = (old_count, new_count);
    // Empty raw lines taken as context; dropped again if they end a recounted hunk.
    let mut trailing_blank = 0usize;
    let mut i = header_at + 1;
    let mut at_end = !whole;
    while let Some(raw) = lines.get(i) {
        let line = no_cr(raw);
        let counts_left = old_left > 0 || new_left > 0;
        let boundary = line.starts_with("@@")
            || line.starts_with("diff --git ")
            || (line.starts_with("--- ") && file_header_follows(lines, i, old_left));
        if boundary {
            at_end = false;
            break;
        }
        if line.starts_with('\\') {
            match hunk.lines.last() {
                Some(HunkLine::Context(_)) => {
                    hunk.old_no_newline = true;
                    hunk.new_no_newline = true;
                }
                Some(HunkLine::Remove(_)) => hunk.old_no_newline = true,
                Some(HunkLine::Add(_)) => hunk.new_no_newline = true,
                None => return Err(ParseError::StrayNoNewline { line: i + 1 }),
            }
            i += 1;
            continue;
        }
        let continuation = !counts_left
            && (line.starts_with(' ') || line.starts_with('+') || line.starts_with('-'))
            && !line.starts_with("--- ")
            && !line.starts_with("+++ ")
            && line != "-- ";
        if !counts_left && !continuation {
            at_end = false;
            break;
        }
        let parsed = body_line(raw, i)?;
        trailing_blank = if line.is_empty() {
            trailing_blank + 1
        } else {
            0
        };
        match parsed {
            HunkLine::Context(_) => {
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
            HunkLine::Remove(_) => old_left = old_left.saturating_sub(1),
            HunkLine::Add(_) => new_left = new_left.saturating_sub(1),
        }
        hunk.lines.push(parsed);
        i += 1;
    }
    if (old_left > 0 || new_left > 0) && at_end {
        return Err(ParseError::TruncatedHunk {
            line: header_at + 1,
            old_count,
            new_count,
            old_seen: old_count - old_left,
            new_seen: new_count - new_left,
        });
    }
    if old_left > 0 || new_left > 0 {
        // The body ended early: blank lines at its end were layout, not context.
        let keep = hunk.lines.len() - trailing_blank;
        hunk.lines.truncate(keep);
    }
    *pos = i;
    if hunk.lines.is_empty() {
        return Err(ParseError::EmptyHunk {
            line: header_at + 1,
        });
    }
    hunk.recounted = hunk.old_len() != old_count || hunk.new_len() != new_count;
    Ok(hunk)
}
