"""cascade's test runner for the `swe` environment.

Runs the tests named by pytest node ids (`tests/test_x.py::test_f`,
`tests/test_x.py::TestK::test_m[1-2]`, `tests/test_x.py::TestCase::test_m`) and
prints one `STATUS node_id` line per requested id after a summary marker, in the
order asked, in pytest `-rA` style. It needs nothing but the standard library, so it
runs the same under native CPython and CPython for WASI.

If the tests `import pytest`, a small stand-in module is provided with the parts
test suites commonly use: raises, warns, approx, mark.parametrize / skip / skipif /
xfail / usefixtures, param, fixture (with yield, scopes, autouse, conftest.py,
indirect parametrization), skip, fail, xfail, importorskip, and the fixtures
tmp_path, monkeypatch, capsys and request. unittest.TestCase classes run through
unittest itself; a failing subTest makes the test fail.

Usage (cwd = repository root):
    python runner.py IDS_FILE            run the node ids listed one per line
    python runner.py --collect FILE...   print the node ids the files define

With `--pytest DIR:DIR... [--pyc DIR] --mode pytest|auto` before them, the ids run
with real pytest from those wheel folders instead (pytest_driver.py): always
(`pytest`), or when the suite uses what the stand-in lacks (`auto`); the stand-in
remains the fallback when real pytest cannot be imported.
"""

import contextlib
import importlib
import importlib.util
import inspect
import io
import itertools
import linecache
import math
import operator
import os
import re
import shutil
import sys
import tempfile
import traceback
import types
import unittest
import warnings

SUMMARY_MARKER = "=== cascade-runner summary ==="
END_MARKER = "=== cascade-runner end ==="
TAMPER_MARKER = "=== cascade-runner tampered"

# What main() tells the guard; the guard answers only main()'s own frame.
BEGIN_EVENT = "cascade.begin"
RESULT_EVENT = "cascade.result"
END_EVENT = "cascade.end"

# Calls that could reach the guard's closure or rewrite running frames: refused
# while the tests run (a test that needs them fails the run; see sandboxes/README).
REFUSED_EVENTS = frozenset((
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
    "sys.settrace", "sys.setprofile", "ctypes.string_at", "ctypes.wstring_at",
    "ctypes.cdata", "ctypes.cdata/buffer", "ctypes.set_errno", "ctypes.dlsym/handle",
    "cpython._PySys_ClearAuditHooks", "cpython.PyInterpreterState_Clear",
))


# Test infrastructure, as envs/src/swe/trusted.rs defines it (repository-relative).
INFRASTRUCTURE_FILES = frozenset((
    "conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml",
    "sitecustomize.py", "usercustomize.py",
))


def is_test_infrastructure(rel):
    parts = [p for p in rel.replace(os.sep, "/").split("/") if p]
    if not parts:
        return False
    name = parts[-1]
    test_file = name.endswith(".py") and (name.startswith("test_") or name[:-3].endswith("_test"))
    return ("tests" in parts[:-1] or parts[:1] == ["test"] and len(parts) > 1 or test_file
            or name.endswith(".pth") or name in INFRASTRUCTURE_FILES)


