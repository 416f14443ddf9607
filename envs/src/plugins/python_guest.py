# The guest half of a cascade Python plugin, run by envs/src/plugins/python.rs in the
# sandbox's WASI CPython: `python -c THIS FILE NAME`. It loads the plugin once, then
# answers one sample per door exchange (see cascade_sandboxes::resident). Everything it
# sends is checked by the host: a plugin that tampers with this loop only spoils its own
# answers.
import _host
import io
import json
import random
import sys
import traceback
import types

PLUGIN_FILE, PLUGIN_NAME = sys.argv[1], sys.argv[2]
PLUGIN_DIR = PLUGIN_FILE.rsplit("/", 1)[0]


def _ask(op, **args):
    args["op"] = op
    answer = json.loads(_host.call(b"H" + json.dumps(args).encode()))
    if "error" in answer:
        raise ValueError(answer["error"])
    return answer["value"]


def _host_module():
    api = types.ModuleType("cascade_plugin")
    api.__doc__ = "cascade's built-in checks, called from a plugin."
    api.math_equal = lambda answer, gold: _ask("math_equal", answer=answer, gold=gold)
    api.math_check = lambda response, gold: _ask("math_check", response=response, gold=gold)
    api.ifeval = lambda response, instruction_id_list, kwargs=None: _ask(
        "ifeval", response=response, instruction_id_list=instruction_id_list, kwargs=kwargs
    )
    api.json_schema = lambda instance, schema: _ask(
        "json_schema", instance=instance, schema=schema
    )
    api.score = lambda env, sample: _ask("score", env=env, sample=sample)
    return api


def _plugin_line(tb):
    """The last line of the plugin's own file in a traceback."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == PLUGIN_FILE:
            line = frame.lineno
    return line


def _load():
    sys.modules["cascade_plugin"] = _host_module()
    sys.path.insert(0, PLUGIN_DIR)
    try:
        with open(PLUGIN_FILE, encoding="utf-8") as f:
            source = f.read()
        code = compile(source, PLUGIN_FILE, "exec")
    except SyntaxError as e:
        return None, {"error": f"SyntaxError: {e.msg}", "line": e.lineno}
    module = types.ModuleType(PLUGIN_NAME)
    module.__file__ = PLUGIN_FILE
    sys.modules[PLUGIN_NAME] = module
    try:
        exec(code, module.__dict__)
    except BaseException as e:
        message = "".join(traceback.format_exception_only(e)).strip()
        return None, {"error": message, "line": _plugin_line(e.__traceback__)}
    verify = module.__dict__.get("verify")
    if not callable(verify):
        return None, {"error": "defines no function `verify(sample)`", "line": None}
    doc = (module.__dict__.get("__doc__") or "").strip().split("\n\n")[0]
    return verify, {"ok": True, "doc": " ".join(doc.split())}


def _plain(value):
    """JSON for the scalar types numpy returns; anything else is refused by name."""
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    raise TypeError(f"a {type(value).__name__} is not a float, a bool or a dict")


random.seed(0)
# Restoring a saved state costs a fraction of reseeding (19 us of fuel per call).
_SEEDED = random.getstate()


def _run_coroutine(coroutine):
    """Runs an `async def verify` to completion. WASI has no sockets or threads, so
    asyncio cannot start an event loop here: the coroutine is driven directly, which
    serves every await that only yields (`asyncio.sleep(0)`, awaiting other coroutines)."""
    try:
        while True:
            if coroutine.send(None) is not None:
                coroutine.close()
                raise RuntimeError(
                    "verify awaits something that needs an event loop (the sandbox has "
                    "no sockets, threads or timers)"
                )
    except StopIteration as done:
        return done.value


def _answer(verify, request):
    random.setstate(_SEEDED)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(0)
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        value = verify(json.loads(request))
        if type(value).__name__ == "coroutine":
            value = _run_coroutine(value)
    except BaseException as e:
        message = "".join(traceback.format_exception_only(e)).strip()
        return json.dumps({"raised": message, "line": _plugin_line(e.__traceback__)})
    try:
        text = json.dumps(value, allow_nan=False, default=_plain)
    except ValueError:
        return json.dumps({"unserialisable": "verify returned NaN or infinity"})
    except (TypeError, RecursionError) as e:
        return json.dumps({"unserialisable": f"verify returned what JSON cannot hold: {e}"})
    return '{"value":' + text + "}"


def _serve():
    verify, report = _load()
    request = _host.call(b"N" + json.dumps(report).encode())
    if verify is None:
        return
    while True:
        request = _host.call(b"N" + _answer(verify, request).encode())


_serve()
