//! A response's program made ready to run: Python source wrapped for the sandbox's
//! CPython, or C/C++ compiled (confined) to a wasm module.

use cascade_sandboxes::{
    CLanguage, Clang, Execution, Invocation, Limits, Python, SandboxError, WasmProgram, WorkerPool,
};

use super::harness::{self, Harness};
use super::language::Language;

/// A program that compiled (or, for Python, that will be compiled by the runtime).
pub enum Program {
    Python {
        python: &'static Python,
        source: String,
    },
    Native(WasmProgram),
}

/// The first line the stdio wrapper writes on stderr, before any program code runs:
/// the program compiled, or it did not. Nothing the program writes can come before it,
/// so it is the one line of stderr the host trusts (and removes from `details`).
pub const COMPILED_MARKER: &str = "__CASCADE_COMPILED__\n";
pub const COMPILE_ERROR_MARKER: &str = "__CASCADE_COMPILE_ERROR__\n";

/// Whether a stdio run's program compiled (`None`: the wrapper never got that far),
/// and its stderr without the wrapper's first line.
pub fn compile_status(stderr: &str) -> (Option<bool>, &str) {
    if let Some(rest) = stderr.strip_prefix(COMPILED_MARKER) {
        (Some(true), rest)
    } else if let Some(rest) = stderr.strip_prefix(COMPILE_ERROR_MARKER) {
        (Some(false), rest)
    } else {
        (None, stderr)
    }
}

/// Runs a stdio program (`sys.argv[1]`: its source arrives as data) as `__main__`
/// after compiling it, so that a syntax error is told apart from an error at run time,
/// then leaves without finalizing the interpreter.
///
/// Why the fast exit: on the CPython 3.15 snapshot, interpreter finalization is ~98%
/// of a short program's cost (a run of `pass` spends 53 M fuel with it, 1.1 M
/// without). The wrapper does what a normal exit does that a program can observe: it
/// turns `SystemExit` into the exit code (printing a non-integer code), prints an
/// uncaught exception's traceback through `sys.excepthook`, runs `atexit` handlers and
/// flushes stdout and stderr; then `os._exit`. Not kept: `__del__` of objects still
/// alive at exit. A program that breaks `os._exit` only loses the shortcut.
pub(super) const STDIO_WRAPPER: &str = r#"import sys, os
_cascade_exit = os._exit
_cascade_source = sys.argv[1]
del sys.argv[1:]
try:
    _cascade_code = compile(_cascade_source, "<solution>", "exec")
except (SyntaxError, ValueError) as _e:
    import traceback
    sys.stderr.write("__CASCADE_COMPILE_ERROR__\n")
    traceback.print_exception(_e, limit=0)
    sys.stderr.flush()
    _cascade_exit(1)
sys.stderr.write("__CASCADE_COMPILED__\n")
sys.stderr.flush()
try:
    exec(_cascade_code, {"__name__": "__main__", "__builtins__": __builtins__})
    _cascade_status = 0
except SystemExit as _e:
    _cascade_status = _e.code
    if _cascade_status is None:
        _cascade_status = 0
    elif not isinstance(_cascade_status, int):
        print(_cascade_status, file=sys.stderr)
        _cascade_status = 1
except BaseException as _e:
    # The traceback starts at the program's own frames, and shows their lines.
    import linecache
    linecache.cache["<solution>"] = (len(_cascade_source), None, _cascade_source.splitlines(True), "<solution>")
    _e = _e.with_traceback(_e.__traceback__.tb_next)
    sys.excepthook(type(_e), _e, _e.__traceback__)
    _cascade_status = 1
import atexit
atexit._run_exitfuncs()
for _cascade_stream in (sys.stdout, sys.__stdout__, sys.stderr, sys.__stderr__):
    try:
        _cascade_stream.flush()
    except BaseException:
        pass
_cascade_exit(_cascade_status)
"#;

/// A response's program, ready to run, or the compiler's diagnostics.
pub enum Prepared {
    Ready(Program),
    /// The program does not compile: a verdict on the program, not an error.
    CompileError(String),
}

impl Program {
    /// Prepares `source`; the error is the sandbox failing, not the program.
    pub fn prepare(
        language: Language,
        source: &str,
        python: &'static Python,
    ) -> Result<Prepared, SandboxError> {
        let c = match language {
            Language::Python => {
                return Ok(Prepared::Ready(Program::Python {
                    python,
                    source: source.to_owned(),
                }))
            }
            Language::C => CLanguage::C,
            Language::Cpp => CLanguage::Cpp,
        };
        Ok(match Clang::load()?.compile(c, source)? {
            Ok(program) => Prepared::Ready(Program::Native(program)),
            // Each kind's message is reproducible byte for byte (see `CompileError`).
            Err(failure) => Prepared::CompileError(failure.to_string()),
        })
    }

    /// Runs the program with `stdin`.
    pub fn run_stdio(&self, stdin: &str, limits: &Limits) -> Result<Execution, SandboxError> {
        let pool = WorkerPool::global()?;
        match self {
            Program::Python { python, source } => {
                let mut inv = harness::invocation(python, Harness::Stdio, &[source])?;
                inv.stdin = stdin.as_bytes().to_vec();
                pool.run(python.program(), &inv, limits)
            }
            Program::Native(program) => {
                let inv = Invocation {
                    args: vec!["main".into()],
                    stdin: stdin.as_bytes().to_vec(),
                    ..Invocation::default()
                };
                pool.run(program, &inv, limits)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_marker_tells_the_compile_status() {
        assert_eq!(
            compile_status("__CASCADE_COMPILED__\nboom"),
            (Some(true), "boom")
        );
        assert_eq!(
            compile_status("__CASCADE_COMPILE_ERROR__\nSyntaxError"),
            (Some(false), "SyntaxError")
        );
        let forged = "x\n__CASCADE_COMPILE_ERROR__\n";
        assert_eq!(compile_status(forged), (None, forged));
    }
}
