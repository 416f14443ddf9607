# cascade assert-test harness: runs the program, then the test code, then
# check(entry_point), and proves to the host that check() returned.
#
# The proof is a nonce. The host puts a fresh random nonce on stdin and nothing else;
# the harness reads it before any program code runs and keeps it only in the closure of
# an audit hook. Audit hooks cannot be removed or listed from Python, and the hook
# refuses every way to reach it or its callers' frames (gc referrers, frame objects,
# tracing), so the program can neither read the nonce nor change what the hook does.
# The hook itself runs program, tests and check() on event "cascade.run" (once), and
# prints the nonce only after check() returned. Exiting early (sys.exit, os._exit,
# atexit), redefining check, patching builtins (the tests get a pristine copy) or
# printing fake markers all leave the nonce unprinted: the run is not accepted.
import sys, os, builtins


def _cascade_vault(nonce, program, tests, entry_point):
    # Everything used after the program starts is bound here, before it starts.
    write, exit_, compile_, exec_, dict_, getattr_ = os.write, os._exit, compile, exec, dict, getattr
    BaseException_, AssertionError_, SyntaxError_ = BaseException, AssertionError, SyntaxError
    pristine = dict(builtins.__dict__)
    frame_attributes = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"))
    refused = frozenset((
        "sys._getframe", "sys._current_frames", "sys._current_exceptions",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents",
        "sys.settrace", "sys.setprofile", "sys._settraceallthreads",
        "sys._setprofileallthreads", "sys.monitoring.register_callback",
        "ctypes.dlopen", "ctypes.dlsym", "ctypes.addressof", "ctypes.string_at",
    ))
    state = {"ran": False}

    def report(kind):
        write(2, b"\n__CASCADE_RESULT__ " + kind.encode() + b"\n")

    def run():
        try:
            code = compile_(program, "<solution>", "exec")
        except SyntaxError_:
            report("compile_error")
            raise
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        try:
            exec_(code, namespace)
        except BaseException_:
            report("program_error")
            raise
        scope = dict_(namespace)
        scope["__builtins__"] = dict_(pristine)
        try:
            exec_(compile_(tests, "<tests>", "exec"), scope)
            check = scope["check"]
            candidate = scope[entry_point]
        except BaseException_:
            report("test_setup_error")
            raise
        try:
            check(candidate)
        except AssertionError_:
            report("assertion_failed")
            raise
        except BaseException_:
            report("test_error")
            raise
        write(1, b"\n__CASCADE_PASSED__ " + nonce + b"\n")
        exit_(0)

    def hook(event, args):
        if event == "cascade.run":
            if not state["ran"]:
                state["ran"] = True
                run()
            return
        if event in refused:
            raise RuntimeError(event + " is not allowed in the sandbox")
        if event == "object.__getattr__" and len(args) == 2 and args[1] in frame_attributes:
            raise RuntimeError("frame access is not allowed in the sandbox")

    sys.addaudithook(hook)


_cascade_vault(os.read(0, 256).strip(), __PROGRAM__, __TESTS__, __ENTRY_POINT__)
del _cascade_vault
sys.audit("cascade.run")
os.write(2, b"\n__CASCADE_RESULT__ not_proven\n")
os._exit(1)
