//! The `swe` environment: a model's patch for a repository, judged by the
//! repository's own tests, with SWE-bench's resolution rules.
//!
//! For each sample:
//! 1. copy the repository snapshot (`repo`, relative to the input file's folder)
//!    into a fresh temporary folder; the original is never modified;
//! 2. find the edit in the response (a diff, bare or fenced, or SEARCH/REPLACE
//!    blocks) and apply it all or nothing (`cascade_verifiers::patch`);
//! 3. reset the files the row's optional `test_patch` touches to the snapshot and
//!    apply it (so a patch cannot rewrite the tests that judge it);
//! 4. run `fail_to_pass` and `pass_to_pass` with the configured backend and parse
//!    the runner's log;
//! 5. reward 1 only if every one of those tests passes.
//!
//! `details`: `applied`, `format`, per-hunk (`hunks`) or per-block (`blocks`)
//! results, `fail_to_pass` / `pass_to_pass` (test id → `passed`, `failed`, `error`,
//! `missing`), `resolution` (`full`, `partial`, `no`), `timed_out`, and a tail of
//! the test log with temporary paths and memory addresses masked, so results are
//! identical from run to run.
//!
//! Settings (`--config key=value`): `backend` (`wasi`, the default: CPython for WASI
//! in wasmtime with fuel and memory limits; or `native`: host CPython in bubblewrap,
//! weaker isolation, for repositories that need C extensions), `python_runtime` and
//! `memory_mb` (`wasi`), `runner` (`auto`, the default: real pytest from the pinned
//! wheels when the suite needs it, else the standard-library stand-in; `pytest`;
//! `builtin`; see `pytest_site.rs`),
//! `fuzz` (default 2, as GNU patch; SWE-bench's last fallback uses 5), `whitespace`
//! (whitespace-tolerant fallback, default true), `strip` (`-p` level, guessed when
//! absent), `timeout_s` (default 120), `python`, `bwrap`, `test_command` (`native`
//! only: run e.g. `python -m pytest -rA {tests}` instead of the bundled runner and
//! read its log whole, as SWE-bench does), `log_chars` (default 2000).

mod backend;
mod bytecode;
mod native;
mod pytest_site;
mod resolve;
mod snapshot;
mod trusted;
mod wasi;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cascade_datasets::swe::SweRow;
use cascade_sandboxes::PythonRuntime;
use cascade_verifiers::patch::{apply_diff_text, apply_response, ApplyOptions, ResponseOutcome};
use cascade_verifiers::testlog::{parse_log, parse_pytest};
use cascade_verifiers::{FieldError, Reward, Sample};
use serde::Deserialize;
use serde_json::{json, Map, Value};

pub use backend::{
    fresh_nonce, marker, split_log, tampering, BackendError, TestBackend, TestJob, TestRun,
    END_MARKER, RUNNER_PY, SUMMARY_MARKER,
};
pub use native::NativeBackend;
pub use pytest_site::{pinned_wheels, PytestSite, RunnerMode, Wheel, WheelMissing, PYTEST_WHEELS};
pub use snapshot::{copy_snapshot, copy_snapshot_within, DiskTree, SnapshotError};
pub use trusted::{is_test_infrastructure, TestFilesPolicy};
pub use wasi::WasiBackend;

use crate::config::{ConfigError, EnvConfig, SamplePaths};
use crate::environment::{ChatMessage, Environment};
use crate::registry::EnvPlugin;
use crate::score_error::ScoreError;

/// Where a repository's tests run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// CPython for WASI in wasmtime, with fuel and memory limits.
    #[default]
    Wasi,
    /// Host CPython in bubblewrap: weaker isolation, for C extensions.
    Native,
}

/// Typed settings of the `swe` environment.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SweConfig {
    pub backend: BackendKind,
    pub fuzz: usize,
    pub whitespace: bool,
    pub strip: Option<usize>,
    pub timeout_s: f64,
    pub python: String,
    pub bwrap: String,
    /// `native` only: a test command instead of the bundled runner, e.g.
    /// `python -m pytest -rA -p no:cacheprovider {tests}` (split on spaces).
    pub test_command: String,
    /// `wasi` only. `cpython-3.12` by default, unlike `code`'s 3.15 snapshot:
    /// repositories target released Pythons, and the snapshot's saving (interpreter
    /// start-up) is small beside a test suite's run.
    pub python_runtime: PythonRuntime,
    /// `wasi` only: the guest's memory limit.
    pub memory_mb: u64,
    pub log_chars: usize,
    /// Who runs the tests: `auto` (real pytest when the suite needs it), `pytest`
    /// or `builtin` (the standard-library stand-in).
    pub runner: RunnerMode,
    /// The system message before the issue; `None` is the built-in one, and an empty
    /// string sends none (short prompts for small models).
    pub system_prompt: Option<String>,
    /// A patch's edits to test infrastructure (`trusted.rs`): `discard` them (the
    /// default) or `refuse` the patch.
    pub test_files: TestFilesPolicy,
}

