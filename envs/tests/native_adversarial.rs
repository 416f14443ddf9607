//! Issue 14, native side: adversarial C/C++ programs and host calls, through the
//! sandbox and through the `code` environment. Each class: the verdict the host
//! observed, and result lines that are the same byte for byte on every run.
//!
//! Needs the clang toolchain and CPython runtime from `scripts/setup`.

mod common;

use cascade_envs::{Reward, Sample};
use cascade_sandboxes::host_calls::{FILE_TIME_NS, IO_FUEL_PER_BYTE, RANDOM_FUEL_PER_BYTE};
use cascade_sandboxes::{
    CLanguage, Clang, CompileError, Execution, Invocation, Limits, Status, WasmProgram, WorkerPool,
};
use serde_json::{json, Value};

use common::code_env as env;

/// A one-case stdio sample, with optional limits.
fn sample(language: &str, code: &str, output: &str, memory_limit_mb: Option<u64>) -> Value {
    let mut s = json!({
        "id": "t",
        "language": language,
        "response": format!("```{language}\n{code}\n```"),
        "tests": {"kind": "stdio", "cases": [{"input": "", "output": output}]},
    });
    if let Some(mb) = memory_limit_mb {
        s["memory_limit_mb"] = mb.into();
    }
    s
}

fn score(sample: Value) -> Reward {
    env().score(&Sample::new(sample))
}

fn verdict(r: &Reward) -> String {
    r.details
        .get("verdict")
        .and_then(Value::as_str)
        .map_or_else(|| format!("no verdict: {r:?}"), str::to_owned)
}

