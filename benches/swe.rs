//! Throughput of the `swe` environment: tasks scored per minute, with the time split
//! into copying the snapshot, applying the patch and running the tests.
//!
//! `cargo bench --bench swe` scores the bundled sample (`datasets/swe/sample.jsonl`).
//! `cargo bench --bench swe -- FILE.jsonl [ROUNDS] [KEY=VALUE ...]` scores another
//! file (e.g. generated tasks) with environment settings such as `backend=native`.
//! Without a `runner=` setting it measures both real pytest (`runner=pytest`) and the
//! standard-library stand-in (`runner=builtin`).
//! Figures go to stdout; they are measurements, never assertions.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cascade_envs::swe::{SweEnv, Timings};
use cascade_envs::{EnvConfig, Sample};
use rayon::prelude::*;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let input = args
        .first()
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/swe/sample.jsonl"));
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let pairs: Vec<&str> = args.iter().skip(2).map(String::as_str).collect();
    let text = match std::fs::read_to_string(&input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", input.display());
            std::process::exit(2);
        }
    };
    let samples: Vec<Sample> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| Sample::from_json_line(l).ok())
        .collect();
    let base = input.parent().unwrap_or(Path::new("."));
    println!(
        "swe bench: {} ({} tasks x {rounds} rounds)",
        input.display(),
        samples.len()
    );
    // Without a `runner=` setting, compare real pytest with the stand-in.
    let runners: Vec<Option<&str>> = if pairs.iter().any(|p| p.starts_with("runner=")) {
        vec![None]
    } else {
        vec![Some("runner=builtin"), Some("runner=pytest")]
    };
    for runner in runners {
        let all: Vec<&str> = pairs.iter().copied().chain(runner).collect();
        let config = match EnvConfig::from_pairs(all.iter().copied()) {
            Ok(c) => c.with_base_dir(base),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        };
        let env = match SweEnv::new(&config) {
            Ok(env) => env,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        };
        println!("settings: {}", all.join(" "));
        measure(&env, &samples, rounds);
    }
}

fn measure(env: &SweEnv, samples: &[Sample], rounds: usize) {
    // One untimed task first: loads the runtime and builds cached bytecode.
    if let Some(first) = samples.first() {
        let _ = env.score_timed(first);
    }
    let started = Instant::now();
    let mut total = Timings::default();
    let mut resolved = 0usize;
    for _ in 0..rounds {
        for s in samples {
            let (reward, t) = env.score_timed(s);
            resolved += usize::from(reward.score == 1.0);
            total.copy += t.copy;
            total.apply += t.apply;
            total.test += t.test;
        }
    }
    let n = (samples.len() * rounds).max(1);
    let wall = started.elapsed();
    let per = |d: Duration| d.as_secs_f64() * 1000.0 / n as f64;
    println!(
        "  sequential: {:.1} tasks/min ({:.1} ms/task: copy {:.2} ms, apply {:.2} ms, test {:.1} ms); resolved {}/{}",
        n as f64 / wall.as_secs_f64() * 60.0,
        wall.as_secs_f64() * 1000.0 / n as f64,
        per(total.copy),
        per(total.apply),
        per(total.test),
        resolved,
        n
    );

    let threads = rayon::current_num_threads();
    let started = Instant::now();
    (0..rounds).for_each(|_| {
        samples.par_iter().for_each(|s| {
            let _ = env.score_timed(s);
        })
    });
    let wall = started.elapsed();
    println!(
        "  parallel ({threads} threads): {:.1} tasks/min",
        n as f64 / wall.as_secs_f64() * 60.0
    );
}
