//! Shared by the integration tests: pinned numerics and trajectory hashes for the tests
//! that train, the torch venv's python and the tiny reference checkpoints it makes
//! (once per test binary).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The python of the torch + transformers venv (`scripts/setup.d/trainer.sh`), or
/// `$CASCADE_TORCH_PYTHON`.
pub fn python() -> PathBuf {
    if let Ok(p) = std::env::var("CASCADE_TORCH_PYTHON") {
        return PathBuf::from(p);
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let cache = std::env::var("CASCADE_CACHE").unwrap_or(format!("{home}/.cache/cascade"));
    PathBuf::from(cache).join("venv-torch-2.11.0/bin/python")
}

pub fn fixture_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny_models.py")
}

/// A folder with `qwen2/`, `llama/`, `qwen3/` and `reference.json`, made by transformers.
pub fn tiny_models() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = Command::new(python())
            .arg(fixture_script())
            .arg("make")
            .arg(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {:?} (run scripts/setup): {e}", python()));
        assert!(
            out.status.success(),
            "tiny_models.py make failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .path()
}

pub fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(tiny_models().join("reference.json")).expect("reference");
    serde_json::from_str(&text).expect("reference json")
}

/// transformers' reload of the checkpoint `dir` (`tiny_models.py reload`): the largest
/// |difference| from `reference_path`'s outputs for model `name`.
pub fn transformers_reload_diff(dir: &Path, reference_path: &Path, name: &str) -> f64 {
    let run = Command::new(python())
        .arg(fixture_script())
        .args([
            "reload".as_ref(),
            dir.as_os_str(),
            reference_path.as_os_str(),
            name.as_ref(),
        ])
        .output()
        .expect("python");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json report");
    report["max_abs_diff"].as_f64().expect("number")
}

/// What every test that trains calls before any tensor operation: portable numerics
/// (`cascade_trainer::numerics`: ATen's AVX2 kernels, MKL's `COMPATIBLE,STRICT` branch,
/// oneDNN capped at AVX2, one thread), so that its trajectory, and so its assertion, is
/// the same on every x86-64 CPU from AVX2 up. `CASCADE_NUMERICS=native` lifts the pin
/// (`scripts/numerics_matrix.sh` compares both).
pub fn pin() {
    cascade_trainer::numerics::pin_for_tests();
}

/// Appends this test's trajectory hash (`data`: its metrics and final weights) to
/// `CASCADE_TRAJECTORY_HASH_FILE` when set, named after the test (its thread's name).
pub fn record_trajectory(data: &[u8]) {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("main");
    cascade_trainer::numerics::record_trajectory(name, data);
}

/// A run's trajectory: its metrics lines without wall-clock or memory figures, and the
/// bytes of every checkpoint's weights.
pub fn run_trajectory(out: &Path) -> Vec<u8> {
    let mut data = Vec::new();
    for mut line in metrics(out) {
        if let Some(fields) = line.as_object_mut() {
            fields.retain(|k, _| !(k.ends_with("_s") || k.contains("rss") || k.contains("mem")));
        }
        data.extend(line.to_string().bytes());
    }
    let mut weights: Vec<PathBuf> = walk(&out.join("checkpoints"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .collect();
    weights.sort();
    for path in weights {
        data.extend(std::fs::read(&path).expect("checkpoint"));
    }
    data
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// Runs `recipe` from scratch into `out` (numerics pinned first), the printed tables
/// into `printed`, and records the run's trajectory hash.
pub fn run_fresh(
    recipe: &cascade_trainer::recipe::Recipe,
    out: &Path,
    printed: &mut Vec<u8>,
) -> cascade_trainer::runner::record::RunRecord {
    pin();
    let registry = cascade_envs::Registry::discover().expect("registry");
    let options = cascade_trainer::runner::RunOptions {
        output: out.to_owned(),
        resume: cascade_trainer::runner::Resume::Fresh,
    };
    let record = cascade_trainer::runner::run(recipe, &registry, &options, printed).expect("run");
    record_trajectory(&run_trajectory(out));
    record
}

/// A run's `metrics.jsonl`, one value per line.
pub fn metrics(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("metrics.jsonl"))
        .expect("metrics")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// A folder with one tiny checkpoint per RoPE type and sliding-window family, and
/// `variants.json` (`tiny_models.py variants`), made once per test binary.
pub fn tiny_variants() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = Command::new(python())
            .arg(fixture_script())
            .arg("variants")
            .arg(dir.path())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {:?} (run scripts/setup): {e}", python()));
        assert!(
            out.status.success(),
            "tiny_models.py variants failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .path()
}

/// The converted SmolLM2-135M-Instruct folder that scripts/setup makes
/// (`$CASCADE_SMOLLM2`, else `$CASCADE_CACHE/models/smollm2-135m-instruct`).
pub fn smollm2_dir() -> PathBuf {
    let dir = std::env::var("CASCADE_SMOLLM2")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            let home = std::env::var("HOME").unwrap_or_default();
            let cache = std::env::var("CASCADE_CACHE").unwrap_or(format!("{home}/.cache/cascade"));
            PathBuf::from(cache).join("models/smollm2-135m-instruct")
        });
    assert!(
        dir.join(".complete").is_file(),
        "{} is not a converted SmolLM2 folder: run scripts/setup (scripts/setup.d/smollm2.sh)",
        dir.display()
    );
    dir
}
