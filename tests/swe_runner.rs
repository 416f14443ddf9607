//! The bundled test runner (`envs/src/swe/runner.py`) against the pytest and unittest
//! features real suites use: its stand-in through the `native` backend, and real
//! pytest (the pinned wheels) through the `wasi` backend. Each expected status is
//! what pytest itself reports for the same test.

use std::path::Path;
use std::time::Duration;

use cascade_envs::swe::{split_log, NativeBackend, RunnerMode, TestBackend, TestJob, WasiBackend};
use cascade_sandboxes::PythonRuntime;
use cascade_verifiers::testlog::{parse_pytest, TestStatus};

const CONFTEST: &str = r#"
import pytest

EVENTS = []

@pytest.fixture(scope="module")
def shared():
    EVENTS.append("shared-setup")
    yield {"n": 0}
    EVENTS.append("shared-teardown")

@pytest.fixture
def numbers(request):
    return list(range(request.param))

@pytest.fixture(autouse=True)
def marker_env(monkeypatch):
    monkeypatch.setenv("CASCADE_AUTOUSE", "1")
"#;

const TESTS: &str = r#"
import os
import sys
import unittest
import warnings

import pytest

from conftest import EVENTS


def test_autouse_fixture_ran():
    assert os.environ["CASCADE_AUTOUSE"] == "1"


def test_module_scope_shared_once(shared):
    shared["n"] += 1
    assert EVENTS.count("shared-setup") == 1


def test_module_scope_shared_twice(shared):
    assert EVENTS.count("shared-setup") == 1


@pytest.mark.parametrize("numbers", [3], indirect=True)
def test_indirect(numbers):
    assert numbers == [0, 1, 2]


@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.parametrize("y", ["a", "b"])
def test_stacked(x, y):
    assert x != 2 or y != "b"


@pytest.mark.parametrize("value", [None, True, 1.5, "é", (1, 2)], ids=None)
def test_ids(value):
    pass


@pytest.mark.parametrize("n", [pytest.param(1, id="one"), pytest.param(0, marks=pytest.mark.xfail(strict=True))])
def test_param_ids(n):
    assert n == 1


@pytest.mark.skipif(sys.platform != "nonexistent", reason="not here")
def test_skipif():
    raise AssertionError("must not run")


@pytest.mark.xfail(strict=True)
def test_xfail_strict_passes():
    pass


@pytest.mark.xfail(raises=KeyError)
def test_xfail_wrong_exception():
    raise ValueError("not the expected one")


def test_approx_and_warns(capsys):
    assert 0.1 + 0.2 == pytest.approx(0.3)
    assert [1.0, 2.0000001] == pytest.approx([1, 2])
    with pytest.warns(UserWarning, match="careful"):
        warnings.warn("be careful")
    print("hello")
    assert capsys.readouterr().out == "hello\n"


@pytest.fixture(params=[1, 2], ids=["one", "two"])
def num(request):
    return request.param


@pytest.fixture(scope="module", params=["x"])
def letter(request):
    return request.param


@pytest.mark.parametrize("k", [7])
def test_fixture_params(num, letter, k):
    assert (num, letter, k) in ((1, "x", 7), (2, "x", 7))


