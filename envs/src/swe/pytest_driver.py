"""Runs test node ids with real pytest (pinned wheels mounted read-only) for the
`swe` environment, under CPython for WASI or natively. pytest's own `-rA` output is
the log; the statuses leave through runner.py's guard, never through stdout.

Imported by runner.py; also run as a script to precompile the wheels' bytecode:
    python pytest_driver.py --warm PYC_DIR WHEEL_DIR...

What WASI lacks, and how it is worked around without touching pytest's files:
- `os.dup`/`os.dup2` (fd-level capture, faulthandler): `--capture=sys`,
  `-p no:faulthandler`, and the `capfd`/`capfdbinary` fixtures re-bound to their
  sys-level twins `capsys`/`capsysbinary` by the plugin below;
- `os.getuid` (tmp_path's ownership check of the shared temp root): `--basetemp`
  names a fresh folder under the sandbox's private `/tmp`, which skips that check;
- `/dev/null` (the logging plugin's default log file): the host mounts a folder
  holding an empty `null` file at `/dev`.
"""

import linecache
import os
import re
import sys

# pytest's exit code for bad options or a conftest that fails to import.
USAGE_ERROR = 4

# What the standard-library stand-in in runner.py cannot honour: pytest
# configuration, hooks and plugins, and fixtures or request attributes it lacks.
CONFIG_FILES = (
    ("pytest.ini", ""),
    ("pyproject.toml", "[tool.pytest"),
    ("setup.cfg", "[tool:pytest]"),
    ("tox.ini", "[pytest]"),
)
NEEDS_PYTEST = re.compile(
    r"\b(caplog|tmp_path_factory|tmpdir_factory|pytestconfig|capsysbinary|capfdbinary"
    r"|record_property|record_testsuite_property|record_xml_attribute|pytester|testdir"
    r"|subtests|doctest_namespace|pytest_generate_tests|metafunc|filterwarnings"
    r"|register_assert_rewrite|RaisesGroup|RaisesExc|hookimpl|pytest_plugins)\b"
    r"|\brequest\.(node|config|module|cls|function|instance|keywords|session|path"
    r"|applymarker)\b"
    r"|^\s*def pytest_",
    re.MULTILINE,
)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def needs_real_pytest(ids):
    """True when the suite uses pytest features the stand-in lacks: a pytest config
    file, or, in the test files or any conftest.py on their way from the root, a
    hook, a plugin or a fixture the stand-in does not provide. A plain text scan:
    cheap, deterministic, and erring towards real pytest."""
    for name, section in CONFIG_FILES:
        if os.path.isfile(name) and section in read_text(name):
            return True
    scanned = set()
    for node_id in ids:
        path = node_id.split("::")[0]
        parts = path.split("/")[:-1]
        candidates = [path] + [
            "/".join(parts[:depth] + ["conftest.py"]) for depth in range(len(parts) + 1)
        ]
        for candidate in candidates:
            if candidate in scanned or not os.path.isfile(candidate):
                continue
            scanned.add(candidate)
            if NEEDS_PYTEST.search(read_text(candidate)):
                return True
    return False


def load_pytest(paths, pyc_dir):
    """Imports the wheels' pytest, reading precompiled bytecode from `pyc_dir` when
    the host provides it (compiling pytest on every run costs half the run)."""
    if pyc_dir:
        sys.pycache_prefix = pyc_dir
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(0, path)
    sys.modules.pop("pytest", None)
    import pytest

    return pytest