impl Default for SweConfig {
    fn default() -> Self {
        Self {
            backend: BackendKind::Wasi,
            fuzz: 2,
            whitespace: true,
            strip: None,
            timeout_s: 120.0,
            python: "python3".into(),
            bwrap: "bwrap".into(),
            test_command: String::new(),
            python_runtime: PythonRuntime::Cpython312,
            memory_mb: 2048,
            log_chars: 2000,
            runner: RunnerMode::Auto,
            system_prompt: None,
            test_files: TestFilesPolicy::Discard,
        }
    }
}

/// Wall time spent per phase of one sample, for benchmarks (never in `details`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    pub copy: Duration,
    pub apply: Duration,
    pub test: Duration,
}

pub struct SweEnv {
    config: SweConfig,
    /// Where `repo` resolves, and how far it may reach (`cascade serve` confines it).
    paths: SamplePaths,
    backend: Box<dyn TestBackend>,
}

impl SweEnv {
    pub fn new(config: &EnvConfig) -> Result<Self, ConfigError> {
        let parsed: SweConfig = config.parse("swe")?;
        let invalid = |message: String| ConfigError::Invalid {
            env: "swe".into(),
            message,
        };
        if !(parsed.timeout_s > 0.0 && parsed.timeout_s.is_finite()) {
            return Err(invalid(format!(
                "timeout_s must be positive, got {}",
                parsed.timeout_s
            )));
        }
        let runner = parsed.runner;
        let backend: Box<dyn TestBackend> = match parsed.backend {
            BackendKind::Native => Box::new(
                NativeBackend::new(&parsed.bwrap, &parsed.python)
                    .with_command(
                        parsed
                            .test_command
                            .split_whitespace()
                            .map(str::to_owned)
                            .collect(),
                    )
                    .with_runner(runner),
            ),
            BackendKind::Wasi => {
                if !parsed.test_command.trim().is_empty() {
                    return Err(invalid("test_command needs backend=native".into()));
                }
                Box::new(
                    WasiBackend::new(parsed.python_runtime, parsed.memory_mb).with_runner(runner),
                )
            }
        };
        Ok(Self::with_backend(config, parsed, backend))
    }

    /// An environment with a caller-chosen backend (tests, other sandboxes).
    pub fn with_backend(
        config: &EnvConfig,
        parsed: SweConfig,
        backend: Box<dyn TestBackend>,
    ) -> Self {
        Self {
            config: parsed,
            paths: SamplePaths::of(config),
            backend,
        }
    }

    fn apply_options(&self) -> ApplyOptions {
        ApplyOptions {
            strip: self.config.strip,
            max_fuzz: self.config.fuzz,
            whitespace_fallback: self.config.whitespace,
        }
    }

    /// Scores one sample and reports where the time went.
    pub fn score_timed(&self, sample: &Sample) -> (Reward, Timings) {
        let mut timings = Timings::default();
        let reward = match self.try_score(sample, &mut timings) {
            Ok(r) => r,
            Err(e) => e.into(),
        };
        (reward, timings)
    }

    fn try_score(&self, sample: &Sample, timings: &mut Timings) -> Result<Reward, ScoreError> {
        sample.validate_common()?;
        let task = SweRow::try_from(sample)?;
        // The final answer only: a diff drafted in the thinking is not applied.
        let response = sample.final_answer()?;
        let source = self.paths.resolve(&task.repo)?;

        let started = Instant::now();
        let copy = WorkingCopy::of(&source, self.paths.max_copy_bytes())?;
        timings.copy = started.elapsed();

        let started = Instant::now();
        let tree = DiskTree::new(&copy.repo);
        let outcome = apply_response(response, &tree, &self.apply_options());
        let mut details = edit_details(&outcome);
        if !outcome.applied {
            timings.apply = started.elapsed();
            return Ok(unapplied(&task, details));
        }
        let (kept, discarded) = trusted::split_changes(outcome.changes);
        if !discarded.is_empty() {
            details.insert("discarded".into(), json!(discarded));
            if self.config.test_files == TestFilesPolicy::Refuse {
                timings.apply = started.elapsed();
                let mut reward = unapplied(&task, details);
                reward.details.insert(
                    "error".into(),
                    json!(format!(
                        "the patch edits test infrastructure: {}",
                        discarded.join(", ")
                    )),
                );
                return Ok(reward);
            }
        }
        tree.write(&kept)?;
        if let Some(test_patch) = task.test_patch() {
            // Computed against the snapshot: files the test patch touches are reset
            // to their original state first, whatever the model did to them.
            let original = DiskTree::new(&source);
            let tests = apply_diff_text(test_patch, &original, &ApplyOptions::default());
            if !tests.applied {
                return Err(ScoreError::TestPatch(tests.error.unwrap_or_default()));
            }
            tree.write(&tests.changes)?;
        }
        timings.apply = started.elapsed();

        // Read before the run: the tests may rewrite their own files while they run.
        let sources = trusted_sources(&task, &copy.repo);
        let nonce = fresh_nonce();
        let started = Instant::now();
        let run = self.run_tests(&task, &copy, &nonce)?;
        timings.test = started.elapsed();
        let judged = Judged {
            run: &run,
            nonce: &nonce,
            sources: &sources,
        };
        Ok(self.judge(&task, &judged, &copy.repo, &mut details))
    }

