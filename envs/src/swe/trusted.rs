//! Test infrastructure is trusted: what a model's patch may not change, and what
//! the trusted test source says about a test's expected skips and failures.
//!
//! The tests that judge a patch are the snapshot's (with the row's `test_patch`), as
//! in SWE-bench's harness, so a patch's edits to them are discarded (the default) or
//! refuse the whole patch. Test infrastructure is every file that can change what a
//! test run reports:
//! - test files: `test_*.py`, `*_test.py`, and every file under a folder named
//!   `tests`, or under a top-level `test` folder (helpers and data beside the tests;
//!   a nested `test` package is library code, e.g. `django/test/`);
//! - `conftest.py` anywhere;
//! - pytest, tox and setup configuration: `pytest.ini`, `tox.ini`, `setup.cfg` and
//!   `pyproject.toml`, each whole (none of their other sections matters to a test
//!   run here: nothing is installed, and a patch's fix never needs them);
//! - interpreter start-up hooks: `sitecustomize.py`, `usercustomize.py`, `*.pth`.

use cascade_verifiers::patch::FileChange;
use cascade_verifiers::testlog::TestStatus;
use serde::Deserialize;

/// What to do with a patch that edits test infrastructure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestFilesPolicy {
    /// Drop those edits and run the rest (models often add a test beside a fix).
    #[default]
    Discard,
    /// Reward 0 with a named reason.
    Refuse,
}

const CONFIG_FILES: [&str; 7] = [
    "conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "sitecustomize.py",
    "usercustomize.py",
];

/// Whether `path` (relative to the repository root, `/`-separated) is test
/// infrastructure.
pub fn is_test_infrastructure(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    let test_folder = parts.contains(&"tests") || parts.first() == Some(&"test");
    let test_file = name.ends_with(".py")
        && (name.starts_with("test_") || name.trim_end_matches(".py").ends_with("_test"));
    test_folder || test_file || name.ends_with(".pth") || CONFIG_FILES.contains(&name)
}

/// The patch's changes split into those kept and the paths of those dropped, in
/// order.
pub fn split_changes(changes: Vec<FileChange>) -> (Vec<FileChange>, Vec<String>) {
    let (dropped, kept): (Vec<_>, Vec<_>) = changes
        .into_iter()
        .partition(|c| is_test_infrastructure(&c.path));
    (kept, dropped.into_iter().map(|c| c.path).collect())
}

/// What a test's status claims the trusted source asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expectation {
    /// XFAIL or XPASS: the test is marked to fail.
    XFail,
    /// SKIPPED: the test is marked (or written) to skip.
    Skip,
}

impl Expectation {
    fn words(self) -> &'static [&'static str] {
        match self {
            Self::XFail => &["xfail", "expectedFailure"],
            Self::Skip => &["skip", "Skip"],
        }
    }
}

