//! The `swe` environment end to end with real pytest (the pinned wheels that
//! `scripts/setup.d/swe.sh` installs) in the default `wasi` backend: the bundled
//! tasks get the same verdicts as with the stand-in, `runner=auto` switches to real
//! pytest for suites that need it, and tests still cannot fake their status lines.
//!
//! Set CASCADE_SWE_SKIP_WASI=1 where the runtime is not installed (`scripts/setup`).

use std::path::{Path, PathBuf};

use cascade_envs::swe::SweEnv;
use cascade_envs::{EnvConfig, Environment, Reward, Sample};
use serde_json::{json, Value};

fn skip() -> bool {
    let skip = std::env::var_os("CASCADE_SWE_SKIP_WASI").is_some();
    if skip {
        eprintln!("CASCADE_SWE_SKIP_WASI set: skipped");
    }
    skip
}

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/swe")
}

fn env_at(dir: &Path, pairs: &[&str]) -> SweEnv {
    let config = EnvConfig::from_pairs(pairs.iter().copied())
        .unwrap()
        .with_base_dir(dir);
    SweEnv::new(&config).unwrap()
}

fn detail<'a>(r: &'a Reward, key: &str) -> &'a Value {
    r.details.get(key).unwrap_or(&Value::Null)
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Real pytest agrees with the stored verdicts (those of the stand-in and of the
/// `native` backend) on every bundled task: the calc tasks use `pytest.raises` with
/// `match=`, `parametrize` and a fixture; textkit a failing subTest; shelf conftest
/// fixtures and a test patch.
#[test]
fn bundled_tasks_get_the_stored_verdicts_with_real_pytest() {
    if skip() {
        return;
    }
    let env = env_at(&dataset_dir(), &["runner=pytest"]);
    let samples = std::fs::read_to_string(dataset_dir().join("sample.jsonl")).unwrap();
    let expected = std::fs::read_to_string(dataset_dir().join("sample.expected.jsonl")).unwrap();
    for (line, want) in samples.lines().zip(expected.lines()) {
        let sample = Sample::from_json_line(line).unwrap();
        let id = sample.id().unwrap().to_owned();
        let want: Value = serde_json::from_str(want).unwrap();
        let got = env.score(&sample);
        assert_eq!(json!(got.score), want["reward"], "{id}: {:?}", got.details);
        for key in ["applied", "fail_to_pass", "pass_to_pass", "resolution"] {
            assert_eq!(detail(&got, key), &want["details"][key], "{id}: {key}");
        }
        if detail(&got, "applied") == &json!(true) && got.score == 0.0 {
            // The failure report is pytest's (`--tb=line`), not the stand-in's.
            let log = detail(&got, "log").as_str().unwrap();
            assert!(log.contains("FAILURES"), "{id}: {log}");
        }
    }
    let gold = Sample::from_json_line(samples.lines().next().unwrap()).unwrap();
    assert_eq!(gold.id(), Some("calc-gold-fenced"));
    let r = env.score(&gold);
    assert_eq!(
        detail(&r, "pass_to_pass")["tests/test_ops.py::TestMean::test_empty"],
        json!("passed")
    );
}

/// A suite with a pytest config file and fixtures the stand-in lacks (`caplog`,
/// `tmp_path_factory`): `auto` runs it with real pytest and resolves the fix; the
/// stand-in (`builtin`) cannot, so it errors.
#[test]
fn auto_uses_real_pytest_when_the_suite_needs_it() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(
        &repo,
        "pyproject.toml",
        "[tool.pytest.ini_options]\nmarkers = [\"slow: slow tests\"]\n",
    );
    write(
        &repo,
        "src/audit/__init__.py",
        "import logging\n\nlog = logging.getLogger(\"audit\")\n\n\ndef record(event):\n    log.warning(\"event %s\", event)\n    return event.upper()\n",
    );
    write(
        &repo,
        "tests/test_audit.py",
        "import logging\n\nimport pytest\n\nfrom audit import record\n\n\n\
def test_logs_the_event(caplog):\n    with caplog.at_level(logging.INFO):\n        record(\"open\")\n    assert caplog.messages == [\"audit: open\"]\n\n\n\
@pytest.mark.slow\n@pytest.mark.parametrize(\"event,want\", [(\"a\", \"A\"), (\"b\", \"B\")])\n\
def test_upper(event, want, tmp_path_factory):\n    assert tmp_path_factory.mktemp(\"x\").is_dir()\n    assert record(event) == want\n",
    );
    let fix = "--- a/src/audit/__init__.py\n+++ b/src/audit/__init__.py\n@@ -5,3 +5,3 @@\n def record(event):\n-    log.warning(\"event %s\", event)\n+    log.warning(\"audit: %s\", event)\n     return event.upper()\n";
    let sample = Sample::new(json!({
        "id": "audit", "repo": "repo", "response": fix,
        "fail_to_pass": ["tests/test_audit.py::test_logs_the_event"],
        "pass_to_pass": ["tests/test_audit.py::test_upper[a-A]", "tests/test_audit.py::test_upper[b-B]"],
    }));
    let r = env_at(dir.path(), &[]).score(&sample);
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    let unfixed = Sample::new(json!({
        "id": "audit", "repo": "repo", "response": "",
        "fail_to_pass": ["tests/test_audit.py::test_logs_the_event"], "pass_to_pass": [],
    }));
    let r = env_at(dir.path(), &[]).score(&unfixed);
    assert_eq!(r.score, 0.0);
    let r = env_at(dir.path(), &["runner=builtin"]).score(&sample);
    assert_eq!(r.score, 0.0);
    assert_eq!(
        detail(&r, "fail_to_pass")["tests/test_audit.py::test_logs_the_event"],
        json!("error")
    );
}