    /// Runs every test the row names, each once.
    fn run_tests(
        &self,
        task: &SweRow,
        copy: &WorkingCopy,
        nonce: &str,
    ) -> Result<TestRun, ScoreError> {
        let mut ids: Vec<String> = task
            .fail_to_pass
            .iter()
            .chain(&task.pass_to_pass)
            .cloned()
            .collect();
        ids.sort();
        ids.dedup();
        if ids.is_empty() {
            return Ok(TestRun {
                log: format!(
                    "{}\n{}\n",
                    marker(SUMMARY_MARKER, nonce),
                    marker(END_MARKER, nonce)
                ),
                timed_out: false,
            });
        }
        let job = TestJob {
            repo: &copy.repo,
            scratch: &copy.scratch,
            tests: &ids,
            nonce,
            timeout: Duration::from_secs_f64(self.config.timeout_s),
        };
        Ok(self.backend.run(&job)?)
    }

    /// SWE-bench's resolution rules over the run's log, with the statuses the
    /// trusted sources allow; any tampering with the runner voids the run.
    fn judge(
        &self,
        task: &SweRow,
        judged: &Judged<'_>,
        work: &Path,
        details: &mut Map<String, Value>,
    ) -> Reward {
        let log = judged.run.log.as_str();
        let (body, mut statuses) = if self.config.test_command.trim().is_empty() {
            let (body, summary) = backend::split_log(log, judged.nonce);
            (body, parse_pytest(summary))
        } else {
            // A foreign command's log is read whole, as SWE-bench reads it.
            (log, parse_log(log))
        };
        for (id, status) in statuses.iter_mut() {
            let source = judged.sources.get(trusted::test_file(id));
            *status = trusted::trusted_status(*status, id, source.map(String::as_str));
        }
        let f2p = resolve::verdicts(&task.fail_to_pass, &statuses, resolve::Role::FailToPass);
        let p2p = resolve::verdicts(&task.pass_to_pass, &statuses, resolve::Role::PassToPass);
        let tampered = backend::tampering(log, judged.nonce);
        let resolution = if tampered.is_empty() {
            resolve::resolution(&f2p, &p2p)
        } else {
            "no"
        };
        details.insert("fail_to_pass".into(), json!(f2p));
        details.insert("pass_to_pass".into(), json!(p2p));
        details.insert("resolution".into(), json!(resolution));
        details.insert("timed_out".into(), json!(judged.run.timed_out));
        if let Some(first) = tampered.first() {
            let error = format!("the code under test tampered with the test runner: {first}");
            details.insert("error".into(), json!(error));
            details.insert("tampered".into(), json!(tampered));
        }
        let body = body.replace(judged.nonce, "NONCE");
        // The backends differ in the line breaks they leave before the runner's summary:
        // a log ends in one line break, and a log of blank lines is empty.
        let body = match body.trim_end_matches(['\n', '\r']) {
            "" => String::new(),
            text => format!("{text}\n"),
        };
        let log = sanitise_log(&body, work, self.config.log_chars);
        details.insert("log".into(), json!(log));
        Reward {
            score: if resolution == "full" { 1.0 } else { 0.0 },
            details: std::mem::take(details),
        }
    }
}

/// One finished run and what judging it needs.
struct Judged<'a> {
    run: &'a TestRun,
    nonce: &'a str,
    /// Test file to its trusted text, read before the run.
    sources: &'a BTreeMap<String, String>,
}

