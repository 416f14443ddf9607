//! The sandbox's execution API under pressure: the open-files cap, the batch and async
//! entry points, verdicts that do not move when the machine is busy, and runs that
//! start from the same state however many ran before them.
//!
//! Needs the CPython runtime from `scripts/setup`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cascade_sandboxes::{Execution, Job, Limits, Python, PythonRuntime, Status, WorkerPool};

fn python() -> &'static Python {
    Python::load(PythonRuntime::default()).expect("CPython runtime (run scripts/setup)")
}

/// A program that opens `n` files in its temp dir and keeps them all open.
fn open_files_program(n: usize) -> String {
    format!(
        "fs = []\nfor i in range({n}):\n    fs.append(open(f'/tmp/f{{i}}', 'w'))\nprint(len(fs))\n"
    )
}

fn run_with_temp(source: &str, limits: &Limits) -> Execution {
    let mut inv = python().source_invocation(source, b"");
    inv.temp_dir = true;
    python().run(&inv, limits).expect("run")
}

/// Open descriptors of this (host) process.
fn host_open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

#[test]
fn open_files_are_capped_and_released() {
    let mut limits = Limits::new(10.0, 256);
    limits.open_files = 50;

    // Exactly the limit: 50 open files are fine, the 51st stops the program.
    let within = run_with_temp(&open_files_program(50), &limits);
    assert!(within.status.success(), "{within:?}");
    assert_eq!(within.stdout_text(), "50\n");
    let over = run_with_temp(&open_files_program(51), &limits);
    assert!(matches!(over.status, Status::Crashed(_)), "{over:?}");

    let before = host_open_fds();
    let flood = run_with_temp(&open_files_program(100_000), &limits);
    match &flood.status {
        Status::Crashed(why) => assert!(why.contains("open-files limit"), "{why}"),
        other => panic!("expected the open-files limit, got {other:?}"),
    }
    // The guest's descriptors die with its store: the host is left as it was.
    assert!(
        host_open_fds() <= before + 2,
        "host fds {} -> {}",
        before,
        host_open_fds()
    );

    // Closing files frees their slots: opening and closing many in turn is fine.
    let churn = "for i in range(500):\n    with open(f'/tmp/f{i}', 'w') as f:\n        f.write('x')\nprint('ok')\n";
    let run = run_with_temp(churn, &limits);
    assert!(run.status.success(), "{run:?}");
}

#[test]
fn the_default_cap_allows_ordinary_programs() {
    let run = run_with_temp(&open_files_program(100), &Limits::new(10.0, 256));
    assert!(run.status.success(), "{run:?}");
    assert_eq!(run.stdout_text(), "100\n");
}

/// A mixed batch: accepted, wrong output, a time limit, a crash and a sleep.
fn mixed_jobs() -> Vec<(String, Vec<u8>, Limits)> {
    let short = Limits::new(0.5, 256);
    let normal = Limits::new(5.0, 256);
    vec![
        ("print(sum(map(int, input().split())))".into(), b"1 2 3\n".to_vec(), normal.clone()),
        ("while True:\n    pass".into(), Vec::new(), short.clone()),
        ("import random\nprint(random.random())".into(), Vec::new(), normal.clone()),
        ("raise SystemExit(3)".into(), Vec::new(), normal.clone()),
        ("import time\ntime.sleep(30)\nprint('late')".into(), Vec::new(), short.clone()),
        (
            "import time\nt = time.time()\nx = sum(i*i for i in range(200000))\nprint(x, time.time() - t > 0)".into(),
            Vec::new(),
            normal.clone(),
        ),
        ("def f(n):\n    return f(n+1)\nf(0)".into(), Vec::new(), normal),
        ("x = 0\nwhile True:\n    x += 1\n    if x % 1000 == 0: print(x)".into(), Vec::new(), short),
    ]
}

fn run_batch(pool: &WorkerPool) -> Vec<Execution> {
    let py = python();
    let jobs: Vec<Job<'_>> = mixed_jobs()
        .into_iter()
        .map(|(source, stdin, limits)| Job {
            program: py.program(),
            invocation: py.source_invocation(&source, &stdin),
            limits,
        })
        .collect();
    pool.run_batch(&jobs)
        .into_iter()
        .map(|r| r.expect("sandbox ran"))
        .collect()
}

#[test]
fn batches_keep_job_order_and_match_single_runs() {
    let pool = WorkerPool::new(2).expect("pool");
    let batch = run_batch(&pool);
    let single: Vec<Execution> = mixed_jobs()
        .into_iter()
        .map(|(source, stdin, limits)| python().run_source(&source, &stdin, &limits).expect("run"))
        .collect();
    assert_eq!(batch, single);
    assert_eq!(batch[0].stdout_text(), "6\n");
    assert_eq!(batch[1].status, Status::TimeLimit);
    assert_eq!(batch[3].status, Status::Exited(3));
    assert_eq!(batch[4].status, Status::TimeLimit);
    assert_eq!(batch[7].status, Status::TimeLimit);
}

/// Spins on every core until dropped.
struct BusyCores {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl BusyCores {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..cores)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                })
            })
            .collect();
        Self { stop, threads }
    }
}

impl Drop for BusyCores {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[test]
fn verdicts_and_fuel_are_identical_on_a_busy_machine() {
    let pool = WorkerPool::new(2).expect("pool");
    let quiet = run_batch(&pool);
    let busy = {
        let _load = BusyCores::start();
        run_batch(&pool)
    };
    // Statuses (time limits included), outputs and fuel, byte for byte.
    assert_eq!(quiet, busy);
}

#[test]
fn async_runs_from_many_tasks_at_once() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("tokio");
    let results = runtime.block_on(async {
        let pool = WorkerPool::global().expect("pool");
        let tasks: Vec<_> = (0..12)
            .map(|i| {
                let inv = python().source_invocation(&format!("print({i} * {i})"), b"");
                let program = python().program().clone();
                tokio::spawn(
                    async move { pool.run_async(program, inv, Limits::new(5.0, 256)).await },
                )
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.expect("task").expect("run"));
        }
        out
    });
    for (i, run) in results.iter().enumerate() {
        assert!(run.status.success(), "{run:?}");
        assert_eq!(run.stdout_text(), format!("{}\n", i * i));
    }
}

/// Pool slots are reused run after run, and each reuse must give the next instance the
/// module's initial memory again (`engine::InstanceMemory`): the same program gets the
/// same status, output and fuel every time, whether the runs before it returned from
/// the interpreter, exited, grew the heap or failed.
#[test]
fn every_run_starts_from_the_modules_initial_memory() {
    let limits = Limits::default();
    let programs = [
        "print(1)",
        "import os\nprint(2, flush=True)\nos._exit(0)",
        "x = [str(i) * 20 for i in range(200_000)]\nprint(len(x))",
        "raise SystemExit(3)",
        "import sys\nsys.modules['marker'] = sys\nprint(sorted(m for m in sys.modules if m == 'marker'))",
    ];
    let first: Vec<Execution> = programs
        .iter()
        .map(|p| python().run_source(p, b"", &limits).expect("run"))
        .collect();
    assert_eq!(first[0].status, Status::Exited(0), "{:?}", first[0]);
    assert_eq!(first[3].status, Status::Exited(3));
    assert_eq!(first[4].stdout_text(), "['marker']\n");
    for round in 0..4 {
        for (p, expected) in programs.iter().zip(&first) {
            let again = python().run_source(p, b"", &limits).expect("run");
            assert_eq!(&again, expected, "round {round}, program {p:?}");
        }
    }
}
