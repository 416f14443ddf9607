//! What a failed compile reports, made reproducible byte for byte.
//!
//! The compiler's own text is deterministic for ordinary errors (the source is at the
//! fixed path `/work/main.c`), but a compiler that crashes or hits a limit prints run
//! dependent text: stack dumps with ASLR addresses, the random names of its temporary
//! files (`/tmp/main-1c1068.o`), and, when two limits race (a macro bomb runs out of
//! CPU time on a slow machine and of memory on a fast one), whichever limit came
//! first. So a failure is reported by kind ([`CompileError`]) and only text that
//! depends on the source alone is kept: diagnostics printed before a crash, with
//! temporary file names replaced by their stable stem (`main.o`).

use std::sync::OnceLock;

use regex::Regex;

use super::CompileError;

/// Line starts after which the compiler's output describes its own failure, not the
/// source. (Prefixes, so that a source line quoted in a diagnostic never matches.)
const CRASH_PREFIXES: &[&str] = &[
    "PLEASE submit a bug report",
    "Stack dump:",
    "LLVM ERROR:",
    "terminate called",
    "clang: error: unable to execute command:",
    "clang++: error: unable to execute command:",
    "clang: error: clang frontend command failed due to signal",
    "clang++: error: clang frontend command failed due to signal",
];

/// Line starts of the tools' own messages, where limits are named.
const TOOL_PREFIXES: &[&str] = &[
    "LLVM ERROR:",
    "Allocation failed",
    "terminate called",
    "clang: error:",
    "clang++: error:",
    "wasm-ld",
];

/// Tool messages that say the compiler ran into its CPU-time or memory limit.
const RESOURCE_MARKERS: &[&str] = &[
    "out of memory",
    "Allocation failed",
    "bad_alloc",
    "Cannot allocate memory",
    "CPU time limit exceeded",
    "unable to execute command: Killed",
];

/// Tool messages that say an output file hit the compiler's file-size limit.
const FILE_SIZE_MARKERS: &[&str] = &["File size limit exceeded", "File too large"];

fn starts_with_any(line: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| line.starts_with(p))
}

/// The verdict for a compiler run that exited with an error, from its stderr.
pub(super) fn classify(stderr: &str, max_chars: usize) -> CompileError {
    let tool_says = |markers: &[&str]| {
        stderr
            .lines()
            .filter(|l| starts_with_any(l, TOOL_PREFIXES))
            .any(|l| markers.iter().any(|m| l.contains(m)))
    };
    if tool_says(FILE_SIZE_MARKERS) {
        return CompileError::ModuleTooLarge;
    }
    if tool_says(RESOURCE_MARKERS) {
        return CompileError::LimitExceeded;
    }
    let before_crash: Vec<&str> = stderr
        .lines()
        .take_while(|l| !starts_with_any(l, CRASH_PREFIXES))
        .collect();
    let crashed = before_crash.len() < stderr.lines().count();
    let text: String = stable_names(&before_crash.join("\n"))
        .chars()
        .take(max_chars)
        .collect();
    if crashed {
        CompileError::Crashed(text)
    } else {
        CompileError::Rejected(text)
    }
}

/// Replaces the compiler's temporary file names (`/tmp/main-1c1068.o`) by their stem
/// (`main.o`).
pub(super) fn stable_names(text: &str) -> String {
    static TEMP: OnceLock<Regex> = OnceLock::new();
    let re = TEMP.get_or_init(|| {
        Regex::new(r"/tmp/([A-Za-z0-9_+.]+?)-[0-9a-f]{6}\.([A-Za-z]+)")
            .expect("static regex is valid")
    });
    re.replace_all(text, "$1.$2").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_errors_keep_their_text_with_stable_names() {
        let text = "wasm-ld-16: error: /tmp/main-53fdb4.o: undefined symbol: foo()\nclang: error: linker command failed with exit code 1 (use -v to see invocation)\n";
        assert_eq!(
            classify(text, 1000),
            CompileError::Rejected(
                "wasm-ld-16: error: main.o: undefined symbol: foo()\nclang: error: linker command failed with exit code 1 (use -v to see invocation)".into()
            )
        );
    }

    #[test]
    fn crashes_keep_only_what_came_before_them() {
        let text = "main.cpp:1:5: warning: unused\nPLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\nStack dump:\n0.\tProgram arguments: clang -o /tmp/main-1c1068.o\n 0  libLLVM-16.so.1    0x00007f2aec3c9ce6\nclang: error: unable to execute command: Segmentation fault\n";
        assert_eq!(
            classify(text, 1000),
            CompileError::Crashed("main.cpp:1:5: warning: unused".into())
        );
    }

    #[test]
    fn limits_are_reported_by_kind_without_text() {
        let oom = "LLVM ERROR: out of memory\nAllocation failed\nPLEASE submit a bug report\n 0 0x00007f2a\nclang: error: unable to execute command: Aborted\n";
        assert_eq!(classify(oom, 1000), CompileError::LimitExceeded);
        let cpu = "clang: error: unable to execute command: CPU time limit exceeded\n";
        assert_eq!(classify(cpu, 1000), CompileError::LimitExceeded);
        let big = "PLEASE submit a bug report\nclang: error: unable to execute command: File size limit exceeded\n";
        assert_eq!(classify(big, 1000), CompileError::ModuleTooLarge);
        let lld = "wasm-ld-16: error: failed to open main.wasm: File too large\n";
        assert_eq!(classify(lld, 1000), CompileError::ModuleTooLarge);
    }
}