/// The text of every test file the row names, as restored before the run.
fn trusted_sources(task: &SweRow, repo: &Path) -> BTreeMap<String, String> {
    task.fail_to_pass
        .iter()
        .chain(&task.pass_to_pass)
        .map(|id| trusted::test_file(id))
        .filter_map(|file| {
            let text = DiskTree::new(repo).read_text(file)?;
            Some((file.to_owned(), text))
        })
        .collect()
}

/// A fresh temporary copy of a snapshot (`repo`) and a scratch folder beside it,
/// both removed on drop.
struct WorkingCopy {
    _temp: tempfile::TempDir,
    repo: PathBuf,
    scratch: PathBuf,
}

impl WorkingCopy {
    fn of(source: &Path, max_bytes: u64) -> Result<Self, ScoreError> {
        let temp = tempfile::Builder::new()
            .prefix("cascade-swe-")
            .tempdir()
            .map_err(|source| ScoreError::Io {
                what: "cannot create a temporary folder",
                source,
            })?;
        let repo = temp.path().join("repo");
        let scratch = temp.path().join("scratch");
        std::fs::create_dir(&repo)
            .and_then(|_| std::fs::create_dir(&scratch))
            .map_err(|source| ScoreError::Io {
                what: "cannot create the working copy",
                source,
            })?;
        copy_snapshot_within(source, &repo, max_bytes)?;
        Ok(Self {
            _temp: temp,
            repo,
            scratch,
        })
    }
}

/// The reward of an edit that does not apply: every test `missing`.
fn unapplied(task: &SweRow, mut details: Map<String, Value>) -> Reward {
    let missing = |tests: &[String]| -> Value {
        tests
            .iter()
            .map(|t| (t.clone(), json!("missing")))
            .collect::<Map<String, Value>>()
            .into()
    };
    details.insert("fail_to_pass".into(), missing(&task.fail_to_pass));
    details.insert("pass_to_pass".into(), missing(&task.pass_to_pass));
    details.insert("resolution".into(), json!("no"));
    Reward {
        score: 0.0,
        details,
    }
}

fn edit_details(outcome: &ResponseOutcome) -> Map<String, Value> {
    let mut details = Map::new();
    details.insert("applied".into(), json!(outcome.applied));
    details.insert("format".into(), json!(outcome.format));
    if !outcome.hunks.is_empty() {
        details.insert("hunks".into(), json!(outcome.hunks));
    }
    if !outcome.blocks.is_empty() {
        details.insert("blocks".into(), json!(outcome.blocks));
    }
    if let Some(e) = &outcome.error {
        details.insert("apply_error".into(), json!(e));
    }
    details
}

/// The last `max_chars` of the log with run-dependent text masked: the working
/// copy's path, temporary folder names and memory addresses.
fn sanitise_log(log: &str, work: &Path, max_chars: usize) -> String {
    let mut text = log.replace(&work.display().to_string(), "/repo");
    // Where the sandboxes mount the working copy (real pytest prints absolute
    // paths): the same text whichever backend ran the tests.
    for guest in ["/work/", "/tmp/repo/"] {
        text = text.replace(guest, "/repo/");
    }
    text = mask_after(
        &text,
        "cascade-tmp-",
        |c| c.is_ascii_alphanumeric() || c == '_',
        "X",
    );
    text = mask_after(&text, "0x", |c| c.is_ascii_hexdigit(), "…");
    text = mask_stat_fields(&text).into_owned();
    text = mask_durations(&text).into_owned();
    let count = text.chars().count();
    if count <= max_chars {
        return text;
    }
    let skip = count - max_chars;
    let start = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
    format!("[…]{}", &text[start..])
}

/// pytest's closing "N passed in 0.02s": the time differs from run to run.
fn mask_durations(text: &str) -> std::borrow::Cow<'_, str> {
    static DURATION: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    DURATION
        .get_or_init(|| regex::Regex::new(r"\bin [0-9]+(?:\.[0-9]+)?s\b").expect("valid regex"))
        .replace_all(text, "in …s")
}

/// `os.stat_result` fields that differ from run to run (inode and device numbers of
/// the fresh working copy, its timestamps): `st_ino=…`.
fn mask_stat_fields(text: &str) -> std::borrow::Cow<'_, str> {
    static FIELDS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    FIELDS
        .get_or_init(|| {
            regex::Regex::new(r"\b(st_(?:ino|dev|rdev|[amc]time|birthtime)(?:_ns)?)=[0-9.e+-]+")
                .expect("valid pattern")
        })
        .replace_all(text, "$1=…")
}

