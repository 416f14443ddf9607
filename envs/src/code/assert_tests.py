# cascade assert harness, test side (runs after plain_data.py in one interpreter).
#
# `python HARNESS TESTS ENTRY_POINT` (see harness.rs): a fresh interpreter that never runs program
# code. Its modules, classes and builtins are its own, whatever the program did to
# its interpreter. Every name the program defines becomes a proxy here: calling it
# sends the arguments to the program side as plain data and returns the decoded
# result, a fresh value of exact built-in types; anything else the program answers is
# refused before any test code sees it. The outcome is this interpreter's exit
# status (the codes below), decided only by trusted code.
import sys, os, builtins, keyword

ACCEPTED, COMPILE_ERROR, ASSERTION_FAILED, NOT_PLAIN, PROGRAM_FAILED, TESTS_FAILED = (
    0, 10, 11, 12, 13, 14)


class ProgramGone(BaseException):
    """The program side stopped answering, or answered out of protocol."""


class NotPlainValue(BaseException):
    """The program returned something that is not plain data (not catchable as
    Exception by the tests, so no test can swallow it)."""


_BUILTIN_EXCEPTIONS = {
    k: v for k, v in builtins.__dict__.items()
    if isinstance(v, type) and issubclass(v, Exception)
}


def _say(text):
    sys.stderr.write(text + "\n")


def _finish(code):
    sys.stderr.flush()
    os._exit(code)


def _show(e, tests):
    """The traceback through the tests' own frames (the harness's are left out)."""
    import traceback, linecache  # only when something failed: cheaper when accepted
    linecache.cache["<tests>"] = (len(tests), None, tests.splitlines(True), "<tests>")
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename not in ("<string>", "<harness>")]
    text = ["Traceback (most recent call last):\n"] if frames else []
    text += traceback.format_list(frames) + traceback.format_exception_only(type(e), e)
    sys.stderr.write("".join(text))


class _Channel:
    def __init__(self):
        self.reader = LineReader(os.read)
        self.raised = []  # exceptions re-raised here on the program's behalf

    def receive(self):
        try:
            message = self.reader.next()
        except BaseException as e:
            raise ProgramGone("the program wrote to the tests' channel (%s)" % type(e).__name__)
        if message is None:
            raise ProgramGone("the program stopped before answering")
        if type(message) is not dict or len(message) != 1:
            raise ProgramGone("the program wrote to the tests' channel")
        return next(iter(message.items()))

    def call(self, name, args, kwargs):
        try:
            request = {"call": name, "args": plain_encode(list(args)),
                       "kwargs": plain_encode(dict(kwargs))}
        except NotPlain as e:
            raise TypeError("the tests pass %s to %s; only plain data crosses to the program"
                            % (e, name)) from None
        send_line(os.write, request)
        kind, body = self.receive()
        if kind == "ok":
            try:
                return plain_decode(body)
            except Malformed as e:
                raise ProgramGone("the program answered %s with a malformed value (%s)" % (name, e))
        if kind == "refused" and type(body) is str:
            raise NotPlainValue("%s returned %s; only exact built-in types (int, float, str, "
                                "list, tuple, dict, set, ...) are accepted" % (name, body))
        if kind == "raised" and type(body) is dict:
            raise self.program_exception(body)
        raise ProgramGone("the program answered out of protocol")

    def program_exception(self, body):
        """The program's exception rebuilt from trusted classes: its nearest built-in
        class (`ValueError` for a program's subclass of it) with its arguments when
        they are plain data (a KeyError's key). StopIteration and StopAsyncIteration
        become RuntimeError, as Python does inside generators (PEP 479): raised into
        `map()`, `zip()` or `async for` they would end the iteration silently and
        stop the tests checking."""
        kind, message = body.get("type"), body.get("message")
        message = message if type(message) is str else ""
        kind = kind if type(kind) is str else "?"
        bases = body.get("bases")
        names = [kind] + ([b for b in bases if type(b) is str] if type(bases) is list else [])
        cls = next((_BUILTIN_EXCEPTIONS[n] for n in names if n in _BUILTIN_EXCEPTIONS), Exception)
        if issubclass(cls, (StopIteration, StopAsyncIteration)):
            e = RuntimeError("the program raised %s: %s" % (kind, message))
        else:
            e = self.rebuild(cls, kind, message, body.get("args"))
        self.raised.append(e)
        return e

    @staticmethod
    def rebuild(cls, kind, message, args):
        try:
            values = plain_decode(args) if args is not None else None
        except Malformed:
            values = None
        try:
            return cls(*values) if type(values) is list else cls(message)
        except BaseException:
            try:
                return cls(message)
            except BaseException:
                return Exception("%s: %s" % (kind, message))


def _proxy(channel, name):
    def call(*args, **kwargs):
        return channel.call(name, args, kwargs)
    call.__name__ = call.__qualname__ = name
    return call


def _start(channel):
    """Waits for the program to compile and load; returns the names it defines."""
    try:
        kind, _ = channel.receive()
        if kind == "compile_error":
            _finish(COMPILE_ERROR)
        if kind != "compiled":
            raise ProgramGone("the program side did not start")
        kind, body = channel.receive()
    except ProgramGone as e:
        _say("cascade: %s" % e)
        _finish(PROGRAM_FAILED)
    if kind != "ready" or type(body) is not list:
        _finish(PROGRAM_FAILED)
    return [n for n in body if type(n) is str and n.isidentifier() and not keyword.iskeyword(n)]


def _outcome(channel, e, tests):
    if isinstance(e, NotPlainValue):
        _say("cascade: %s" % e)
        return NOT_PLAIN
    if isinstance(e, ProgramGone):
        _say("cascade: %s" % e)
        return PROGRAM_FAILED
    _show(e, tests)
    if any(e is r for r in channel.raised):
        return PROGRAM_FAILED
    return ASSERTION_FAILED if isinstance(e, AssertionError) else TESTS_FAILED


class _Sink:
    """The tests' own prints: dropped. Descriptor 1 is the channel to the program, and
    only `send_line` writes there."""
    encoding = "utf-8"

    def write(self, text):
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    @property
    def buffer(self):
        return self


def _cascade_tests():
    tests, entry_point = sys.argv[1], sys.argv[2]
    sys.stdout.flush()
    sys.stdout = sys.__stdout__ = _Sink()
    channel = _Channel()
    scope = {"__name__": "__main__", "__builtins__": builtins}
    # A program name never shadows a builtin the tests use (the entry point may).
    for name in _start(channel):
        if name not in builtins.__dict__:
            scope[name] = _proxy(channel, name)
    scope[entry_point] = _proxy(channel, entry_point)
    try:
        exec(compile(tests, "<tests>", "exec"), scope)
        check, candidate = scope["check"], scope[entry_point]
    except BaseException as e:
        _finish(_outcome(channel, e, tests))
    try:
        check(candidate)
    except BaseException as e:
        _finish(_outcome(channel, e, tests))
    _finish(ACCEPTED)


_cascade_tests()
