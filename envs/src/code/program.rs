//! A response's program made ready to run: Python source wrapped for the sandbox's
//! CPython, or C/C++ compiled (confined) to a wasm module.

use cascade_sandboxes::{
    CLanguage, Clang, CompileError, Execution, Invocation, Limits, Python, SandboxError,
    WasmProgram, WorkerPool,
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
/// told apart from an error at run time.
const STDIO_WRAPPER: &str = r#"import sys
try:
    _cascade_code = compile(__SOURCE__, "<solution>", "exec")
except (SyntaxError, ValueError) as _e:
    import traceback
    traceback.print_exception(_e, limit=0)
    sys.stderr.write("\n__CASCADE_RESULT__ compile_error\n")
    sys.exit(1)
exec(_cascade_code, {"__name__": "__main__", "__builtins__": __builtins__})
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
            Err(CompileError::Rejected(diagnostics)) => Err(diagnostics),
            Err(CompileError::LimitExceeded) => Err("compilation exceeded its limits".into()),
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
        assert_eq!(python_literal("é\u{1F600}\0"), r#""\u00e9\U0001f600\u0000""#);
    }
}
