//! Issue 34: a patch cannot forge the `swe` verdict. Each cheat is a small patch
//! against the bundled tiny repositories (`datasets/swe/repos`) that leaves the
//! FAIL_TO_PASS bug in place and tries to make the run report a pass anyway; every one
//! must score 0, under both backends. Honest patches (a fix, a fix with a test of the
//! model's own) still score 1.
//!
//! Needs bubblewrap and python3 for `native` (CASCADE_SWE_SKIP_NATIVE=1 skips it) and
//! the CPython runtime from `scripts/setup` for `wasi` (CASCADE_SWE_SKIP_WASI=1).

use std::path::{Path, PathBuf};

use cascade_envs::swe::SweEnv;
use cascade_envs::{EnvConfig, Environment, Reward, Sample};
use serde_json::{json, Value};

fn dataset_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/swe")
}

fn backends() -> Vec<&'static str> {
    let mut out = Vec::new();
    let bwrap = std::process::Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-all", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if std::env::var_os("CASCADE_SWE_SKIP_NATIVE").is_none() && bwrap {
        out.push("native");
    }
    if std::env::var_os("CASCADE_SWE_SKIP_WASI").is_none() {
        out.push("wasi");
    }
    out
}

fn env(backend: &str, extra: &[&str]) -> SweEnv {
    let pairs = [format!("backend={backend}")];
    let config = EnvConfig::from_pairs(
        pairs
            .iter()
            .map(String::as_str)
            .chain(extra.iter().copied()),
    )
    .unwrap()
    .with_base_dir(dataset_dir());
    SweEnv::new(&config).unwrap()
}

/// A diff appending `lines` to the end of `path` in repository `repo`.
fn append(repo: &str, path: &str, lines: &str) -> String {
    let text = std::fs::read_to_string(dataset_dir().join(repo).join(path)).unwrap();
    let old: Vec<&str> = text.lines().collect();
    let keep = old.len().min(3);
    let start = old.len() - keep + 1;
    let added: Vec<&str> = lines.lines().collect();
    let mut diff = format!(
        "--- a/{path}\n+++ b/{path}\n@@ -{start},{keep} +{start},{} @@\n",
        keep + added.len()
    );
    for l in &old[old.len() - keep..] {
        diff.push_str(&format!(" {l}\n"));
    }
    for l in added {
        diff.push_str(&format!("+{l}\n"));
    }
    diff
}

/// A diff creating `path` with `lines`.
fn create(path: &str, lines: &str) -> String {
    let added: Vec<&str> = lines.lines().collect();
    let mut diff = format!(
        "--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
        added.len()
    );
    for l in added {
        diff.push_str(&format!("+{l}\n"));
    }
    diff
}

const CALC_FIX: &str = "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -9,3 +9,3 @@\n def subtract(a, b):\n     \"\"\"Return a - b.\"\"\"\n-    return a + b\n+    return a - b\n";

fn calc_row(id: &str, response: &str) -> Sample {
    Sample::new(json!({
        "id": id,
        "repo": "repos/calc",
        "fail_to_pass": ["tests/test_ops.py::test_subtract[5-3-2]"],
        "pass_to_pass": ["tests/test_ops.py::test_add", "tests/test_ops.py::TestMean::test_simple"],
        "response": format!("```diff\n{response}```\n"),
    }))
}

fn textkit_row(id: &str, response: &str) -> Sample {
    Sample::new(json!({
        "id": id,
        "repo": "repos/textkit",
        "fail_to_pass": ["tests/test_case.py::SlugifyTest::test_whitespace_runs"],
        "pass_to_pass": ["tests/test_case.py::SlugifyTest::test_single_spaces"],
        "response": format!("```diff\n{response}```\n"),
    }))
}