def test_tmp_path(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    assert (tmp_path / "f.txt").read_text() == "x"


def test_imperative_skip():
    pytest.skip("later")


def test_missing_fixture(nope):
    pass


class TestPlain:
    def setup_method(self, method):
        self.value = 41

    def test_setup_method(self):
        assert self.value + 1 == 42


class TestUnit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ready = True

    def test_class_fixture(self):
        self.assertTrue(self.ready)

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(1, 2)

    @unittest.skip("not today")
    def test_skipped(self):
        pass

    def test_error(self):
        raise RuntimeError("boom")
"#;

const EXPECTED: [(&str, TestStatus); 25] = [
    // Fixture parameters come before `parametrize` ids; wider scopes first.
    ("test_fixture_params[x-one-7]", TestStatus::Passed),
    ("test_fixture_params[x-two-7]", TestStatus::Passed),
    ("test_autouse_fixture_ran", TestStatus::Passed),
    ("test_module_scope_shared_once", TestStatus::Passed),
    ("test_module_scope_shared_twice", TestStatus::Passed),
    ("test_indirect[3]", TestStatus::Passed),
    ("test_stacked[a-1]", TestStatus::Passed),
    ("test_stacked[b-1]", TestStatus::Passed),
    ("test_stacked[b-2]", TestStatus::Failed),
    ("test_ids[None]", TestStatus::Passed),
    ("test_ids[True]", TestStatus::Passed),
    ("test_ids[1.5]", TestStatus::Passed),
    ("test_ids[\\xe9]", TestStatus::Passed),
    ("test_ids[value4]", TestStatus::Passed),
    ("test_param_ids[one]", TestStatus::Passed),
    ("test_param_ids[0]", TestStatus::XFail),
    ("test_skipif", TestStatus::Skipped),
    ("test_xfail_strict_passes", TestStatus::Failed),
    ("test_xfail_wrong_exception", TestStatus::Failed),
    ("test_approx_and_warns", TestStatus::Passed),
    ("test_tmp_path", TestStatus::Passed),
    ("test_imperative_skip", TestStatus::Skipped),
    ("test_missing_fixture", TestStatus::Error),
    ("TestPlain::test_setup_method", TestStatus::Passed),
    ("TestUnit::test_class_fixture", TestStatus::Passed),
];

const EXPECTED_UNITTEST: [(&str, TestStatus); 3] = [
    ("TestUnit::test_expected_failure", TestStatus::XFail),
    ("TestUnit::test_skipped", TestStatus::Skipped),
    ("TestUnit::test_error", TestStatus::Error),
];

fn bwrap_usable() -> bool {
    if std::env::var_os("CASCADE_SWE_SKIP_NATIVE").is_some() {
        return false;
    }
    std::process::Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-all", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn runner_matches_pytest_statuses() {
    if !bwrap_usable() {
        eprintln!("bubblewrap unavailable or CASCADE_SWE_SKIP_NATIVE set: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    write(&repo, "tests/conftest.py", CONFTEST);
    write(&repo, "tests/test_features.py", TESTS);
    let all: Vec<(&str, TestStatus)> = EXPECTED.iter().chain(&EXPECTED_UNITTEST).copied().collect();
    let ids: Vec<String> = all
        .iter()
        .map(|(name, _)| format!("tests/test_features.py::{name}"))
        .collect();
    let backend = NativeBackend::new("bwrap", "python3").with_runner(RunnerMode::Builtin);
    let run = backend
        .run(&TestJob {
            repo: &repo,
            scratch: &scratch,
            tests: &ids,
            nonce: "n0nce",
            timeout: Duration::from_secs(60),
        })
        .unwrap();
    let (_, summary) = split_log(&run.log, "n0nce");
    let statuses = parse_pytest(summary);
    let mut wrong = Vec::new();
    for ((_, want), id) in all.iter().zip(&ids) {
        let got = statuses.get(id).copied();
        if got != Some(*want) {
            wrong.push(format!("{id}: want {want:?}, got {got:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\n--- log ---\n{}",
        wrong.join("\n"),
        run.log
    );
}

/// Real pytest in the WASI guest gives the statuses the stand-in is held to, and
/// pytest's own for unittest classes (an error in a TestCase is a failure there).
/// Set CASCADE_SWE_SKIP_WASI=1 where the runtime is not installed (`scripts/setup`).
#[test]
fn real_pytest_under_wasi_gives_the_same_statuses() {
    if std::env::var_os("CASCADE_SWE_SKIP_WASI").is_some() {
        eprintln!("CASCADE_SWE_SKIP_WASI set: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    write(&repo, "tests/conftest.py", CONFTEST);
    write(
        &repo,
        "tests/test_features.py",
        &format!("{TESTS}\n{SUBTESTS}"),
    );
    let unittest_statuses = [
        ("TestUnit::test_expected_failure", TestStatus::XFail),
        ("TestUnit::test_skipped", TestStatus::Skipped),
        ("TestUnit::test_error", TestStatus::Failed),
        ("TestSub::test_all_pass", TestStatus::Passed),
        ("TestSub::test_one_fails", TestStatus::Failed),
    ];
    let all: Vec<(&str, TestStatus)> = EXPECTED.iter().chain(&unittest_statuses).copied().collect();
    let ids: Vec<String> = all
        .iter()
        .map(|(name, _)| format!("tests/test_features.py::{name}"))
        .collect();
    let backend = WasiBackend::new(PythonRuntime::Cpython312, 2048).with_runner(RunnerMode::Pytest);
    let run = backend
        .run(&TestJob {
            repo: &repo,
            scratch: &scratch,
            tests: &ids,
            nonce: "n0nce",
            timeout: Duration::from_secs(120),
        })
        .unwrap();
    let (body, summary) = split_log(&run.log, "n0nce");
    assert!(
        body.contains("short test summary info"),
        "not real pytest:\n{}",
        run.log
    );
    assert!(body.contains("FAILURES"), "{}", run.log);
    let statuses = parse_pytest(summary);
    let mut wrong = Vec::new();
    for ((_, want), id) in all.iter().zip(&ids) {
        let got = statuses.get(id).copied();
        if got != Some(*want) {
            wrong.push(format!("{id}: want {want:?}, got {got:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\n--- log ---\n{}",
        wrong.join("\n"),
        run.log
    );
}

/// unittest subTest blocks: a failing one fails its test (pytest 9 itself reports
/// the test PASSED next to a SUBFAILED line).
const SUBTESTS: &str = r#"
class TestSub(unittest.TestCase):
    def test_all_pass(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertLess(i, 3)

    def test_one_fails(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertLess(i, 2)
"#;