/// Replaces the run of `keep` characters after each `prefix` with `with`.
fn mask_after(text: &str, prefix: &str, keep: impl Fn(char) -> bool, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        out.push_str(&rest[..at + prefix.len()]);
        rest = &rest[at + prefix.len()..];
        let end = rest.find(|c: char| !keep(c)).unwrap_or(rest.len());
        if end >= 4 || prefix != "0x" {
            out.push_str(if end > 0 { with } else { "" });
        } else {
            out.push_str(&rest[..end]);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

impl Environment for SweEnv {
    fn name(&self) -> &str {
        "swe"
    }

    fn prompt(&self, row: &Sample) -> Result<Vec<ChatMessage>, FieldError> {
        let repo = row.str_field("repo")?;
        let issue = row
            .get("problem_statement")
            .and_then(Value::as_str)
            .unwrap_or("Make the failing tests pass.");
        let files = self
            .paths
            .resolve(repo)
            .map(|root| list_files(&root, 200))
            .unwrap_or_default();
        let system = self
            .config
            .system_prompt
            .as_deref()
            .unwrap_or(DEFAULT_SYSTEM_PROMPT);
        let user = format!("Issue:\n{issue}\n\nRepository files:\n{}", files.join("\n"));
        Ok(ChatMessage::system_then_user(system, user))
    }

    fn score(&self, sample: &Sample) -> Reward {
        self.score_timed(sample).0
    }
}

/// The built-in system message: the answer formats the applier reads.
const DEFAULT_SYSTEM_PROMPT: &str = "You fix bugs in Python repositories. Answer with a \
    unified diff (git diff format, paths prefixed a/ and b/) in a ```diff block, or with \
    SEARCH/REPLACE edit blocks: the file path on its own line, then <<<<<<< SEARCH, the \
    exact lines to find, =======, the replacement, >>>>>>> REPLACE.";

/// Up to `limit` file paths of the snapshot, sorted, for the prompt.
fn list_files(root: &Path, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "__pycache__" {
                continue;
            }
            let path = rel.join(&name);
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(_) => out.push(path.to_string_lossy().into_owned()),
                Err(_) => {}
            }
        }
    }
    out.sort();
    out.truncate(limit);
    out
}

inventory::submit! {
    EnvPlugin {
        name: "swe",
        origin: env!("CARGO_PKG_NAME"),
        description: "repository patches (diff or SEARCH/REPLACE) judged by FAIL_TO_PASS and PASS_TO_PASS tests",
        make: |config| Ok(Box::new(SweEnv::new(config)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_run_dependent_text() {
        let work = Path::new("/tmp/cascade-swe-abc/repo");
        let log =
            "File /tmp/cascade-swe-abc/repo/x.py at 0x7f3a2b1c00 in /tmp/cascade-tmp-q1w2e3/f 0x1";
        assert_eq!(
            sanitise_log(log, work, 1000),
            "File /repo/x.py at 0x… in /tmp/cascade-tmp-X/f 0x1"
        );
        let stat = "os.stat_result(st_mode=33188, st_ino=2918381, st_dev=64769, st_mtime=1764900000.5, st_size=3)";
        assert_eq!(
            sanitise_log(stat, work, 1000),
            "os.stat_result(st_mode=33188, st_ino=…, st_dev=…, st_mtime=…, st_size=3)"
        );
        assert_eq!(sanitise_log("abcdef", work, 3), "[…]def");
    }

    #[test]
    fn a_diff_inside_unclosed_thinking_is_not_applied() {
        let env = SweEnv::new(&EnvConfig::default()).unwrap();
        let s = Sample::new(serde_json::json!({"id": "a", "repo": "r",
            "response": "<think>```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```",
            "fail_to_pass": ["t.py::a"], "pass_to_pass": []}));
        let r = env.score(&s);
        assert_eq!(r.score, 0.0);
        assert!(r.error_message().unwrap().contains("truncated"), "{r:?}");
    }

    #[test]
    fn test_lists_accept_strings_and_arrays() {
        let s = Sample::from_json_line(
            r#"{"id":"a","response":"","repo":"r","FAIL_TO_PASS":"[\"t.py::a\"]","pass_to_pass":["t.py::b"]}"#,
        )
        .unwrap();
        let task = SweRow::try_from(&s).unwrap();
        assert_eq!(task.fail_to_pass, vec!["t.py::a"]);
        assert_eq!(task.pass_to_pass, vec!["t.py::b"]);
        let bad = Sample::from_json_line(
            r#"{"id":"a","response":"","repo":"r","fail_to_pass":3,"pass_to_pass":[]}"#,
        )
        .unwrap();
        assert!(SweRow::try_from(&bad).is_err());
    }
}