fn stderr(r: &Reward) -> String {
    r.details
        .get("stderr")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// The result line `cascade score` would print for `r`.
fn line(r: &Reward) -> String {
    serde_json::to_string(r).expect("reward serializes")
}

/// Scores `code` twice, as two different sources (a trailing comment differs, so the
/// compile cache cannot answer the second time), and returns both result lines.
fn scored_twice(language: &str, code: &str, output: &str) -> (Reward, String, String) {
    let comment = if language == "python" { "#" } else { "//" };
    let first = score(sample(
        language,
        &format!("{code}\n{comment} 1"),
        output,
        None,
    ));
    let second = score(sample(
        language,
        &format!("{code}\n{comment} 2"),
        output,
        None,
    ));
    let (a, b) = (line(&first), line(&second));
    (first, a, b)
}

fn compile(language: CLanguage, code: &str) -> Result<WasmProgram, CompileError> {
    Clang::load()
        .expect("clang toolchain (run scripts/setup)")
        .compile(language, code)
        .expect("compiler ran")
}

fn run(program: &WasmProgram, limits: &Limits) -> Execution {
    let inv = Invocation {
        args: vec!["main".into()],
        ..Invocation::default()
    };
    WorkerPool::global()
        .expect("pool")
        .run(program, &inv, limits)
        .expect("run")
}

/// Text that would differ between two runs of the compiler.
fn assert_reproducible_text(text: &str) {
    for volatile in ["0x", "/tmp/", "Stack dump", "PLEASE", "libLLVM"] {
        assert!(!text.contains(volatile), "`{volatile}` in: {text}");
    }
}

// ---- §2: linking failures of the submitted program are compile errors ----

#[test]
fn an_unknown_import_is_a_compile_error() {
    let code = "__attribute__((import_module(\"env\"), import_name(\"steal\"))) int steal(void);\nint main(void) { return steal(); }";
    let r = score(sample("c", code, "", None));
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
    assert!(stderr(&r).contains("env::steal"), "{r:?}");
}

#[test]
fn a_wasi_import_with_the_wrong_type_is_a_compile_error() {
    let code = "#include <cstdio>\n__attribute__((import_module(\"wasi_snapshot_preview1\"), import_name(\"fd_write\"))) int raw_write(int);\nint main() { return raw_write(1); }";
    let r = score(sample("cpp", code, "", None));
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
    assert!(stderr(&r).contains("fd_write"), "{r:?}");
}

#[test]
fn an_import_from_the_host_module_is_a_compile_error_too() {
    let code = "__attribute__((import_module(\"host\"), import_name(\"spawn\"))) int spawn(int);\nint main(void) { return spawn(0); }";
    let r = score(sample("c", code, "", None));
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
}

#[test]
fn an_undefined_symbol_names_no_temporary_file() {
    let (r, a, b) = scored_twice(
        "c",
        "void missing(void);\nint main(void) { missing(); }",
        "",
    );
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
    assert!(stderr(&r).contains("undefined symbol: missing"), "{r:?}");
    assert_reproducible_text(&stderr(&r));
    assert_eq!(a, b);
}

// ---- §3: compiler failures are reported by kind, the same on every run ----

#[test]
fn a_macro_bomb_reports_the_same_limit_every_time() {
    let bomb = "#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(x)))\n#define C(x) B(B(B(x)))\nint main(void) { C(;) return 0; }";
    // The two compiles run at once: each takes ~10 s to exhaust the compiler's memory.
    let (first, second) = std::thread::scope(|s| {
        let a = s.spawn(|| score(sample("c", &format!("{bomb}\n// 1"), "", None)));
        let b = score(sample("c", &format!("{bomb}\n// 2"), "", None));
        (a.join().expect("first compile"), b)
    });
    assert_eq!(verdict(&first), "compile_error", "{first:?}");
    assert_eq!(
        stderr(&first),
        CompileError::LimitExceeded.to_string(),
        "{first:?}"
    );
    assert_eq!(line(&first), line(&second));
}

#[test]
fn a_huge_data_segment_is_reported_as_too_large() {
    let code = "#include <stdio.h>\nint table[50000000] = {1, 2, 3};\nint main(void) { int i; if (scanf(\"%d\", &i) != 1) i = 1; table[i] = 5; printf(\"%d\\n\", table[i / 2]); }";
    let (r, a, b) = scored_twice("c", code, "");
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
    assert_eq!(stderr(&r), CompileError::ModuleTooLarge.to_string());
    assert_eq!(a, b);
}

#[test]
fn ordinary_diagnostics_are_reproducible() {
    let code = "#include <vector>\nint main() { std::vector<int> v; v.push_back(\"x\"); undefined_name = 3; }";
    let (r, a, b) = scored_twice("cpp", code, "");
    assert_eq!(verdict(&r), "compile_error", "{r:?}");
    assert!(stderr(&r).contains("main.cpp:2:"), "{r:?}");
    assert_reproducible_text(&stderr(&r));
    assert_eq!(a, b);
}

#[test]
fn compile_dates_and_times_are_pinned() {
    let code = "#include <stdio.h>\nint main(void) { printf(\"%s|%s|%s\\n\", __DATE__, __TIME__, __TIMESTAMP__); }";
    let want = "Jan  1 2024|00:00:00|Mon Jan  1 00:00:00 2024";
    for language in ["c", "cpp"] {
        let (r, a, b) = scored_twice(language, code, want);
        assert_eq!(verdict(&r), "accepted", "{r:?}");
        assert_eq!(a, b);
    }
}

#[test]
fn mounted_files_report_fixed_times() {
    // Whichever of these the runtime mounts (the 3.15 snapshot's standard library).
    let code = "import os, sys\nseen = set()\nfor p in sys.path + ['/usr/local/lib', '/usr/local/lib/python315.zip']:\n    try:\n        st = os.stat(p)\n    except OSError:\n        continue\n    seen.add((st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns))\nprint(sorted(seen))";
    let t = FILE_TIME_NS;
    let want = format!("[({t}, {t}, {t})]");
    let r = score(sample("python", code, &want, None));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
    // Written files too: a fresh file in the temp dir does not carry the host's clock.
    let python = cascade_sandboxes::Python::load(cascade_sandboxes::PythonRuntime::default())
        .expect("python");
    let mut inv = python.source_invocation(
        "import os\nopen('/tmp/f', 'w').write('x')\nprint(os.stat('/tmp/f').st_mtime_ns, os.stat('/tmp').st_mtime_ns)",
        b"",
    );
    inv.temp_dir = true;
    let run = python.run(&inv, &Limits::default()).expect("run");
    assert_eq!(run.stdout_text(), format!("{t} {t}\n"), "{run:?}");
}

/// A C program that asks WASI for `chunks` × 64 MiB of random bytes, then prints `done`.
fn random_program(chunks: u32) -> String {
    format!(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <wasi/api.h>\nint main(void) {{\n  unsigned char *buf = malloc(64u << 20);\n  if (!buf) return 3;\n  for (unsigned i = 0; i < {chunks}u; i++) __wasi_random_get(buf, 64u << 20);\n  printf(\"done %d\\n\", buf[12345] + buf[99]);\n}}"
    )
}

#[test]
fn random_bytes_cost_fuel_in_proportion() {
    let program = compile(CLanguage::C, &random_program(1)).expect("compiles");
    let limits = Limits::new(2.0, 256);
    let run = run(&program, &limits);
    assert!(run.status.success(), "{run:?}");
    assert!(
        run.fuel_used >= (64 << 20) * RANDOM_FUEL_PER_BYTE,
        "64 MiB of random bytes for {} fuel",
        run.fuel_used
    );
}

#[test]
fn a_random_flood_stops_on_fuel_not_the_wall_clock() {
    // 100 × 64 MiB: before metering this ran until the wall-clock backstop (~25 s)
    // or finished, depending on the machine. Now the budget runs out, exactly.
    let program = compile(CLanguage::C, &random_program(100)).expect("compiles");
    let limits = Limits::new(2.0, 256);
    let run = run(&program, &limits);
    assert_eq!(run.status, Status::TimeLimit, "{run:?}");
    assert_eq!(run.fuel_used, limits.fuel, "stopped by the fuel meter");
    let again = self::run(&program, &limits);
    assert_eq!((again.status, again.fuel_used), (run.status, run.fuel_used));
}

#[test]
fn python_urandom_floods_get_a_reproducible_time_limit() {
    let code = "import os\nfor _ in range(100):\n    os.urandom(1 << 26)\nprint('done')";
    let (r, a, b) = scored_twice("python", code, "done");
    assert_eq!(verdict(&r), "time_limit", "{r:?}");
    assert_eq!(a, b);
}

#[test]
fn output_bytes_cost_fuel_in_proportion() {
    let code = "#include <stdio.h>\n#include <string.h>\nstatic char line[1 << 20];\nint main(void) { memset(line, 'x', sizeof line); for (int i = 0; i < 32; i++) fwrite(line, 1, sizeof line, stdout); }";
    let program = compile(CLanguage::C, code).expect("compiles");
    let run = run(&program, &Limits::new(2.0, 256));
    assert!(run.status.success(), "{run:?}");
    assert_eq!(run.stdout.len(), 32 << 20);
    assert!(
        run.fuel_used >= (32 << 20) * IO_FUEL_PER_BYTE,
        "32 MiB written for {} fuel",
        run.fuel_used
    );
}

// ---- §4: large zero-initialised arrays compile and fit; what the limit measures ----

#[test]
fn a_large_static_dp_table_compiles_and_runs() {
    // 200 MB of zeroed ints (a DP table), under the default 256 MB limit.
    let code = "#include <bits/stdc++.h>\nstatic int dp[50000000];\nint main() { int n = 50000000; for (int i = 1; i < n; i++) dp[i] = (dp[i - 1] + i) % 1000003; std::cout << dp[n - 1] << \"\\n\"; }";
    let want = (1..50_000_000u64).fold(0u64, |acc, i| (acc + i) % 1_000_003);
    let r = score(sample("cpp", code, &want.to_string(), None));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

#[test]
fn a_large_static_sieve_compiles_and_runs() {
    let code = "#include <stdio.h>\nstatic char composite[100000001];\nint main(void) { int n = 100000000, count = 0; for (long long i = 2; i <= n; i++) { if (composite[i]) continue; count++; for (long long j = i * i; j <= n; j += i) composite[j] = 1; } printf(\"%d\\n\", count); }";
    let r = score(sample("c", code, "5761455", None));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

/// A C program with `bytes` of zeroed static data that it really uses (through a
/// volatile pointer, so the optimiser cannot drop the array).
fn zeroed_array_program(bytes: u64) -> String {
    format!(
        "#include <stdio.h>\nstatic char big[{bytes}];\nint main(void) {{ volatile char *p = big; p[{bytes} - 1] = 1; printf(\"%d\\n\", p[{bytes} - 1] + p[12345]); }}"
    )
}

#[test]
fn zeroed_data_costs_nothing_in_the_module() {
    // 600 MB of zeroes compile (the module is far below the 64 MiB file limit);
    // running needs the memory, so the run is judged by the memory limit.
    let program = compile(CLanguage::C, &zeroed_array_program(600_000_000)).expect("compiles");
    let big = run(&program, &Limits::new(2.0, 1024));
    assert_eq!(big.status, Status::Exited(0), "{big:?}");
    assert_eq!(big.stdout_text(), "1\n");
    assert!(big.memory_peak_bytes >= 600_000_000);
    assert_eq!(
        run(&program, &Limits::new(2.0, 256)).status,
        Status::MemoryLimit
    );
}

#[test]
fn a_static_array_beyond_the_memory_limit_is_a_memory_limit() {
    let code = zeroed_array_program(300_000_000);
    let r = score(sample("c", &code, "1", Some(256)));
    assert_eq!(verdict(&r), "memory_limit", "{r:?}");
    let r = score(sample("c", &code, "1", Some(512)));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

#[test]
fn the_c_stack_reservation_does_not_count_against_the_limit() {
    // 240 MB of heap under 256 MB: natively the unused stack is not resident.
    let code = "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void) { size_t n = 240u << 20; char *p = malloc(n); if (!p) return 3; memset(p, 7, n); printf(\"%d\\n\", p[n - 1]); }";
    let r = score(sample("c", code, "7", None));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

// ---- §5: the compiler's confinement does not rely on clang reading /proc as empty ----

#[test]
fn the_compiler_sees_no_proc() {
    let code = "#include <stdio.h>\nint main(void) {\n#if __has_include(\"/proc/1/environ\") || __has_include(\"/proc/self/status\") || __has_include(\"/proc/cpuinfo\")\n  puts(\"proc visible\");\n#else\n  puts(\"no proc\");\n#endif\n}";
    let r = score(sample("c", code, "no proc", None));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}

#[test]
fn including_the_sandbox_init_environment_fails() {
    for path in ["/proc/1/environ", "/proc/self/environ", "/proc/1/cmdline"] {
        let code = format!("#include \"{path}\"\nint main(void) {{ return 0; }}");
        let r = score(sample("c", &code, "", None));
        assert_eq!(verdict(&r), "compile_error", "{path}: {r:?}");
        assert!(stderr(&r).contains("file not found"), "{path}: {r:?}");
    }
}

#[test]
fn the_interpreter_baseline_is_not_counted() {
    for runtime in [
        cascade_sandboxes::PythonRuntime::Cpython315Snapshot,
        cascade_sandboxes::PythonRuntime::Cpython312,
    ] {
        let python = cascade_sandboxes::Python::load(runtime).expect("python");
        let empty = python
            .run_source("pass", b"", &Limits::default())
            .expect("run");
        assert!(empty.status.success(), "{empty:?}");
        assert!(
            empty.memory_peak_bytes <= runtime.baseline_memory_bytes(),
            "{runtime:?}: `pass` peaks at {} bytes",
            empty.memory_peak_bytes
        );
        // 240 MiB of program data under a 256 MiB limit: fits natively (the
        // interpreter's ~10 MB on top), so it fits here.
        let big = "x = bytearray(240 << 20)\nprint(len(x))";
        let run = python
            .run_source(big, b"", &Limits::new(2.0, 256))
            .expect("run");
        assert!(run.status.success(), "{runtime:?}: {run:?}");
        let over = "x = bytearray(300 << 20)\nprint(len(x))";
        let run = python
            .run_source(over, b"", &Limits::new(2.0, 256))
            .expect("run");
        assert_eq!(run.status, Status::MemoryLimit, "{runtime:?}");
    }
    let r = score(sample(
        "python",
        "x = bytearray(240 << 20)\nprint(len(x))",
        "251658240",
        None,
    ));
    assert_eq!(verdict(&r), "accepted", "{r:?}");
}
