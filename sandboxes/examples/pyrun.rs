//! Runs a Python file in the sandbox with this process's stdin and prints how it went:
//! `cargo run -p cascade-sandboxes --example pyrun -- [--snapshot] FILE.py [TIME_S [MEM_MB]]`.

use std::io::Read;
use std::time::Instant;

use cascade_sandboxes::{Limits, Python, PythonRuntime};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = if args.first().map(String::as_str) == Some("--snapshot") {
        args.remove(0);
        PythonRuntime::Cpython315Snapshot
    } else {
        PythonRuntime::Cpython312
    };
    let Some(file) = args.first() else {
        eprintln!("usage: pyrun [--snapshot] FILE.py [TIME_S [MEM_MB]]");
        std::process::exit(2);
    };
    let source = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2)
    });
    let time: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let mem: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(256);
    let mut stdin = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut stdin);
    let t = Instant::now();
    let python = match Python::load(runtime) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    };
    eprintln!("load: {:?}", t.elapsed());
    for _ in 0..2 {
        let t = Instant::now();
        match python.run_source(&source, &stdin, &Limits::new(time, mem)) {
            Ok(run) => {
                eprintln!(
                    "status {:?} fuel {} time {:?}\n--- stdout ({} bytes)\n{}\n--- stderr\n{}",
                    run.status,
                    run.fuel_used,
                    t.elapsed(),
                    run.stdout.len(),
                    String::from_utf8_lossy(&run.stdout[..run.stdout.len().min(2000)]),
                    String::from_utf8_lossy(&run.stderr[..run.stderr.len().min(3000)]),
                );
            }
            Err(e) => eprintln!("error: {e}"),
        }
    }
}
