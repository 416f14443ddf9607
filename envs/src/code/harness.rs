//! The `code` env's Python harnesses, compiled to bytecode once per process and
//! runtime, so a run does not pay for compiling them.
//!
//! Why: compiling source is the dominant cost of a short run in WASI CPython (the
//! ~250 lines of the assert harness cost ~40 M fuel to compile, the program's own
//! work often under 2 M). The bytecode is made in the sandbox by the same runtime
//! (`marshal` is version-specific), is the same on every machine, and reaches each run
//! as hex in argv: `python -c LOADER HEX ARGS...`, where the loader drops the hex from
//! `sys.argv` and runs the code as `__main__`, so the harness sees `ARGS` as
//! `sys.argv[1:]`.

use std::sync::{Arc, Mutex};

use cascade_sandboxes::{Invocation, Limits, Python, PythonRuntime, SandboxError};

/// One of the harnesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Harness {
    /// Runs a stdio program (see [`super::program`]).
    Stdio,
    /// The program side of assert tests (see [`super::assert_judge`]).
    AssertProgram,
    /// The test side of assert tests.
    AssertTests,
}

const PLAIN_DATA: &str = include_str!("plain_data.py");

/// What CPython for WASI lacks that programs use (`resource`, threads), before any
/// program code.
const COMPAT: &str = include_str!("compat.py");

impl Harness {
    fn source(self) -> String {
        match self {
            Harness::Stdio => format!("{COMPAT}\n{}", super::program::STDIO_WRAPPER),
            Harness::AssertProgram => {
                format!(
                    "{PLAIN_DATA}\n{COMPAT}\n{}",
                    include_str!("assert_program.py")
                )
            }
            Harness::AssertTests => format!("{PLAIN_DATA}\n{}", include_str!("assert_tests.py")),
        }
    }
}

/// The file name harness frames carry in tracebacks (the test side leaves them out).
pub const HARNESS_FILE: &str = "<harness>";

const LOADER: &str = "import sys, marshal\nexec(marshal.loads(bytes.fromhex(sys.argv.pop(1))))\n";

const COMPILER: &str = "import sys, marshal\nsys.stdout.write(marshal.dumps(compile(sys.argv[1], sys.argv[2], 'exec')).hex())\n";

/// Compiled harnesses: (runtime, harness) → hex bytecode.
type Cache = Vec<((PythonRuntime, Harness), Arc<String>)>;

/// The hex bytecode of `harness` for `python`'s runtime, compiled on first use.
fn bytecode(python: &Python, harness: Harness) -> Result<Arc<String>, SandboxError> {
    static CACHE: Mutex<Cache> = Mutex::new(Vec::new());
    let key = (python.runtime(), harness);
    let cached = |cache: &Cache| {
        cache
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
    };
    if let Some(hex) = cached(&CACHE.lock().unwrap_or_else(|e| e.into_inner())) {
        return Ok(hex);
    }
    let source = harness.source();
    let inv = python.invocation(&["-c", COMPILER, &source, HARNESS_FILE]);
    let run = python.run(&inv, &Limits::new(60.0, 512))?;
    let hex = run.stdout_text();
    if !run.status.success() || hex.is_empty() {
        return Err(SandboxError::Setup(format!(
            "compiling the {harness:?} harness: {:?} {}",
            run.status,
            run.stderr_text()
        )));
    }
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(hex) = cached(&cache) {
        return Ok(hex);
    }
    let hex = Arc::new(hex);
    cache.push((key, hex.clone()));
    Ok(hex)
}

/// `python HARNESS ARGS...` with the runtime's mounts and environment.
pub fn invocation(
    python: &Python,
    harness: Harness,
    args: &[&str],
) -> Result<Invocation, SandboxError> {
    let hex = bytecode(python, harness)?;
    let mut argv = vec!["-c", LOADER, hex.as_str()];
    argv.extend_from_slice(args);
    Ok(python.invocation(&argv))
}