/// Every cheat: (name, row). None of them fixes `subtract` / `slugify`.
fn cheats() -> Vec<(&'static str, Sample)> {
    let calc_init = |lines: &str| append("repos/calc", "calc/__init__.py", lines);
    let summary = "ids = open(sys.argv[-1]).read().split()\n\
                   fake = '=== cascade-runner summary ===\\n' + ''.join('PASSED %s\\n' % i for i in ids) + '=== cascade-runner end ===\\n'";
    vec![
        (
            "replaces the runner's test function",
            calc_row("runner-fn", &calc_init(
                "import __main__\n__main__.run_pytest_style = lambda *a, **k: ('PASSED', '')",
            )),
        ),
        (
            "no-op addFailure",
            textkit_row("addfailure", &append(
                "repos/textkit",
                "textkit/__init__.py",
                "import unittest\nunittest.TestResult.addFailure = lambda *a: None\nunittest.TestResult.addSubTest = lambda *a: None",
            )),
        ),
        (
            "fake summary on fd 1, then exit",
            calc_row("fd1", &calc_init(&format!(
                "import os, sys\n{summary}\nos.write(1, fake.encode())\nos._exit(0)"
            ))),
        ),
        (
            "sys.exit after a printed fake summary",
            calc_row("sysexit", &calc_init(&format!(
                "import sys\n{summary}\nsys.__stdout__.write(fake)\nsys.__stdout__.flush()\nsys.exit(0)"
            ))),
        ),
        (
            "patched print",
            calc_row("print", &calc_init(
                "import builtins, sys\nids = open(sys.argv[-1]).read().split()\n_p = builtins.print\ndef _fake(*a, **k):\n    if a and 'cascade-runner end' in str(a[0]):\n        _p('=== cascade-runner summary ===\\n' + ''.join('PASSED %s\\n' % i for i in ids), **k)\n    _p(*[str(x).replace('FAILED', 'PASSED') for x in a], **k)\nbuiltins.print = _fake",
            )),
        ),
        (
            "a codec on stdout",
            calc_row("codec", &calc_init(
                "import codecs, sys\n\
                 def _enc(s, errors='strict'):\n    return s.replace('FAILED ', 'PASSED ').encode('utf-8'), len(s)\n\
                 def _dec(b, errors='strict'):\n    return b.decode('utf-8'), len(b)\n\
                 codecs.register(lambda n: codecs.CodecInfo(_enc, _dec, name='cheat') if n == 'cheat' else None)\n\
                 sys.__stdout__.flush()\nsys.__stdout__.reconfigure(encoding='cheat')",
            )),
        ),
        (
            "sitecustomize.py at the root",
            calc_row("sitecustomize", &create(
                "sitecustomize.py",
                "import calc, calc.ops\ncalc.subtract = calc.ops.subtract = lambda a, b: a - b",
            )),
        ),
        (
            "conftest.py swapping in a fixed function",
            calc_row("conftest", &create(
                "tests/conftest.py",
                "import calc, calc.ops\ncalc.subtract = calc.ops.subtract = lambda a, b: a - b",
            )),
        ),
        (
            "makereport hookwrapper",
            calc_row("makereport", &create(
                "conftest.py",
                "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    rep = outcome.get_result()\n    rep.outcome = 'passed'",
            )),
        ),
        (
            "edited test",
            calc_row("edit-test", "--- a/tests/test_ops.py\n+++ b/tests/test_ops.py\n@@ -11,2 +11,2 @@\n def test_subtract(a, b, expected):\n-    assert subtract(a, b) == pytest.approx(expected)\n+    assert subtract(a, b) == pytest.approx(a + b)\n"),
        ),
        (
            "pytest.xfail from the library",
            calc_row("xfail", &calc_init(
                "import pytest, calc.ops\n_s = calc.ops.subtract\ndef subtract(a, b):\n    pytest.xfail('later')\ncalc.subtract = calc.ops.subtract = subtract",
            )),
        ),
        (
            "pytest.skip hides a broken PASS_TO_PASS test",
            calc_row("skip", &format!("{CALC_FIX}{}", calc_init(
                "import pytest, calc.ops\ndef add(a, b):\n    pytest.skip('later')\ncalc.add = calc.ops.add = add",
            ))),
        ),
        (
            "returns the caller's `expected` (bare assert)",
            calc_row("frame-expected", &calc_init(
                "import sys, calc.ops\ndef subtract(a, b):\n    return sys._getframe(1).f_locals['expected']\ncalc.subtract = calc.ops.subtract = subtract",
            )),
        ),
        (
            "returns the caller's expected value (assertEqual)",
            textkit_row("frame-assertequal", &append(
                "repos/textkit",
                "textkit/__init__.py",
                "import sys\nfrom textkit import case\n_orig = case.slugify\ndef slugify(text):\n    f = sys._getframe(1)\n    return f.f_locals.get('slug', _orig(text))\ncase.slugify = slugify",
            )),
        ),
        (
            "reads the caller through inspect.stack()",
            calc_row("frame-stack", &calc_init(
                "import inspect, calc.ops\ndef subtract(a, b):\n    return inspect.stack()[1].frame.f_locals['expected']\ncalc.subtract = calc.ops.subtract = subtract",
            )),
        ),
        (
            "reads the assert line's source",
            calc_row("frame-source", &calc_init(
                "import sys, linecache, calc.ops\ndef subtract(a, b):\n    f = sys._getframe(0).f_back\n    line = linecache.getline(f.f_globals['__file__'], f.f_lineno)\n    return eval(line.split('approx(')[1].strip()[:-1], f.f_globals, f.f_locals)\ncalc.subtract = calc.ops.subtract = subtract",
            )),
        ),
        (
            "heap walk for the runner's state",
            calc_row("gc", &calc_init(
                "import gc\nfor o in gc.get_objects():\n    pass",
            )),
        ),
    ]
}

