//! Shared by the integration tests: the torch venv's python and the tiny reference
//! checkpoints it makes (once per test binary).

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

/// Runs `recipe` from scratch into `out`, the printed tables into `printed`.
pub fn run_fresh(
    recipe: &cascade_trainer::recipe::Recipe,
    out: &Path,
    printed: &mut Vec<u8>,
) -> cascade_trainer::runner::record::RunRecord {
    let registry = cascade_envs::Registry::discover().expect("registry");
    let options = cascade_trainer::runner::RunOptions {
        output: out.to_owned(),
        resume: cascade_trainer::runner::Resume::Fresh,
    };
    cascade_trainer::runner::run(recipe, &registry, &options, printed).expect("run")
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
