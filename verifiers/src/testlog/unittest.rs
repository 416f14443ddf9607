//! unittest verbose output: `test_x (pkg.mod.TestK) ... ok` (Python ≤ 3.10) or
//! `test_x (pkg.mod.TestK.test_x) ... ok` (3.11+), and the `FAIL:`/`ERROR:` headers
//! of the failure report, which also catch `subTest` failures. Ids are
//! `pkg.mod.TestK.test_x`.

use super::status::{record, TestMap, TestStatus};

/// Parses unittest `-v` output into statuses by dotted id.
pub fn parse_unittest(log: &str) -> TestMap {
    let mut map = TestMap::new();
    let lines: Vec<&str> = log.lines().map(|l| l.trim_end_matches('\r')).collect();
    for (i, line) in lines.iter().enumerate() {
        if let Some(rest) = line
            .strip_prefix("FAIL: ")
            .map(|r| (r, TestStatus::Failed))
            .or_else(|| line.strip_prefix("ERROR: ").map(|r| (r, TestStatus::Error)))
        {
            if let Some(id) = test_id(rest.0) {
                record(&mut map, id, rest.1);
            }
            continue;
        }
        let Some((head, verdict)) = line.rsplit_once(" ... ") else {
            continue;
        };
        let Some(status) = verdict_status(verdict.trim()) else {
            continue;
        };
        // A docstring puts the verdict on the line after the test name.
        let id = test_id(head).or_else(|| i.checked_sub(1).and_then(|p| test_id(lines[p])));
        if let Some(id) = id {
            record(&mut map, id, status);
        }
    }
    map
}

fn verdict_status(verdict: &str) -> Option<TestStatus> {
    Some(match verdict {
        "ok" => TestStatus::Passed,
        "FAIL" => TestStatus::Failed,
        "ERROR" => TestStatus::Error,
        "expected failure" => TestStatus::XFail,
        "unexpected success" => TestStatus::Failed,
        v if v.starts_with("skipped") => TestStatus::Skipped,
        _ => return None,
    })
}

/// `test_x (pkg.TestK)` or `test_x (pkg.TestK.test_x)`, optionally followed by a
/// subTest description, to `pkg.TestK.test_x`.
fn test_id(text: &str) -> Option<String> {
    let text = text.trim();
    let open = text.find(" (")?;
    let name = &text[..open];
    let close = text[open..].find(')')? + open;
    let qual = &text[open + 2..close];
    let valid = |s: &str| {
        !s.is_empty()
            && s.split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
    };
    if !valid(name) || !valid(qual) || name.contains('.') {
        return None;
    }
    if qual.ends_with(&format!(".{name}")) {
        Some(qual.to_owned())
    } else {
        Some(format!("{qual}.{name}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_python_formats_and_subtests() {
        let log = "\
test_a (pkg.test_m.TestK) ... ok
test_b (pkg.test_m.TestK.test_b) ... FAIL
test_c (pkg.test_m.TestK.test_c)
A docstring ... ERROR
test_d (pkg.test_m.TestK.test_d) ... skipped 'later'
test_e (pkg.test_m.TestK.test_e) ... expected failure
test_s (pkg.test_m.TestK.test_s) ... ok

======================================================================
FAIL: test_s (pkg.test_m.TestK.test_s) (i=2)
----------------------------------------------------------------------
";
        let map = parse_unittest(log);
        assert_eq!(map["pkg.test_m.TestK.test_a"], TestStatus::Passed);
        assert_eq!(map["pkg.test_m.TestK.test_b"], TestStatus::Failed);
        assert_eq!(map["pkg.test_m.TestK.test_c"], TestStatus::Error);
        assert_eq!(map["pkg.test_m.TestK.test_d"], TestStatus::Skipped);
        assert_eq!(map["pkg.test_m.TestK.test_e"], TestStatus::XFail);
        assert_eq!(map["pkg.test_m.TestK.test_s"], TestStatus::Failed);
    }
}
