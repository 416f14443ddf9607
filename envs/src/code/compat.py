# cascade: what a native judge's Python has and CPython for WASI lacks, for the
# program side (runs before any program code; costs nothing until imported).
# - `resource`: the limits are the sandbox's; getrlimit reports them unlimited and
#   setrlimit is accepted (a judge's own limits stay in force either way);
# - threads: WASI has none. A `Thread` runs its target when started, to the end, on
#   the one thread there is (the deep-recursion idiom, `threading.stack_size(big)`
#   then one thread, needs no more), and `stack_size` accepts any size.
import sys


def _cascade_compat():
    if sys.platform != "wasi":
        return

    def patch_threading(threading):
        def stack_size(size=0):
            return 0

        class Thread(threading.Thread):
            def start(self):
                try:
                    self.run()
                except SystemExit:
                    pass
                except BaseException:  # as a thread's uncaught exception: reported
                    import traceback
                    traceback.print_exc()

            def join(self, timeout=None):
                pass

            def is_alive(self):
                return False

        threading.stack_size, threading.Thread = stack_size, Thread

    def make_resource():
        import types
        module = types.ModuleType("resource")
        names = ("RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_CORE",
                 "RLIMIT_RSS", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_MEMLOCK", "RLIMIT_AS")
        for number, name in enumerate(names):
            setattr(module, name, number)
        module.RLIM_INFINITY = -1
        module.error = OSError
        module.getrlimit = lambda which: (-1, -1)
        module.setrlimit = lambda which, limits: None
        module.getpagesize = lambda: 65536
        return module

    class Patched:
        """The real loader of `threading`, then the patch."""

        def __init__(self, inner):
            self.inner = inner

        def create_module(self, spec):
            return self.inner.create_module(spec)

        def exec_module(self, module):
            self.inner.exec_module(module)
            patch_threading(module)

    class Shim:
        @staticmethod
        def create_module(spec):
            return make_resource()

        @staticmethod
        def exec_module(module):
            pass

    # Imported before the finder is installed: importing inside `find_spec` would ask
    # the finder itself for `importlib.util`, and recurse until the stack runs out.
    from importlib.util import spec_from_loader

    class Finder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name == "resource":
                return spec_from_loader(name, Shim)
            if name != "threading":
                return None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = None if finder is Finder or find is None else find(name, path, target)
                if spec is not None and spec.loader is not None:
                    spec.loader = Patched(spec.loader)
                    return spec
            return None

    if "threading" in sys.modules:
        patch_threading(sys.modules["threading"])
    sys.meta_path.insert(0, Finder)


_cascade_compat()
del _cascade_compat
