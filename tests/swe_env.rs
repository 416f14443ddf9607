//! The `swe` environment end to end on the bundled tasks (`datasets/swe/`), with the
//! `native` backend: gold patches resolve, empty, malformed, escaping, tampering and
//! PASS_TO_PASS-breaking patches do not, and scoring is deterministic.
//!
//! Needs bubblewrap and python3 (`scripts/setup.d/swe.sh`). Where the host cannot
//! run bubblewrap at all, set CASCADE_SWE_SKIP_NATIVE=1 to skip these tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cascade_envs::swe::SweEnv;
use cascade_envs::{EnvConfig, Environment, Reward, Sample};
use serde_json::{json, Value};

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/swe")
}

fn native_usable() -> bool {
    if std::env::var_os("CASCADE_SWE_SKIP_NATIVE").is_some() {
        eprintln!("CASCADE_SWE_SKIP_NATIVE set: skipping native-backend tests");
        return false;
    }
    let ok = std::process::Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-all", "true"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "bubblewrap cannot run here; install it (scripts/setup.d/swe.sh) or set CASCADE_SWE_SKIP_NATIVE=1"
    );
    true
}

fn env_at(dir: &Path, pairs: &[&str]) -> SweEnv {
    let config =
        EnvConfig::from_pairs(std::iter::once("backend=native").chain(pairs.iter().copied()))
            .unwrap()
            .with_base_dir(dir);
    SweEnv::new(&config).unwrap()
}

fn samples() -> Vec<Sample> {
    let text = std::fs::read_to_string(dataset_dir().join("sample.jsonl")).unwrap();
    text.lines()
        .map(|l| Sample::from_json_line(l).unwrap())
        .collect()
}

fn score_all(env: &SweEnv) -> BTreeMap<String, Reward> {
    samples()
        .iter()
        .map(|s| (s.id().unwrap().to_owned(), env.score(s)))
        .collect()
}

/// Every file under `dir` with its bytes, to prove the snapshot is never modified.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn detail<'a>(r: &'a Reward, key: &str) -> &'a Value {
    r.details.get(key).unwrap_or(&Value::Null)
}

#[test]
fn bundled_tasks_resolve_by_swe_bench_rules() {
    if !native_usable() {
        return;
    }
    let repos = dataset_dir().join("repos");
    let before = snapshot(&repos);
    let env = env_at(&dataset_dir(), &[]);
    let results = score_all(&env);
    for (id, r) in &results {
        assert!(r.error_message().is_none(), "{id}: {:?}", r.details);
    }
    let resolved: Vec<&str> = results
        .iter()
        .filter(|(_, r)| r.score == 1.0)
        .map(|(id, _)| id.as_str())
        .collect();
    assert_eq!(
        resolved,
        vec![
            "calc-edit-block",
            "calc-gold-bare",
            "calc-gold-fenced",
            "calc-sloppy-diff",
            "ledger-gold-real-pytest",
            "shelf-gold-with-test-patch",
            "textkit-gold-crlf",
        ]
    );
    let r = &results["calc-gold-fenced"];
    assert_eq!(detail(r, "applied"), &json!(true));
    assert_eq!(
        detail(r, "fail_to_pass")["tests/test_ops.py::test_subtract[0-4--4]"],
        json!("passed")
    );
    assert_eq!(detail(r, "hunks")[0]["status"], json!("exact"));

    for id in ["calc-empty", "calc-prose-only"] {
        let r = &results[id];
        assert_eq!(detail(r, "applied"), &json!(false), "{id}");
        assert_eq!(detail(r, "format"), &json!("none"), "{id}");
        assert_eq!(
            detail(r, "fail_to_pass")["tests/test_ops.py::test_subtract[5-3-2]"],
            json!("missing")
        );
    }
    let r = &results["calc-breaks-pass-to-pass"];
    assert_eq!(detail(r, "applied"), &json!(true));
    assert_eq!(
        detail(r, "fail_to_pass")["tests/test_ops.py::test_subtract[5-3-2]"],
        json!("passed")
    );
    assert_eq!(
        detail(r, "pass_to_pass")["tests/test_ops.py::TestMean::test_empty"],
        json!("failed")
    );
    assert_eq!(detail(r, "resolution"), &json!("no"));

    let r = &results["calc-malformed-header"];
    assert_eq!(detail(r, "applied"), &json!(false));
    assert!(detail(r, "apply_error")
        .as_str()
        .unwrap()
        .starts_with("line 5:"));
    for id in ["calc-escape-parent-dir", "calc-escape-absolute"] {
        let r = &results[id];
        assert_eq!(
            (r.score, detail(r, "applied")),
            (0.0, &json!(false)),
            "{id}"
        );
        assert!(
            detail(r, "apply_error")
                .as_str()
                .unwrap()
                .contains("outside")
                || detail(r, "apply_error")
                    .as_str()
                    .unwrap()
                    .contains("climbs out")
        );
    }
    let r = &results["calc-second-hunk-fails"];
    assert_eq!(detail(r, "applied"), &json!(false));
    let statuses: Vec<&Value> = detail(r, "hunks")
        .as_array()
        .unwrap()
        .iter()
        .map(|h| &h["status"])
        .collect();
    assert_eq!(statuses, vec![&json!("exact"), &json!("failed")]);

    let r = &results["calc-sloppy-diff"];
    assert_eq!(detail(r, "hunks")[0]["status"], json!("offset"));
    assert_eq!(
        detail(&results["calc-edit-block"], "format"),
        &json!("edit_blocks")
    );

    let r = &results["textkit-subtest-still-fails"];
    assert_eq!(
        detail(r, "fail_to_pass")["tests/test_case.py::SlugifyTest::test_whitespace_runs"],
        json!("failed")
    );
    let r = &results["shelf-tampers-with-tests"];
    assert_eq!(r.score, 0.0);
    assert_eq!(
        detail(r, "fail_to_pass")["tests/test_stock.py::test_remove_clamps_at_zero"],
        json!("failed")
    );

    assert_eq!(snapshot(&repos), before, "the snapshot was modified");
}