/// Whether the trusted `source` of a test file asks for `what` for the test `names`
/// (`[Class, ..., function]`): in the decorators of the function or its classes, a
/// `pytestmark`, or (imperative `pytest.skip()` / `pytest.xfail()` / `skipTest`) in the
/// function's own body. A plain text reading, erring towards "not asked": the
/// status then counts as a failure, which only a test the source itself skips or
/// expects to fail can suffer.
pub fn asks_for(source: &str, names: &[&str], what: Expectation) -> bool {
    let lines: Vec<&str> = source.lines().collect();
    let words = what.words();
    let has = |text: &str| words.iter().any(|w| text.contains(w));
    if lines
        .iter()
        .any(|l| l.trim_start().starts_with("pytestmark") && has(l))
    {
        return true;
    }
    let mut from = 0;
    for (depth, name) in names.iter().enumerate() {
        let last = depth + 1 == names.len();
        let Some(at) = find_definition(&lines, from, name, !last) else {
            return false;
        };
        if decorators(&lines, at).any(has) || (last && body(&lines, at).any(has)) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The line of `def NAME(` / `async def NAME(` (or `class NAME` when `class`) at or
/// after `from`.
fn find_definition(lines: &[&str], from: usize, name: &str, class: bool) -> Option<usize> {
    let heads: Vec<String> = if class {
        vec![format!("class {name}("), format!("class {name}:")]
    } else {
        vec![format!("def {name}("), format!("async def {name}(")]
    };
    (from..lines.len()).find(|&i| {
        let t = lines[i].trim_start();
        heads.iter().any(|h| t.starts_with(h.as_str()))
    })
}

/// The lines of the decorators right above line `at`: from the first `@` line at the
/// definition's own indentation up to it (a decorator may span lines), stopping at a
/// blank line or another statement at that indentation.
fn decorators<'a>(lines: &'a [&'a str], at: usize) -> impl Iterator<Item = &'a str> {
    let own = indent(lines[at]);
    let mut start = at;
    while start > 0 {
        let line = lines[start - 1];
        let deeper = indent(line) > own;
        if line.trim().is_empty() || !(deeper || line.trim_start().starts_with('@')) {
            break;
        }
        start -= 1;
    }
    let first = (start..at)
        .find(|&i| indent(lines[i]) == own && lines[i].trim_start().starts_with('@'))
        .unwrap_or(at);
    lines[first..at].iter().copied()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines of the body of the definition at line `at`: those after it indented
/// deeper (blank lines included).
fn body<'a>(lines: &'a [&'a str], at: usize) -> impl Iterator<Item = &'a str> {
    let own = indent(lines[at]);
    lines[at + 1..]
        .iter()
        .copied()
        .take_while(move |l| l.trim().is_empty() || indent(l) > own)
}

/// The status the verdict uses: XFAIL, XPASS and SKIPPED stand only when the
/// trusted source of the test's file (`source`, `None` when it has none) asks for
/// them; otherwise code under test produced them (`pytest.xfail()` or `pytest.skip()`
/// called from the library) and the test failed.
pub fn trusted_status(status: TestStatus, test_id: &str, source: Option<&str>) -> TestStatus {
    let what = match status {
        TestStatus::XFail | TestStatus::XPass => Expectation::XFail,
        TestStatus::Skipped => Expectation::Skip,
        _ => return status,
    };
    let mut parts = test_id.split("::");
    parts.next();
    let names: Vec<&str> = parts
        .map(|p| p.split_once('[').map_or(p, |(name, _)| name))
        .collect();
    match source {
        Some(text) if !names.is_empty() && asks_for(text, &names, what) => status,
        _ => TestStatus::Failed,
    }
}

/// The file part of a pytest node id.
pub fn test_file(test_id: &str) -> &str {
    test_id.split("::").next().unwrap_or(test_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_infrastructure_paths() {
        for p in [
            "tests/test_x.py",
            "tests/helpers.py",
            "test/data.json",
            "pkg/tests/data.json",
            "conftest.py",
            "src/pkg/conftest.py",
            "test_top.py",
            "pkg/io_test.py",
            "pytest.ini",
            "tox.ini",
            "setup.cfg",
            "pyproject.toml",
            "sitecustomize.py",
            "lib/usercustomize.py",
            "evil.pth",
        ] {
            assert!(is_test_infrastructure(p), "{p}");
        }
        for p in [
            "calc/ops.py",
            "pkg/testing.py",
            "latest.py",
            "docs/tests.md",
            "contest.py",
            "django/test/utils.py",
        ] {
            assert!(!is_test_infrastructure(p), "{p}");
        }
    }

    const SOURCE: &str = r#"
import pytest

pytestmark_unrelated = 1

@pytest.mark.xfail(reason="known")
def test_marked():
    assert 0

def test_plain():
    assert helper()
def test_after_plain():
    pytest.skip("x")
@pytest.mark.parametrize("a", [1])
def test_tight(a):
    pass

def test_skips_itself():
    if True:
        pytest.skip("not here")

class TestK:
    @pytest.mark.skipif(
        True, reason="multi-line")
    def test_m(self):
        pass

    def test_n(self):
        pass
"#;

    #[test]
    fn marks_are_read_from_the_trusted_source() {
        use Expectation::{Skip, XFail};
        assert!(asks_for(SOURCE, &["test_marked"], XFail));
        assert!(!asks_for(SOURCE, &["test_plain"], XFail));
        assert!(!asks_for(SOURCE, &["test_plain"], Skip));
        assert!(asks_for(SOURCE, &["test_skips_itself"], Skip));
        assert!(asks_for(SOURCE, &["TestK", "test_m"], Skip));
        assert!(!asks_for(SOURCE, &["TestK", "test_n"], Skip));
        assert!(!asks_for(SOURCE, &["test_tight"], Skip));
        assert!(!asks_for(SOURCE, &["TestK", "test_missing"], Skip));
        assert!(asks_for(
            "pytestmark = pytest.mark.skip\n",
            &["test_a"],
            Skip
        ));
    }

    #[test]
    fn unasked_xfail_and_skip_fail() {
        let id = |name: &str| format!("tests/t.py::{name}");
        let got = |status, name: &str| trusted_status(status, &id(name), Some(SOURCE));
        assert_eq!(got(TestStatus::XFail, "test_marked"), TestStatus::XFail);
        assert_eq!(got(TestStatus::XFail, "test_plain"), TestStatus::Failed);
        assert_eq!(got(TestStatus::Skipped, "test_plain"), TestStatus::Failed);
        assert_eq!(
            got(TestStatus::Skipped, "TestK::test_m"),
            TestStatus::Skipped
        );
        assert_eq!(got(TestStatus::Passed, "test_plain"), TestStatus::Passed);
        assert_eq!(
            trusted_status(TestStatus::XFail, "tests/t.py::test_marked", None),
            TestStatus::Failed
        );
    }
}
