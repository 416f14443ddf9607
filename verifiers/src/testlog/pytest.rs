//! pytest output: `-rA` short summary lines (`FAILED tests/t.py::test_x - msg`) and
//! verbose lines (`tests/t.py::test_x PASSED [ 50%]`).

use super::status::{record, TestMap, TestStatus};

const WORDS: [&str; 6] = ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"];

/// Parses pytest output into statuses by node id.
pub fn parse_pytest(log: &str) -> TestMap {
    let mut map = TestMap::new();
    for raw in log.lines() {
        let line = strip_ansi(raw.trim_end_matches('\r'));
        let line = line.trim();
        if let Some((id, status)) = summary_line(line).or_else(|| verbose_line(line)) {
            record(&mut map, id, status);
        }
    }
    map
}

/// `STATUS node_id[ - message]`.
fn summary_line(line: &str) -> Option<(String, TestStatus)> {
    let (word, rest) = line.split_once(' ')?;
    let status = TestStatus::from_word(word)?;
    let rest = rest.trim_start();
    // `SKIPPED [1] tests/t.py:12: reason` names no test id; `ERROR tests/t.py` (a
    // collection error) names no test either.
    if rest.starts_with('[') {
        return None;
    }
    let id = node_id_prefix(rest)?;
    Some((id, status))
}

/// The node id at the start of `text`: up to the ` - ` message separator, keeping
/// parametrize brackets (which may contain ` - `) intact.
fn node_id_prefix(text: &str) -> Option<String> {
    let sep = text.find("::")?;
    let mut depth = 0i32;
    let mut end = text.len();
    for (i, c) in text.char_indices().skip_while(|(i, _)| *i < sep) {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ' ' if depth <= 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let id = &text[..end];
    (!id.is_empty()).then(|| id.to_owned())
}

/// `node_id STATUS[ [ 50%]]`, also `node_id STATUS - reason` for XFAIL.
fn verbose_line(line: &str) -> Option<(String, TestStatus)> {
    if !line.contains("::") {
        return None;
    }
    for word in WORDS {
        let needle = format!(" {word}");
        if let Some(at) = line.rfind(&needle) {
            let after = &line[at + needle.len()..];
            let tail_ok = after.is_empty()
                || after.starts_with(' ')
                    && (after.trim_start().starts_with('[') || after.trim_start().starts_with('-'));
            if !tail_ok {
                continue;
            }
            let id = node_id_prefix(&line[..at])?;
            if id.len() == at {
                return Some((id, TestStatus::from_word(word)?));
            }
        }
    }
    None
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_summary_and_verbose_lines() {
        let log = "\
tests/test_a.py::test_ok PASSED                                     [ 25%]
tests/test_a.py::TestK::test_m[1 - 2] FAILED                        [ 50%]
tests/test_a.py::test_x XFAIL (reason)                              [ 75%]
=========================== short test summary info ============================
PASSED tests/test_a.py::test_ok
FAILED tests/test_a.py::TestK::test_m[1 - 2] - AssertionError: boom
ERROR tests/test_a.py::test_e - fixture 'nope' not found
SKIPPED [1] tests/test_a.py:9: no reason
XFAIL tests/test_a.py::test_x - reason
XPASS tests/test_a.py::test_xp
\u{1b}[32mPASSED\u{1b}[0m tests/test_b.py::test_col
";
        let map = parse_pytest(log);
        assert_eq!(map["tests/test_a.py::test_ok"], TestStatus::Passed);
        assert_eq!(
            map["tests/test_a.py::TestK::test_m[1 - 2]"],
            TestStatus::Failed
        );
        assert_eq!(map["tests/test_a.py::test_e"], TestStatus::Error);
        assert_eq!(map["tests/test_a.py::test_x"], TestStatus::XFail);
        assert_eq!(map["tests/test_a.py::test_xp"], TestStatus::XPass);
        assert_eq!(map["tests/test_b.py::test_col"], TestStatus::Passed);
        assert_eq!(map.len(), 6);
    }

    #[test]
    fn teardown_error_beats_pass() {
        let log = "PASSED t.py::test_a\nERROR t.py::test_a - teardown\n";
        assert_eq!(parse_pytest(log)["t.py::test_a"], TestStatus::Error);
    }
}