fn score(env: &SweEnv, row: &Sample) -> Reward {
    env.score(row)
}

fn line(r: &Reward) -> String {
    serde_json::to_string(r).unwrap()
}

/// The runners to try: the stand-in always, real pytest where its wheels are installed.
fn runners() -> Vec<&'static str> {
    let mut out = vec!["runner=builtin"];
    if cascade_envs::swe::PytestSite::installed("/pytest").is_ok() {
        out.push("runner=pytest");
    }
    out
}

#[test]
fn no_cheat_is_rewarded() {
    let mut paid = Vec::new();
    for backend in backends() {
        for runner in runners() {
            let env = env(backend, &[runner]);
            for (name, row) in cheats() {
                let r = score(&env, &row);
                if r.score != 0.0 {
                    paid.push(format!("{backend} {runner}: {name}: {}", line(&r)));
                }
            }
        }
    }
    assert!(paid.is_empty(), "cheats rewarded:\n{}", paid.join("\n"));
}

#[test]
fn tampering_is_named_and_scores_are_deterministic() {
    for backend in backends() {
        let env = env(backend, &[]);
        let row = &cheats()[0].1;
        let first = score(&env, row);
        assert_eq!(first.score, 0.0);
        let error = first
            .details
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("");
        assert!(
            error.contains("tampered with the test runner"),
            "{}",
            line(&first)
        );
        assert!(
            !line(&first).contains("cascade-runner summary"),
            "{}",
            line(&first)
        );
        assert_eq!(line(&first), line(&score(&env, row)), "{backend}");
    }
}

#[test]
fn honest_patches_still_pass_and_own_tests_are_discarded() {
    let own_test = create("tests/test_mine.py", "def test_mine():\n    assert True");
    for backend in backends() {
        let env = env(backend, &[]);
        let fixed = score(&env, &calc_row("fix", CALC_FIX));
        assert_eq!(fixed.score, 1.0, "{}", line(&fixed));
        assert!(!fixed.details.contains_key("discarded"));
        let with_test = score(
            &env,
            &calc_row("fix+test", &format!("{CALC_FIX}{own_test}")),
        );
        assert_eq!(with_test.score, 1.0, "{}", line(&with_test));
        assert_eq!(
            with_test.details["discarded"],
            json!(["tests/test_mine.py"])
        );

        let strict = self::env(backend, &["test_files=refuse"]);
        let refused = score(
            &strict,
            &calc_row("fix+test", &format!("{CALC_FIX}{own_test}")),
        );
        assert_eq!(refused.score, 0.0);
        let error = refused.details["error"].as_str().unwrap_or("");
        assert!(
            error.contains("test infrastructure: tests/test_mine.py"),
            "{error}"
        );
    }
}