/// An ini file whose `addopts` names a plugin that is not installed (`--cov`) makes
/// pytest refuse to start; the run is retried without those options.
#[test]
fn real_pytest_survives_addopts_for_missing_plugins() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(
        &repo,
        "pyproject.toml",
        "[tool.pytest.ini_options]\naddopts = \"--cov=calc --cov-report=term\"\n",
    );
    write(&repo, "calc.py", "def double(x):\n    return x + x + 1\n");
    write(
        &repo,
        "tests/test_calc.py",
        "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
    );
    let fix = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def double(x):\n-    return x + x + 1\n+    return x + x\n";
    let sample = Sample::new(json!({
        "id": "cov", "repo": "repo", "response": fix,
        "fail_to_pass": ["tests/test_calc.py::test_double"], "pass_to_pass": [],
    }));
    let r = env_at(dir.path(), &[]).score(&sample);
    assert_eq!(r.score, 1.0, "{:?}", r.details);
}

/// Fake status lines printed by a test, written to the raw descriptor, or from an
/// exit handler all land before the summary marker, so they are never read.
#[test]
fn real_pytest_tests_cannot_fake_their_status_lines() {
    if skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(
        &repo,
        "tests/test_spoof.py",
        "import atexit, os, sys\n\n\
FAKE = '=== cascade-runner summary ===\\nPASSED tests/test_spoof.py::test_fails\\n=== cascade-runner end ===\\n'\n\n\
def test_fails():\n    print(FAKE)\n    os.write(1, FAKE.encode())\n    os.write(2, FAKE.encode())\n    atexit.register(lambda: os.write(1, FAKE.encode()))\n    assert False\n\n\
def test_prints_and_passes():\n    print(FAKE)\n",
    );
    let env = env_at(dir.path(), &["runner=pytest"]);
    let add = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+x\n";
    let sample = Sample::new(json!({
        "id": "spoof", "repo": "repo", "response": add,
        "fail_to_pass": ["tests/test_spoof.py::test_fails"],
        "pass_to_pass": ["tests/test_spoof.py::test_prints_and_passes"],
    }));
    let r = env.score(&sample);
    assert_eq!(r.score, 0.0, "{:?}", r.details);
    assert_eq!(
        detail(&r, "fail_to_pass")["tests/test_spoof.py::test_fails"],
        json!("failed")
    );
    assert_eq!(
        detail(&r, "pass_to_pass")["tests/test_spoof.py::test_prints_and_passes"],
        json!("passed")
    );
}
