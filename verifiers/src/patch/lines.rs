//! Files as lines with their own line endings, so CRLF, LF and a missing final
//! newline all survive patching unchanged where the patch does not touch them.

/// How one line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eol {
    Lf,
    CrLf,
    /// The file's last line, without a final newline.
    None,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::None => "",
        }
    }
}

/// One line: its text without the ending, and the ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub eol: Eol,
}

/// Splits a file into lines, keeping each line's ending.
pub fn split(content: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut rest = content;
    while !rest.is_empty() {
        match rest.find('\n') {
            Some(i) => {
                let raw = &rest[..i];
                let (text, eol) = match raw.strip_suffix('\r') {
                    Some(t) => (t, Eol::CrLf),
                    None => (raw, Eol::Lf),
                };
                out.push(Line {
                    text: text.to_owned(),
                    eol,
                });
                rest = &rest[i + 1..];
            }
            None => {
                out.push(Line {
                    text: rest.to_owned(),
                    eol: Eol::None,
                });
                rest = "";
            }
        }
    }
    out
}

/// Joins lines back into file content. A line that ended the file but is no longer
/// last gets `fallback` as its ending.
pub fn join(lines: &[Line], fallback: Eol) -> String {
    let mut out = String::new();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        out.push_str(&line.text);
        let eol = if line.eol == Eol::None && i != last {
            fallback
        } else {
            line.eol
        };
        out.push_str(eol.as_str());
    }
    out
}

/// The ending most lines use (`CrLf` only when it outnumbers `Lf`); `None` for a file
/// with no line endings at all.
pub fn dominant(lines: &[Line]) -> Option<Eol> {
    let crlf = lines.iter().filter(|l| l.eol == Eol::CrLf).count();
    let lf = lines.iter().filter(|l| l.eol == Eol::Lf).count();
    match (crlf, lf) {
        (0, 0) => None,
        (c, l) if c > l => Some(Eol::CrLf),
        _ => Some(Eol::Lf),
    }
}

/// A patch line's text without a trailing `\r` (a CRLF file's diff carries it).
pub fn strip_cr(text: &str) -> &str {
    text.strip_suffix('\r').unwrap_or(text)
}

/// Whitespace-insensitive form: runs of whitespace become one space, ends trimmed.
pub fn normalise_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_mixed_endings() {
        for content in ["a\nb\r\nc", "a\n", "", "\n\n", "x\r\n"] {
            assert_eq!(join(&split(content), Eol::Lf), content);
        }
    }
}