def read_nonce():
    """The run's nonce: all of stdin, which the host closes after writing it, read
    before any repository code is imported (so none can read it from stdin)."""
    chunks = []
    while True:
        try:
            chunk = os.read(0, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("ascii", "replace").strip()


def marker(text, nonce):
    """`=== cascade-runner summary NONCE ===`: only the guard knows the nonce."""
    return f"{text[:-4]} {nonce} ===" if nonce else text


def watched_state():
    """What decides a verdict besides the guard: the runner's globals, its classes'
    and functions' code, unittest's result machinery, the stand-in pytest module and
    builtins. Each entry: (label, mapping, its keys, their values, names that must
    not appear), or (label, function, (), its code and defaults, None). Keys and values
    are kept apart so that the check runs in C (`map` over `dict.get`, `operator.is_`):
    checked in a Python loop, the ~1,500 entries cost ~0.4 ms per test, which tripled
    the stand-in's time on a 455-test suite."""
    import builtins

    # A name added to the runner's globals would shadow the builtin of that name in
    # every runner function; other additions (`__warningregistry__`) are harmless.
    shadowing = tuple(n for n in vars(builtins) if n not in globals())
    entries = [("runner", globals(), shadowing), ("builtins", vars(builtins), ())]
    for name in ("unittest", "unittest.case", "unittest.result", "unittest.suite", "pytest"):
        module = sys.modules.get(name)
        if module is not None:
            entries.append((name, vars(module), ()))
    classes = [unittest.TestResult, unittest.TestCase, unittest.TestSuite,
               unittest.suite.BaseTestSuite, getattr(unittest.case, "_Outcome", None)]
    classes = [c for c in classes if isinstance(c, type)]
    classes += [v for v in globals().values() if isinstance(v, type) and v.__module__ == __name__]
    entries += [(c.__qualname__, vars(c), ()) for c in classes]
    functions = [v for v in globals().values() if inspect.isfunction(v)]
    for c in classes:
        functions += [v for v in vars(c).values() if inspect.isfunction(v)]
    parts = [(label, m, tuple(m), tuple(m.values()), banned) for label, m, banned in entries]
    parts += [(f.__qualname__, f, (), (f.__code__, f.__defaults__, f.__kwdefaults__), None)
              for f in functions]
    protected = {id(o) for o in classes + functions}
    return parts, protected


def arm_guard(nonce, ids):
    """Installs the audit hook that owns the verdict, just before the first repository
    import. The nonce, the results and the output descriptor live only in the hook's
    closure: audit hooks cannot be listed or removed from Python, and the calls that
    could reach a closure anyway (heap walks, tracing, raw memory) are refused. main()
    reports each outcome with `sys.audit`; the hook accepts a report only from
    main()'s own frame, after checking that nothing the verdict depends on changed,
    and writes the summary itself, with the nonce, at the end. Any tampering it sees
    is written out at once (it cannot be taken back) and voids the run."""
    # Builtins the hook uses are bound here: the code under test may replace them.
    write, getframe, error, length, pairs, anyof, allof, ident, text = (
        os.write, sys._getframe, RuntimeError, len, zip, any, all, id, str)
    each, same, repeat = map, operator.is_, itertools.repeat
    try:
        out = os.dup(1)  # stdout, whatever a test later does to descriptor 1
    except (OSError, AttributeError):
        out = 1  # WASI: no dup; the runner captures only Python-level output there
    main_frame = getframe(1)  # the caller: the only frame whose reports count
    watched, protected = watched_state()
    refused, missing, busy = REFUSED_EVENTS, object(), []
    inspects = frame_inspection(getframe, ids)
    results, tampered = [], []
    tamper_marker, summary, end = (marker(m, nonce) for m in (TAMPER_MARKER + " ===",
                                                              SUMMARY_MARKER, END_MARKER))

    def tamper(what):
        tampered.append(what)
        write(out, f"\n{tamper_marker[:-4]}: {what} ===\n".encode("utf-8", "replace"))

    def changed(functions_too):
        # Reading a function's __code__ is itself an audit event that comes back to
        # the hook; assigning one is refused at once (`protected`). So functions are
        # compared once, at the end, and mappings at every report, in C.
        for label, mapping, keys, values, banned in watched:
            if banned is None:
                if functions_too:
                    now = (mapping.__code__, mapping.__defaults__, mapping.__kwdefaults__)
                    if not allof(each(same, now, values)):
                        return label
                continue
            if anyof(each(mapping.__contains__, banned)) or not allof(
                each(same, each(mapping.get, keys, repeat(missing)), values)
            ):
                return label + which_key(mapping, keys, values, banned)
        return None

    def which_key(mapping, keys, values, banned):
        for key in banned:
            if key in mapping:
                return f".{key}"
        for key, value in pairs(keys, values):
            if mapping.get(key, missing) is not value:
                return f".{key}"
        return ""

    def hook(event, args):
        if event in refused:
            tamper(event)
            raise error(f"{event} is refused while the tests run")
        if event in ("object.__setattr__", "object.__delattr__") and ident(args[0]) in protected:
            tamper(f"{event} {args[1]}")
            raise error("the test runner's objects are read-only")
        if event == "ctypes.dlsym" and text(args[-1]).startswith(("Py", "_Py")):
            tamper(f"{event} {args[-1]}")  # the interpreter's own C API: frames, hooks
            raise error("the interpreter's C API is refused while the tests run")
        if event == "open" and text(args[0]).startswith("/proc/") and text(args[0]).endswith("/mem"):
            tamper(f"{event} {args[0]}")
            raise error("process memory is refused while the tests run")
        if event in ("sys._getframe", "object.__getattr__", "open") and not busy:
            busy.append(event)  # the check itself takes frames: no recursion
            try:
                what = inspects(event, args)
            finally:
                busy.pop()
            if what is not None:
                tamper(what)
                raise error("repository code may not inspect the tests")
        if not event.startswith("cascade."):
            return
        if getframe(1) is not main_frame:
            tamper(f"{event} from outside the runner")
            raise error("only the runner reports outcomes")
        busy.append(event)  # the check's own audited reads are not the tests'
        try:
            what = changed(event == END_EVENT)
        finally:
            busy.pop()
        if what is not None and f"{what} was changed" not in tampered:
            tamper(f"{what} was changed")
        if event == RESULT_EVENT:
            results.append(f"{args[0]} {args[1]}")
        elif event == END_EVENT:
            lines = [summary] + results + [end, ""]
            write(out, ("\n" + "\n".join(lines)).encode("utf-8", "replace"))

    sys.addaudithook(hook)


def frame_inspection(getframe, ids):
    """The guard's check against code under test reading the test that calls it (to
    return the caller's `expected`, or the literal on its assert line): repository
    code (not a test file, not the runner) that takes a test's frame with
    `sys._getframe(n)`, reads a test frame's code (`f_code`: `inspect.stack()`,
    `getframeinfo`, `traceback.extract_stack`), or opens a test file (`linecache`,
    `inspect.getsource`; main() clears linecache before each test). Opening counts
    only for the test modules being run and conftest.py files: a library reading
    a data file the test hands it is ordinary. Returns a function of an audit event
    that names what it saw, or None."""
    root = os.getcwd() + os.sep
    modules = frozenset(os.path.normpath(root + i.split("::")[0]) for i in ids)
    here = os.path.dirname(os.path.abspath(__file__))
    ours = (os.path.join(here, "runner.py"), os.path.join(here, "pytest_driver.py"))
    normpath, is_infra, text = os.path.normpath, is_test_infrastructure, str

    def kind(frame):
        try:
            path = frame.f_globals["__file__"]
        except BaseException:  # noqa: BLE001 - any odd globals: not repository code
            return "other"
        if type(path) is not text or not path.startswith(root):
            return "runner" if path in ours else "other"
        return "tests" if is_infra(path[len(root):]) else "repository"

    def repository_asks(frame):
        # Up from the requester to the nearest test or runner frame: repository code
        # on the way (a library calling `inspect.stack()` for itself) is the asker.
        while frame is not None:
            found = kind(frame)
            if found != "other":
                return found == "repository"
            frame = frame.f_back
        return False

    def inspects(event, args):
        asker = getframe(2)  # 0: inspects, 1: the hook, 2: who made the audited call
        if event == "sys._getframe":
            if kind(args[0]) == "tests" and kind(asker) == "repository":
                return "repository code took a test's frame"
        elif event == "object.__getattr__":
            if args[1] == "f_code" and kind(args[0]) == "tests" and repository_asks(asker):
                return "repository code read a test frame's code"
        elif type(args[0]) is text:
            path = normpath(args[0] if args[0].startswith("/") else root + args[0])
            read = path in modules or path.endswith(os.sep + "conftest.py")
            if read and path.startswith(root) and repository_asks(asker):
                return f"repository code opened {path[len(root):]}"
        return None

    return inspects


# --------------------------------------------------------------------------- outcomes
class Skipped(Exception):
    pass


class Failed(AssertionError):
    pass


class XFailed(Exception):
    pass


class SetupError(Exception):
    """A fixture failed: the test is an ERROR, not a FAILURE."""


# ------------------------------------------------------------------------ the shim
class Mark:
    def __init__(self, name, args=(), kwargs=None):
        self.name = name
        self.args = args
        self.kwargs = kwargs or {}

    def __call__(self, *args, **kwargs):
        if not kwargs and len(args) == 1 and (
            inspect.isfunction(args[0]) or inspect.isclass(args[0])
        ):
            target = args[0]
            found = target.__dict__.get("pytestmark", [])
            marks = [found] if isinstance(found, Mark) else list(found)
            marks.append(self)
            target.pytestmark = marks
            return target
        return Mark(self.name, args, kwargs)


class MarkGenerator:
    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return Mark(name)


class ParameterSet:
    def __init__(self, values, id=None, marks=()):
        self.values = values
        self.id = id
        self.marks = list(marks) if isinstance(marks, (list, tuple)) else [marks]


def param(*values, id=None, marks=()):
    return ParameterSet(values, id=id, marks=marks)


class FixtureDef:
    def __init__(self, func, scope="function", autouse=False, name=None, params=None, ids=None):
        self.func = func
        self.scope = scope if isinstance(scope, str) else "function"
        self.autouse = autouse
        self.name = name or func.__name__
        self.params = list(params) if params is not None else None
        self.ids = ids


def fixture(func=None, *, scope="function", autouse=False, name=None, params=None, ids=None):
    def wrap(f):
        f._cascade_fixture = FixtureDef(f, scope, autouse, name, params, ids)
        return f

    if func is not None and callable(func):
        return wrap(func)
    return wrap


class ExceptionInfo:
    def __init__(self):
        self.type = None
        self.value = None
        self.tb = None

    @property
    def typename(self):
        return self.type.__name__ if self.type else None

    def match(self, pattern):
        if not re.search(pattern, str(self.value)):
            raise AssertionError(f"Regex pattern {pattern!r} does not match {str(self.value)!r}.")
        return True

    def errisinstance(self, exc):
        return isinstance(self.value, exc)


class RaisesContext:
    def __init__(self, expected, match=None):
        self.expected = expected
        self.match_expr = match
        self.info = ExceptionInfo()

    def __enter__(self):
        return self.info

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            raise Failed(f"DID NOT RAISE {self.expected}")
        if not issubclass(exc_type, self.expected):
            return False
        self.info.type, self.info.value, self.info.tb = exc_type, exc, tb
        if self.match_expr is not None:
            self.info.match(self.match_expr)
        return True


def raises(expected, *args, match=None, **kwargs):
    if args:
        with RaisesContext(expected, match) as info:
            args[0](*args[1:], **kwargs)
        return info
    return RaisesContext(expected, match)


class WarnsContext:
    def __init__(self, expected, match=None):
        self.expected = expected
        self.match_expr = match
        self.record = None
        self.ctx = None

    def __enter__(self):
        self.ctx = warnings.catch_warnings(record=True)
        self.record = self.ctx.__enter__()
        warnings.simplefilter("always")
        return self.record

    def __exit__(self, exc_type, exc, tb):
        self.ctx.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return False
        for w in self.record:
            if issubclass(w.category, self.expected) and (
                self.match_expr is None or re.search(self.match_expr, str(w.message))
            ):
                return False
        raise Failed(f"DID NOT WARN {self.expected}")


def warns(expected, *args, match=None, **kwargs):
    if args:
        with WarnsContext(expected, match):
            return args[0](*args[1:], **kwargs)
    return WarnsContext(expected, match)


def deprecated_call(*args, **kwargs):
    return warns((DeprecationWarning, PendingDeprecationWarning), *args, **kwargs)


class ApproxValue:
    def __init__(self, expected, rel=None, abs=None):
        self.expected = expected
        self.rel = 1e-6 if rel is None else rel
        self.abs = 1e-12 if abs is None else abs

    def _close(self, a, b):
        if isinstance(b, (list, tuple)):
            return isinstance(a, (list, tuple)) and len(a) == len(b) and all(
                self._close(x, y) for x, y in zip(a, b))
        if isinstance(b, dict):
            return isinstance(a, dict) and a.keys() == b.keys() and all(
                self._close(a[k], b[k]) for k in b)
        if isinstance(b, (int, float, complex)) and not isinstance(b, bool) and isinstance(
                a, (int, float, complex)):
            if a == b:
                return True
            if isinstance(b, float) and (math.isinf(b) or math.isnan(b)):
                return False
            return abs(a - b) <= max(self.rel * abs(b), self.abs)
        return a == b

    def __eq__(self, other):
        return self._close(other, self.expected)

    def __repr__(self):
        return f"approx({self.expected!r})"


def approx(expected, rel=None, abs=None, nan_ok=False):
    return ApproxValue(expected, rel, abs)


def skip(reason=""):
    raise Skipped(reason)


skip.Exception = Skipped


def fail(reason="", pytrace=True):
    raise Failed(reason)


fail.Exception = Failed


def xfail(reason=""):
    raise XFailed(reason)


xfail.Exception = XFailed


def importorskip(modname, minversion=None, reason=None):
    try:
        return importlib.import_module(modname)
    except ImportError:
        raise Skipped(reason or f"could not import {modname!r}")


class MonkeyPatch:
    def __init__(self):
        self._undo = []

    @classmethod
    @contextlib.contextmanager
    def context(cls):
        mp = cls()
        try:
            yield mp
        finally:
            mp.undo()

    def _resolve(self, target, name, value):
        if isinstance(target, str) and value is _NOTSET:
            module, _, attr = target.rpartition(".")
            obj = importlib.import_module(module)
            return obj, attr, name
        return target, name, value

    def setattr(self, target, name, value=None, raising=True):
        if isinstance(target, str):
            module, _, attr = target.rpartition(".")
            obj = importlib.import_module(module)
            target, name, value = obj, attr, name
        old = getattr(target, name, _NOTSET)
        if old is _NOTSET and raising:
            raise AttributeError(name)
        self._undo.append(lambda: setattr(target, name, old) if old is not _NOTSET else delattr(target, name))
        setattr(target, name, value)

    def delattr(self, target, name=None, raising=True):
        if isinstance(target, str):
            module, _, attr = target.rpartition(".")
            target, name = importlib.import_module(module), attr
        if not hasattr(target, name):
            if raising:
                raise AttributeError(name)
            return
        old = getattr(target, name)
        self._undo.append(lambda: setattr(target, name, old))
        delattr(target, name)

    def setitem(self, mapping, key, value):
        old = mapping.get(key, _NOTSET)
        self._undo.append(lambda: mapping.__setitem__(key, old) if old is not _NOTSET else mapping.pop(key, None))
        mapping[key] = value

    def delitem(self, mapping, key, raising=True):
        if key not in mapping:
            if raising:
                raise KeyError(key)
            return
        old = mapping[key]
        self._undo.append(lambda: mapping.__setitem__(key, old))
        del mapping[key]

    def setenv(self, name, value, prepend=None):
        value = str(value)
        if prepend and name in os.environ:
            value = value + prepend + os.environ[name]
        self.setitem(os.environ, name, value)

    def delenv(self, name, raising=True):
        self.delitem(os.environ, name, raising)

    def syspath_prepend(self, path):
        old = list(sys.path)
        self._undo.append(lambda: sys.path.__setitem__(slice(None), old))
        sys.path.insert(0, str(path))

    def chdir(self, path):
        old = os.getcwd()
        self._undo.append(lambda: os.chdir(old))
        os.chdir(str(path))

    def undo(self):
        while self._undo:
            self._undo.pop()()


_NOTSET = object()


class CaptureResult(tuple):
    @property
    def out(self):
        return self[0]

    @property
    def err(self):
        return self[1]


class CaptureFixture:
    def __init__(self):
        self._out, self._err = io.StringIO(), io.StringIO()
        self._saved = (sys.stdout, sys.stderr)
        sys.stdout, sys.stderr = self._out, self._err

    def readouterr(self):
        out, err = self._out.getvalue(), self._err.getvalue()
        self._out.seek(0), self._out.truncate()
        self._err.seek(0), self._err.truncate()
        return CaptureResult((out, err))

    @contextlib.contextmanager
    def disabled(self):
        sys.stdout, sys.stderr = self._saved
        try:
            yield
        finally:
            sys.stdout, sys.stderr = self._out, self._err

    def close(self):
        sys.stdout, sys.stderr = self._saved


class FixtureRequest:
    def __init__(self, node_name, fixturename=None, param=_NOTSET, resolver=None):
        self.node = types.SimpleNamespace(name=node_name, nodeid=node_name)
        self.fixturename = fixturename
        if param is not _NOTSET:
            self.param = param
        self._resolver = resolver
        self.config = types.SimpleNamespace(getoption=lambda *a, **k: None)

    def addfinalizer(self, fn):
        if self._resolver is not None:
            self._resolver.finalizers.append(fn)

    def getfixturevalue(self, name):
        return self._resolver.value(name)


def make_pytest_module():
    mod = types.ModuleType("pytest")
    for name, value in dict(
        raises=raises, warns=warns, deprecated_call=deprecated_call, approx=approx,
        mark=MarkGenerator(), param=param, fixture=fixture, skip=skip, fail=fail,
        xfail=xfail, importorskip=importorskip, MonkeyPatch=MonkeyPatch,
        FixtureRequest=FixtureRequest, ExceptionInfo=ExceptionInfo,
        __version__="0+cascade.runner",
    ).items():
        setattr(mod, name, value)
    return mod


# ---------------------------------------------------------------------- fixtures
class Resolver:
    """Resolves fixture values for one test, caching wider scopes across tests."""

    wide_cache = {}
    wide_teardowns = []

    def __init__(self, defs, test_name, indirect):
        self.defs = defs
        self.test_name = test_name
        self.indirect = indirect
        self.values = {}
        self.finalizers = []
        self.tmp_dirs = []

    def builtin(self, name):
        if name == "tmp_path":
            import pathlib

            path = tempfile.mkdtemp(prefix="cascade-tmp-")
            self.tmp_dirs.append(path)
            return pathlib.Path(path)
        if name == "tmpdir":
            path = tempfile.mkdtemp(prefix="cascade-tmp-")
            self.tmp_dirs.append(path)
            return path
        if name == "monkeypatch":
            mp = MonkeyPatch()
            self.finalizers.append(mp.undo)
            return mp
        if name in ("capsys", "capfd"):
            cap = CaptureFixture()
            self.finalizers.append(cap.close)
            return cap
        if name == "request":
            return FixtureRequest(self.test_name, None, _NOTSET, self)
        if name == "recwarn":
            ctx = warnings.catch_warnings(record=True)
            rec = ctx.__enter__()
            warnings.simplefilter("always")
            self.finalizers.append(lambda: ctx.__exit__(None, None, None))
            return rec
        raise SetupError(f"fixture {name!r} not found")

    def value(self, name, stack=()):
        if name in self.values:
            return self.values[name]
        if name in stack:
            raise SetupError(f"fixture {name!r} depends on itself")
        fdef = self.defs.get(name)
        if fdef is None:
            value = self.builtin(name)
            self.values[name] = value
            return value
        # A parametrized wide-scope fixture has one cached value per parameter.
        key = (fdef.scope, id(fdef), repr(self.indirect.get(name, _NOTSET)))
        if fdef.scope != "function" and key in Resolver.wide_cache:
            value = Resolver.wide_cache[key]
            self.values[name] = value
            return value
        kwargs = {}
        for arg in fixture_args(fdef.func):
            if arg == "request":
                req = FixtureRequest(self.test_name, name, self.indirect.get(name, _NOTSET), self)
                kwargs[arg] = req
            else:
                kwargs[arg] = self.value(arg, stack + (name,))
        try:
            result = fdef.func(**kwargs)
            if inspect.isgenerator(result):
                gen = result
                result = next(gen)
                finish = lambda gen=gen: next(gen, None)
                if fdef.scope == "function":
                    self.finalizers.append(finish)
                else:
                    Resolver.wide_teardowns.append(finish)
        except (Skipped, XFailed):
            raise
        except BaseException as e:
            raise SetupError(f"fixture {name!r} failed: {type(e).__name__}: {e}") from e
        if fdef.scope != "function":
            Resolver.wide_cache[key] = result
        self.values[name] = result
        return result

    def teardown(self):
        errors = []
        while self.finalizers:
            try:
                self.finalizers.pop()()
            except BaseException as e:  # noqa: BLE001 - a teardown failure is an ERROR
                errors.append(e)
        for d in self.tmp_dirs:
            shutil.rmtree(d, ignore_errors=True)
        if errors:
            raise SetupError(f"teardown failed: {errors[0]!r}")


def fixture_args(func):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    return [
        p.name for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is p.empty
    ]


def collect_fixtures(namespace, into):
    for value in list(vars(namespace).values()):
        fdef = getattr(value, "_cascade_fixture", None)
        if isinstance(fdef, FixtureDef):
            into[fdef.name] = fdef


# ----------------------------------------------------------------------- importing
def module_name_for(path):
    """pytest's `prepend` import mode: the package chain up to the first folder
    without __init__.py, whose parent goes on sys.path."""
    path = os.path.abspath(path)
    folder, base = os.path.split(path)
    parts = [os.path.splitext(base)[0]]
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder, pkg = os.path.split(folder)
        parts.append(pkg)
    return folder, ".".join(reversed(parts))


def import_path(path):
    folder, name = module_name_for(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    if name in sys.modules and os.path.abspath(getattr(sys.modules[name], "__file__", "") or "") != os.path.abspath(path):
        del sys.modules[name]
    return importlib.import_module(name)


_conftests = {}


def conftest_fixtures(test_file):
    """Fixtures from every conftest.py from the root down to the test's folder."""
    fixtures = {}
    root = os.getcwd()
    rel = os.path.relpath(os.path.dirname(os.path.abspath(test_file)), root)
    folders = [root]
    if rel != ".":
        for part in rel.split(os.sep):
            folders.append(os.path.join(folders[-1], part))
    for folder in folders:
        path = os.path.join(folder, "conftest.py")
        if not os.path.exists(path):
            continue
        if path not in _conftests:
            # Like pytest's default import mode: a conftest outside a package is the
            # module `conftest` (tests may `from conftest import ...`); a second
            # such conftest gets a name of its own.
            existing = sys.modules.get("conftest")
            same = existing is not None and os.path.abspath(getattr(existing, "__file__", "") or "") == path
            if same:
                _conftests[path] = existing
            elif os.path.exists(os.path.join(folder, "__init__.py")) or existing is None:
                _conftests[path] = import_path(path)
            else:
                spec = importlib.util.spec_from_file_location(f"conftest_{len(_conftests)}", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
                _conftests[path] = module
        collect_fixtures(_conftests[path], fixtures)
    return fixtures


# --------------------------------------------------------------------- test ids
def value_id(value, argname, index):
    if isinstance(value, str):
        return value.encode("unicode_escape").decode("ascii") if value else f"{argname}{index}"
    if isinstance(value, bytes):
        return value.decode("ascii", "backslashreplace")
    if value is None or isinstance(value, (int, float, complex, bool)):
        return str(value)
    if isinstance(value, re.Pattern):
        return value.pattern
    if inspect.isclass(value) or inspect.isfunction(value):
        return value.__name__
    import enum

    if isinstance(value, enum.Enum):
        return str(value)
    return f"{argname}{index}"


def expand_parametrize(mark):
    names = mark.args[0] if mark.args else mark.kwargs.get("argnames")
    values = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues", [])
    ids = mark.kwargs.get("ids")
    if len(mark.args) > 2 and ids is None:
        ids = mark.args[2]
    indirect = mark.kwargs.get("indirect", False)
    # pytest: one name given as a string takes each value whole; names given as a
    # list or tuple always unpack each value, even a single name.
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
        whole = len(names) == 1
    else:
        whole = False
    names = list(names)
    cases = []
    for i, raw in enumerate(values):
        marks = []
        explicit = None
        if isinstance(raw, ParameterSet):
            vals, explicit, marks = raw.values, raw.id, raw.marks
        elif whole:
            vals = (raw,)
        else:
            vals = tuple(raw)
        if explicit is None and ids is not None:
            if callable(ids):
                got = [ids(v) for v in vals]
                explicit = "-".join(g if g is not None else value_id(v, n, i) for g, v, n in zip(got, vals, names))
            elif i < len(ids) and ids[i] is not None:
                explicit = str(ids[i])
        ident = explicit if explicit is not None else "-".join(
            value_id(v, n, i) for v, n in zip(vals, names))
        direct = indirect is True or (isinstance(indirect, (list, tuple)))
        ind_names = names if indirect is True else (list(indirect) if direct else [])
        cases.append((ident, dict(zip(names, vals)), marks, ind_names))
    if not values:
        cases.append(("NOTSET", {}, [Mark("skip", (), {"reason": "empty parameter set"})], []))
    seen = {}
    for ident, *_ in cases:
        seen[ident] = seen.get(ident, 0) + 1
    counters = {}
    out = []
    for ident, vals, marks, ind in cases:
        if seen[ident] > 1:
            n = counters.get(ident, 0)
            counters[ident] = n + 1
            ident = f"{ident}{n}"
        out.append((ident, vals, marks, ind))
    return out


def marks_of(*objs):
    marks = []
    for obj in objs:
        found = getattr(obj, "pytestmark", [])
        if isinstance(found, Mark):
            found = [found]
        marks.extend(m for m in found if isinstance(m, Mark))
    return marks


SCOPE_RANK = {"session": 0, "package": 1, "module": 2, "class": 3, "function": 4}


def fixture_param_sets(defs, func, marks, direct):
    """Parametrization sets from fixtures declared with `params=`, in pytest's order:
    the fixture closure (autouse, usefixtures, then arguments, then what those need),
    stably sorted by scope. A name parametrized directly is not a fixture here."""
    initial = [n for n, d in defs.items() if d.autouse]
    for m in marks:
        if m.name == "usefixtures":
            initial.extend(m.args)
    initial.extend(fixture_args(func))
    closure = []
    for name in initial:
        if name not in closure and name != "self":
            closure.append(name)
    i = 0
    while i < len(closure):
        fdef = defs.get(closure[i])
        if fdef is not None and closure[i] not in direct:
            for arg in fixture_args(fdef.func):
                if arg not in closure and arg != "request":
                    closure.append(arg)
        i += 1
    ranked = sorted(
        (n for n in closure if n in defs and n not in direct),
        key=lambda n: SCOPE_RANK.get(defs[n].scope, 4))
    sets = []
    for name in ranked:
        fdef = defs[name]
        if not fdef.params:
            continue
        cases = []
        for k, raw in enumerate(fdef.params):
            marks_k, explicit = [], None
            value = raw
            if isinstance(raw, ParameterSet):
                value, explicit, marks_k = raw.values[0] if raw.values else None, raw.id, raw.marks
            if explicit is None and fdef.ids is not None:
                got = fdef.ids(value) if callable(fdef.ids) else (
                    fdef.ids[k] if k < len(fdef.ids) else None)
                explicit = None if got is None else str(got)
            ident = explicit if explicit is not None else value_id(value, name, k)
            cases.append((ident, {name: value}, marks_k, [name]))
        sets.append(cases)
    return sets


def instances(func_marks, fixture_sets=()):
    """Every (id, values, marks, indirect names) of a test function's parametrization:
    fixture parameters first, then `parametrize` marks (nearest decorator first)."""
    sets = list(fixture_sets) + [expand_parametrize(m) for m in func_marks if m.name == "parametrize"]
    if not sets:
        return [("", {}, [], [])]
    out = []
    for combo in itertools.product(*sets):
        ident = "-".join(c[0] for c in combo)
        vals, marks, ind = {}, [], []
        for c in combo:
            vals.update(c[1])
            marks.extend(c[2])
            ind.extend(c[3])
        out.append((ident, vals, marks, ind))
    return out


def test_defs(module, cls, file_defs):
    """Fixtures visible to a test: conftest files, then its module, then its class."""
    defs = dict(file_defs)
    collect_fixtures(module, defs)
    if cls is not None:
        for klass in reversed(cls.__mro__):
            collect_fixtures(klass, defs)
    return defs


def test_instances(module, cls, raw, file_defs):
    marks = marks_of(module, cls, raw) if cls is not None else marks_of(module, raw)
    direct = set()
    for m in marks:
        if m.name == "parametrize":
            for case in expand_parametrize(m):
                direct.update(case[1])
    defs = test_defs(module, cls, file_defs)
    return marks, defs, instances(marks, fixture_param_sets(defs, raw, marks, direct))


# ------------------------------------------------------------------------ running
def eval_condition(cond, module):
    if isinstance(cond, str):
        return bool(eval(cond, vars(module)))
    return bool(cond)


def run_pytest_style(module, cls, func_name, param_id, file_defs):
    if cls is not None:
        owner = cls()
        func = getattr(owner, func_name)
        raw = getattr(cls, func_name)
    else:
        owner = None
        func = raw = getattr(module, func_name)
    marks, defs, found = test_instances(module, cls, raw, file_defs)
    chosen = None
    for inst in found:
        if inst[0] == param_id:
            chosen = inst
            break
    if chosen is None:
        return "ERROR", f"no parametrization with id [{param_id}]"
    _, values, extra_marks, ind_names = chosen
    marks = marks + list(extra_marks)
    for m in marks:
        if m.name == "skip":
            return "SKIPPED", m.kwargs.get("reason", m.args[0] if m.args else "")
        if m.name == "skipif":
            conds = m.args or (m.kwargs.get("condition"),)
            if any(eval_condition(c, module) for c in conds):
                return "SKIPPED", m.kwargs.get("reason", "")
    xfail_mark = None
    for m in marks:
        if m.name == "xfail":
            conds = m.args or ((m.kwargs["condition"],) if "condition" in m.kwargs else ())
            if not conds or any(eval_condition(c, module) for c in conds):
                xfail_mark = m
    indirect = {n: values.pop(n) for n in ind_names if n in values}
    resolver = Resolver(defs, func_name, indirect)
    wanted = [a for a in fixture_args(func) if a not in values]
    for m in marks:
        if m.name == "usefixtures":
            wanted = list(m.args) + wanted
    autouse = [n for n, d in defs.items() if d.autouse]
    status, detail = "PASSED", ""
    try:
        try:
            kwargs = dict(values)
            for name in autouse + wanted + list(indirect):
                value = resolver.value(name)
                if name in wanted:
                    kwargs[name] = value
            if owner is not None and hasattr(owner, "setup_method"):
                owner.setup_method(func)
        except (Skipped, XFailed) as e:
            raise
        except SetupError:
            raise
        except BaseException as e:
            raise SetupError(f"setup failed: {type(e).__name__}: {e}") from e
        try:
            func(**kwargs)
        finally:
            if owner is not None and hasattr(owner, "teardown_method"):
                owner.teardown_method(func)
    except Skipped as e:
        status, detail = "SKIPPED", str(e)
    except XFailed as e:
        status, detail = "XFAIL", str(e)
    except SetupError as e:
        status, detail = "ERROR", str(e)
    except (KeyboardInterrupt, SystemExit) as e:
        status, detail = "FAILED", f"{type(e).__name__}: {e}"
    except BaseException as e:  # noqa: BLE001 - any exception in a test fails it
        raises = xfail_mark.kwargs.get("raises") if xfail_mark is not None else None
        if xfail_mark is not None and (raises is None or isinstance(e, raises)):
            status, detail = "XFAIL", xfail_mark.kwargs.get("reason", "")
        else:
            status, detail = "FAILED", short_traceback(e)
    else:
        if xfail_mark is not None:
            status = "FAILED" if xfail_mark.kwargs.get("strict", False) else "XPASS"
    try:
        resolver.teardown()
    except SetupError as e:
        if status in ("PASSED", "XPASS"):
            status, detail = "ERROR", str(e)
    return status, detail


class RecordingResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.subtest_failures = []

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.subtest_failures.append(err)


def run_unittest(cls, method):
    test = cls(method)
    result = RecordingResult()
    suite = unittest.TestSuite([test])
    suite.run(result)
    # Class-level fixtures are torn down by the suite only at its end.
    suite._tearDownPreviousClass(None, result)
    suite._handleModuleTearDown(result)
    if result.errors:
        return "ERROR", summarize_traceback(result.errors[0][1])
    if result.failures:
        return "FAILED", summarize_traceback(result.failures[0][1])
    if result.unexpectedSuccesses:
        return "FAILED", "unexpected success"
    if result.expectedFailures:
        return "XFAIL", ""
    if result.skipped:
        return "SKIPPED", result.skipped[0][1]
    return "PASSED", ""


def short_traceback(e):
    return summarize_traceback("".join(traceback.format_exception(type(e), e, e.__traceback__)))


def summarize_traceback(text):
    """`path:line: Exception: message` for the innermost frame inside the repository.

    Full tracebacks differ between Python versions (caret lines, frame layout), and
    results must be identical on every machine, so only this much is reported."""
    root = os.getcwd() + os.sep
    where = ""
    lines = text.splitlines()
    last_frame = -1
    for i, line in enumerate(lines):
        m = re.match(r'\s*File "([^"]+)", line (\d+)', line)
        if m:
            last_frame = i
            if m.group(1).startswith(root):
                where = f"{m.group(1)[len(root):]}:{m.group(2)}: "
    # The exception line is the first unindented line after the last frame.
    after = [l for l in lines[last_frame + 1:] if l.strip() and not l.startswith((" ", "\t"))]
    message = after[0] if after else "error"
    if len(message) > 300:
        message = message[:300] + "…"
    return where + message


def run_id(node_id):
    parts = node_id.split("::")
    path, names = parts[0], parts[1:]
    if not names or not os.path.isfile(path):
        return "ERROR", f"no such test file or test: {node_id}"
    last = names[-1]
    param_id = ""
    if last.endswith("]") and "[" in last:
        at = last.index("[")
        last, param_id = last[:at], last[at + 1:-1]
    names = names[:-1] + [last]
    file_defs = conftest_fixtures(path)
    module = import_path(path)
    obj = module
    cls = None
    for name in names[:-1]:
        obj = getattr(obj, name, None)
        if not inspect.isclass(obj):
            return "ERROR", f"{name} is not a class in {path}"
        cls = obj
    target = getattr(obj, names[-1], None)
    if target is None or not callable(target):
        return "ERROR", f"{node_id} not found"
    if cls is not None and issubclass(cls, unittest.TestCase):
        return run_unittest(cls, names[-1])
    return run_pytest_style(module, cls, names[-1], param_id, file_defs)


@contextlib.contextmanager
def captured():
    """Routes the tests' own output away from the real stdout, so nothing a test
    prints can pose as a status line."""
    try:
        buffer = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
    except Exception:  # noqa: BLE001 - any failure here means: no temporary file
        # No writable temporary folder (a WASI guest without one): Python-level only.
        buffer = io.StringIO()
    saved_py = (sys.stdout, sys.stderr)
    saved_fds = []
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd in (1, 2):
            saved_fds.append((fd, os.dup(fd)))
            os.dup2(buffer.fileno(), fd)
    except (OSError, AttributeError, io.UnsupportedOperation):
        # No descriptor duplication (WASI): undo what was done, capture in Python.
        for fd, saved in saved_fds:
            try:
                os.dup2(saved, fd)
                os.close(saved)
            except OSError:
                pass
        saved_fds = []
    sys.stdout = sys.stderr = buffer
    try:
        yield buffer
    finally:
        sys.stdout, sys.stderr = saved_py
        for fd, saved in saved_fds:
            os.dup2(saved, fd)
            os.close(saved)


def collect(files):
    """Node ids of every test the files define, in definition order."""
    ids = []
    for path in files:
        try:
            with captured():
                file_defs = conftest_fixtures(path)
                module = import_path(path)
        except BaseException:  # noqa: BLE001 - an unimportable file has no tests
            continue
        for name, obj in list(vars(module).items()):
            if inspect.isclass(obj) and issubclass(obj, unittest.TestCase):
                for method in unittest.TestLoader().getTestCaseNames(obj):
                    ids.append(f"{path}::{name}::{method}")
            elif inspect.isclass(obj) and name.startswith("Test") and "__init__" not in vars(obj):
                for attr in dir(obj):
                    fn = getattr(obj, attr, None)
                    if attr.startswith("test") and callable(fn):
                        for inst in test_instances(module, obj, fn, file_defs)[2]:
                            ids.append(f"{path}::{name}::{attr}" + (f"[{inst[0]}]" if inst[0] else ""))
            elif inspect.isfunction(obj) and name.startswith("test"):
                for inst in test_instances(module, None, obj, file_defs)[2]:
                    ids.append(f"{path}::{name}" + (f"[{inst[0]}]" if inst[0] else ""))
    return ids


def main():
    # The nonce first, before any repository code can run: it is what makes the
    # verdict the host reads unforgeable (see arm_guard).
    nonce = "" if "--collect" in sys.argv[1:2] else read_nonce()
    # `--root DIR` first: WASI guests cannot be started in a working folder, so the
    # runner moves there itself (wasi-libc emulates chdir).
    if len(sys.argv) > 2 and sys.argv[1] == "--root":
        os.chdir(sys.argv[2])
        del sys.argv[1:3]
    # `--pytest DIR:DIR…` (the wheels of real pytest), `--pyc DIR` (their bytecode)
    # and `--mode auto|pytest|builtin`: which runner runs the tests.
    options = {"--pytest": "", "--pyc": "", "--mode": "builtin"}
    while len(sys.argv) > 2 and sys.argv[1] in options:
        options[sys.argv[1]] = sys.argv[2]
        del sys.argv[1:3]
    root = os.getcwd()
    sys.dont_write_bytecode = True
    if sys.argv[1] == "--collect":
        sys.path.insert(0, root)
        sys.modules["pytest"] = make_pytest_module()
        found = collect(sys.argv[2:])
        print(SUMMARY_MARKER)
        for node_id in found:
            print(node_id)
        return
    with open(sys.argv[1], encoding="utf-8") as f:
        ids = [line.strip() for line in f if line.strip()]
    if options["--pytest"] and options["--mode"] != "builtin":
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, here)
        import pytest_driver

        sys.path.remove(here)
        if options["--mode"] == "pytest" or pytest_driver.needs_real_pytest(ids):
            pytest = pytest_driver.load(options["--pytest"].split(":"), options["--pyc"])
            if pytest is not None:
                run_with_pytest(nonce, root, ids, pytest_driver, pytest)
    sys.modules["pytest"] = make_pytest_module()
    put_repository_on_path(root)
    arm_guard(nonce, ids)
    out = sys.stdout
    for node_id in ids:
        linecache.clearcache()  # a test's source is read again, in the guard's view
        sys.audit(BEGIN_EVENT, node_id)
        with captured() as buffer:
            try:
                status, detail = run_id(node_id)
            except BaseException as e:  # noqa: BLE001 - import errors and the like
                status, detail = "ERROR", short_traceback(e)
            buffer.flush()
            buffer.seek(0)
            printed = buffer.read()[-2000:]
        sys.audit(RESULT_EVENT, status, node_id)
        if status not in ("PASSED", "XFAIL", "XPASS", "SKIPPED") or printed:
            out.write(f"____ {node_id} ____\n")
            for line in (detail or "").splitlines()[-20:]:
                out.write(f"    | {line}\n")
            for line in printed.splitlines()[-20:]:
                out.write(f"    > {line}\n")
    for finish in reversed(Resolver.wide_teardowns):
        try:
            with captured():
                finish()
        except BaseException:  # noqa: BLE001 - session teardown never changes results
            pass
    out.flush()
    sys.stderr.flush()
    sys.audit(END_EVENT)
    finish_run()


def run_with_pytest(nonce, root, ids, driver, pytest):
    """Runs the ids with real pytest; the statuses leave through the guard."""
    put_repository_on_path(root)
    plugin = driver.make_plugin(pytest, set(ids))
    arm_guard(nonce, ids)
    plugin = driver.run(pytest, ids, plugin)
    for node_id in ids:
        status = plugin.statuses.get(node_id)
        if status is not None:
            sys.audit(RESULT_EVENT, status, node_id)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.audit(END_EVENT)
    finish_run()


def put_repository_on_path(root):
    # After the interpreter started clean (-s -P, no PYTHONPATH): nothing in the
    # repository (sitecustomize.py, *.pth) ran before the runner.
    sys.path.insert(0, root)
    if os.path.isdir(os.path.join(root, "src")):
        sys.path.insert(1, os.path.join(root, "src"))


def finish_run():
    # Skip atexit handlers and lingering threads: nothing a test registered may
    # print after the summary.
    os._exit(0)


if __name__ == "__main__":
    main()