#[test]
fn scoring_twice_gives_identical_bytes() {
    if !native_usable() {
        return;
    }
    let env = env_at(&dataset_dir(), &[]);
    let first = serde_json::to_string(&score_all(&env)).unwrap();
    let second = serde_json::to_string(&score_all(&env)).unwrap();
    assert_eq!(first, second);
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn row(id: &str, response: &str, f2p: &[&str]) -> Sample {
    Sample::new(json!({
        "id": id, "repo": "repo", "response": response,
        "fail_to_pass": f2p, "pass_to_pass": [],
    }))
}

#[test]
fn symlinks_that_lead_out_are_refused() {
    if !native_usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(&repo, "pkg/mod.py", "X = 1\n");
    write(
        &repo,
        "tests/test_m.py",
        "from pkg.mod import X\n\ndef test_x():\n    assert X == 2\n",
    );
    let env = env_at(dir.path(), &[]);
    let fix = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n";
    assert_eq!(
        env.score(&row("ok", fix, &["tests/test_m.py::test_x"]))
            .score,
        1.0
    );

    // A link inside the repository that points inside is copied, but a patch may
    // not write through it.
    std::os::unix::fs::symlink("pkg", repo.join("alias")).unwrap();
    let through = "--- a/alias/mod.py\n+++ b/alias/mod.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n";
    let r = env.score(&row("through-link", through, &["tests/test_m.py::test_x"]));
    assert_eq!((r.score, detail(&r, "applied")), (0.0, &json!(false)));

    // A link that leads out of the snapshot refuses the task.
    std::os::unix::fs::symlink("../../../../etc", repo.join("escape")).unwrap();
    let r = env.score(&row("link-out", fix, &["tests/test_m.py::test_x"]));
    assert_eq!(r.score, 0.0);
    assert!(
        r.error_message().unwrap().contains("leads outside"),
        "{:?}",
        r.details
    );
}

#[test]
fn a_hanging_test_times_out_with_reward_zero() {
    if !native_usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(
        &repo,
        "tests/test_h.py",
        "def test_h():\n    while True:\n        pass\n",
    );
    let env = env_at(dir.path(), &["timeout_s=1"]);
    let add = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+x\n";
    let r = env.score(&row("hang", add, &["tests/test_h.py::test_h"]));
    assert_eq!(r.score, 0.0);
    assert_eq!(detail(&r, "timed_out"), &json!(true));
    assert_eq!(
        detail(&r, "fail_to_pass")["tests/test_h.py::test_h"],
        json!("missing")
    );
}

#[test]
fn bad_rows_and_configs_are_reported() {
    let env = env_at(&dataset_dir(), &[]);
    let r = env.score(&Sample::new(json!({"id": "x", "response": ""})));
    assert_eq!(r.error_message(), Some("missing field `repo`"));
    let bad = EnvConfig::from_pairs(["colour=blue"]).unwrap();
    assert!(SweEnv::new(&bad).is_err());
    let bad = EnvConfig::from_pairs(["backend=docker"]).unwrap();
    assert!(SweEnv::new(&bad).is_err());
}

#[test]
fn native_sandbox_has_no_network_hidden_homes_and_a_read_only_host() {
    if !native_usable() {
        return;
    }
    // A file in the host's home that the tests must not see.
    let home = std::env::var("HOME").unwrap_or_default();
    let probe = Path::new(&home).join(format!(".cascade-swe-probe-{}", std::process::id()));
    let hidden_home = home.starts_with("/root") || home.starts_with("/home/");
    if hidden_home {
        std::fs::write(&probe, "secret").unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let test = format!(
        "import os, socket\n\n\
def test_no_network():\n    try:\n        socket.create_connection((\"1.1.1.1\", 80), timeout=2)\n    except OSError:\n        return\n    raise AssertionError(\"network reachable\")\n\n\
def test_home_hidden():\n    assert not os.path.exists({:?})\n\n\
def test_host_read_only():\n    try:\n        open(\"/usr/cascade-probe\", \"w\")\n    except OSError:\n        return\n    raise AssertionError(\"host writable\")\n",
        probe.display().to_string()
    );
    write(&repo, "tests/test_jail.py", &test);
    let env = env_at(dir.path(), &[]);
    let add = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+x\n";
    let tests = [
        "tests/test_jail.py::test_no_network",
        "tests/test_jail.py::test_home_hidden",
        "tests/test_jail.py::test_host_read_only",
    ];
    let r = env.score(&row("jail", add, &tests));
    if hidden_home {
        std::fs::remove_file(&probe).unwrap();
    }
    assert_eq!(r.score, 1.0, "{:?}", r.details);
}

#[test]
fn tests_cannot_fake_their_status_lines() {
    if !native_usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    // Prints fake summaries in every way it can: Python-level, to the raw file
    // descriptors, and from an exit handler that would run after the real summary.
    write(
        &repo,
        "tests/test_spoof.py",
        "import atexit, os, sys\n\n\
FAKE = '=== cascade-runner summary ===\\nPASSED tests/test_spoof.py::test_fails\\n=== cascade-runner end ===\\n'\n\n\
def test_fails():\n    print(FAKE)\n    os.write(1, FAKE.encode())\n    os.write(2, FAKE.encode())\n    atexit.register(lambda: os.write(1, FAKE.encode()))\n    assert False\n",
    );
    let env = env_at(dir.path(), &[]);
    let add = "--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+x\n";
    let r = env.score(&row("spoof", add, &["tests/test_spoof.py::test_fails"]));
    assert_eq!(r.score, 0.0, "{:?}", r.details);
    assert_eq!(
        detail(&r, "fail_to_pass")["tests/test_spoof.py::test_fails"],
        json!("failed")
    );
}

#[test]
fn native_test_command_log_is_parsed_like_swe_bench() {
    if !native_usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    write(&repo, "calc.py", "def double(x):\n    return x + x + 1\n");
    write(&repo, "tests/__init__.py", "");
    write(
        &repo,
        "tests/test_u.py",
        "import unittest\nfrom calc import double\n\nclass T(unittest.TestCase):\n    def test_double(self):\n        self.assertEqual(double(2), 4)\n\n    def test_type(self):\n        self.assertIsInstance(double(1), int)\n",
    );
    let env = env_at(
        dir.path(),
        &["test_command=python -m unittest -v tests.test_u"],
    );
    let fix = "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def double(x):\n-    return x + x + 1\n+    return x + x\n";
    let sample = Sample::new(json!({
        "id": "cmd", "repo": "repo", "response": fix,
        "fail_to_pass": ["tests.test_u.T.test_double"],
        "pass_to_pass": ["tests.test_u.T.test_type"],
    }));
    let r = env.score(&sample);
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    let unfixed = Sample::new(json!({
        "id": "cmd", "repo": "repo", "response": "",
        "fail_to_pass": ["tests.test_u.T.test_double"], "pass_to_pass": [],
    }));
    assert_eq!(env.score(&unfixed).score, 0.0);
}

/// The default backend: CPython for WASI. Its results on the bundled tasks are the
/// stored expected scores, byte for byte (the same as `native` gives). Set
/// CASCADE_SWE_SKIP_WASI=1 where the runtime is not installed (`scripts/setup`).
#[test]
fn wasi_backend_reproduces_the_expected_scores() {
    if std::env::var_os("CASCADE_SWE_SKIP_WASI").is_some() {
        eprintln!("CASCADE_SWE_SKIP_WASI set: skipped");
        return;
    }
    let config = EnvConfig::new(Default::default()).with_base_dir(dataset_dir());
    let env = SweEnv::new(&config).unwrap();
    let expected = std::fs::read_to_string(dataset_dir().join("sample.expected.jsonl")).unwrap();
    for (sample, line) in samples().iter().zip(expected.lines()) {
        let want: Value = serde_json::from_str(line).unwrap();
        let got = env.score(sample);
        assert_eq!(
            json!(got.details),
            want["details"],
            "{}",
            sample.id().unwrap()
        );
        assert_eq!(json!(got.score), want["reward"], "{}", sample.id().unwrap());
    }
}