def make_plugin(pytest, wanted):
    wasi = sys.platform == "wasi"

    class CascadePlugin:
        """Keeps the requested node ids, records each one's status as pytest's `-rA`
        summary would word it (runner.py reports them through its guard), and on
        WASI gives the fd-capturing fixtures their sys-level twins."""

        def __init__(self):
            self.statuses = {}
            self.reports = 0

        def pytest_collection_modifyitems(self, config, items):
            keep = [item for item in items if item.nodeid in wanted]
            dropped = [item for item in items if item.nodeid not in wanted]
            if dropped:
                config.hook.pytest_deselected(items=dropped)
            items[:] = keep

        def pytest_runtest_setup(self, item):
            # Each test's source is read afresh, where runner.py's guard can see who
            # reads it.
            linecache.clearcache()

        def pytest_runtest_logreport(self, report):
            self.reports += 1
            status = report_status(report)
            if status is None:
                return
            before = self.statuses.get(report.nodeid)
            # The worst phase wins: a teardown error spoils a passed call, and (pytest
            # 9) a failing unittest subTest fails its test, as unittest does.
            if before is None or RANK[status] > RANK[before]:
                self.statuses[report.nodeid] = status

        if wasi:

            @pytest.fixture
            def capfd(self, request):
                return request.getfixturevalue("capsys")

            @pytest.fixture
            def capfdbinary(self, request):
                return request.getfixturevalue("capsysbinary")

    return CascadePlugin()


RANK = {"PASSED": 0, "SKIPPED": 1, "XFAIL": 1, "XPASS": 1, "FAILED": 2, "ERROR": 3}


def report_status(report):
    """One phase's report as a `-rA` status word; None for a passed setup/teardown."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "XPASS" if xfail else "PASSED"
        if report.skipped:
            return "XFAIL" if xfail else "SKIPPED"
        return "FAILED"
    if report.failed:
        return "ERROR"
    if report.skipped:
        return "XFAIL" if xfail else "SKIPPED"
    return None


def pytest_args(files):
    return [
        "-q",
        "-rA",
        "--tb=line",
        "--no-fold-skipped",
        "--color=no",
        "--rootdir=.",
        "--continue-on-collection-errors",
        "--capture=sys",
        "--basetemp=/tmp/pytest-cascade",
        "-p", "no:cacheprovider",
        "-p", "no:faulthandler",
    ] + files


def load(paths, pyc_dir):
    """Real pytest, or None (then the stand-in runs the tests)."""
    try:
        return load_pytest(paths, pyc_dir)
    except Exception as e:  # noqa: BLE001 - any import failure means: use the stand-in
        print(f"[cascade] real pytest unavailable ({type(e).__name__}: {e}); using the stand-in")
        return None


def run(pytest, ids, plugin):
    """Runs the test files holding `ids` with real pytest, keeping only `ids`; returns
    the plugin that recorded their statuses."""
    files = []
    for node_id in ids:
        path = node_id.split("::")[0]
        if path not in files and os.path.isfile(path):
            files.append(path)
    if files:
        code = pytest.main(pytest_args(files), plugins=[plugin])
        if code == USAGE_ERROR and plugin.reports == 0:
            # Most often the ini file's `addopts` names a plugin that is not
            # installed here (`--cov`, `-n auto`): run once more without them.
            print("[cascade] pytest refused its options; retrying without addopts")
            plugin.statuses.clear()
            pytest.main(["-o", "addopts="] + pytest_args(files), plugins=[plugin])
    return plugin


def warm(pyc_dir, paths):
    """Writes bytecode for every module of the wheels under `pyc_dir`; pygments only
    for the modules pytest imports (the rest is hundreds of lexers it never loads)."""
    import compileall

    sys.pycache_prefix = pyc_dir
    sys.dont_write_bytecode = False
    ok = True
    for path in paths:
        if os.path.isdir(os.path.join(path, "pygments")):
            continue
        ok = compileall.compile_dir(path, quiet=1) and ok
    pytest = load_pytest(paths, pyc_dir)
    import _pytest._io.terminalwriter  # noqa: F401 - pulls in the pygments modules

    for name in pytest.__dict__.get("__all__", ()):
        getattr(pytest, name, None)
    return ok


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--warm":
        sys.exit(0 if warm(sys.argv[2], sys.argv[3:]) else 1)
    print("usage: pytest_driver.py --warm PYC_DIR WHEEL_DIR...", file=sys.stderr)
    sys.exit(2)
