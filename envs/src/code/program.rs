//! A response's program made ready to run: Python source wrapped for the sandbox's
//! CPython, or C/C++ compiled (confined) to a wasm module.

use cascade_sandboxes::{
    CLanguage, Clang, Execution, Invocation, Limits, Python, SandboxError, WasmProgram, WorkerPool,
};

use super::language::Language;

/// A program that compiled (or, for Python, that will be compiled by the runtime).
pub enum Program {
    Python {
        python: &'static Python,
        source: String,
    },
    Native(WasmProgram),
}

/// Marker the Python wrappers print on stderr to tell the host what happened.
pub const RESULT_MARKER: &str = "__CASCADE_RESULT__ ";

/// Runs a stdio program as `__main__` after compiling it, so that a syntax error is
/// told apart from an error at run time, then leaves without finalizing the
/// interpreter.
///
/// Why the fast exit: on the CPython 3.15 snapshot, interpreter finalization is ~98%
/// of a short program's cost (a run of `pass` spends 53 M fuel with it, 1.1 M
/// without). The wrapper does what a normal exit does that a program can observe: it
/// turns `SystemExit` into the exit code (printing a non-integer code), prints an
/// uncaught exception's traceback through `sys.excepthook`, runs `atexit` handlers and
/// flushes stdout and stderr; then `os._exit`. Not kept: `__del__` of objects still
/// alive at exit. A program that breaks `os._exit` only loses the shortcut.
const STDIO_WRAPPER: &str = r#"import sys, os
_cascade_exit = os._exit
_cascade_source = __SOURCE__
try:
    _cascade_code = compile(_cascade_source, "<solution>", "exec")
except (SyntaxError, ValueError) as _e:
    import traceback
    traceback.print_exception(_e, limit=0)
    sys.stderr.write("\n__CASCADE_RESULT__ compile_error\n")
    sys.exit(1)
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

/// Python string literal for any text (escapes everything outside printable ASCII).
pub fn python_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

impl Program {
    /// Prepares `source`. `Ok(Err(message))` is a compile error of the program.
    pub fn prepare(
        language: Language,
        source: &str,
        python: &'static Python,
    ) -> Result<Result<Program, String>, SandboxError> {
        let c = match language {
            Language::Python => {
                return Ok(Ok(Program::Python {
                    python,
                    source: source.to_owned(),
                }))
            }
            Language::C => CLanguage::C,
            Language::Cpp => CLanguage::Cpp,
        };
        Ok(match Clang::load()?.compile(c, source)? {
            Ok(program) => Ok(Program::Native(program)),
            // Each kind's message is reproducible byte for byte (see `CompileError`).
            Err(failure) => Err(failure.to_string()),
        })
    }

    /// Runs the program with `stdin`.
    pub fn run_stdio(&self, stdin: &str, limits: &Limits) -> Result<Execution, SandboxError> {
        let pool = WorkerPool::global()?;
        match self {
            Program::Python { python, source } => {
                let wrapper = STDIO_WRAPPER.replace("__SOURCE__", &python_literal(source));
                let inv = python.source_invocation(&wrapper, stdin.as_bytes());
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
    fn literal_escapes_everything_risky() {
        assert_eq!(python_literal("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert_eq!(
            python_literal("é\u{1F600}\0"),
            r#""\u00e9\U0001f600\u0000""#
        );
    }
}
