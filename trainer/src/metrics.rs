//! `metrics.jsonl`: one line per optimizer step (`stage`, `step`, then the step's
//! figures), and a one-line progress display when stderr is a terminal.
//!
//! On resume, lines of stages that did not complete are dropped first, so the file
//! never holds a step twice.

use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

pub struct MetricsLog {
    path: PathBuf,
    terminal: bool,
}

impl MetricsLog {
    /// Opens `path`, keeping only lines whose stage is in `completed`.
    pub fn open(path: &Path, completed: &[String]) -> std::io::Result<Self> {
        let kept: String = match std::fs::read_to_string(path) {
            Ok(text) => text
                .lines()
                .filter(|l| {
                    serde_json::from_str::<Value>(l)
                        .ok()
                        .and_then(|v| {
                            v.get("stage")
                                .and_then(Value::as_str)
                                .map(|s| completed.iter().any(|c| c == s))
                        })
                        .unwrap_or(false)
                })
                .map(|l| format!("{l}\n"))
                .collect(),
            Err(_) => String::new(),
        };
        std::fs::write(path, kept)?;
        Ok(Self {
            path: path.to_owned(),
            terminal: std::io::stderr().is_terminal(),
        })
    }

    /// Appends one step's line and updates the progress display.
    pub fn log(
        &mut self,
        stage: &str,
        algorithm: &str,
        step: usize,
        total: usize,
        stats: &impl Serialize,
    ) -> std::io::Result<Value> {
        let mut line = Map::new();
        line.insert("stage".into(), stage.into());
        line.insert("algorithm".into(), algorithm.into());
        line.insert("step".into(), step.into());
        if let Ok(Value::Object(fields)) = serde_json::to_value(stats) {
            line.extend(fields);
        }
        let value = Value::Object(line);
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        writeln!(file, "{value}")?;
        if self.terminal {
            let figure = |k: &str| value.get(k).and_then(Value::as_f64);
            let main = figure("reward_mean")
                .map(|r| format!("reward {r:.3}"))
                .or_else(|| figure("advantage_mean").map(|a| format!("advantage {a:+.4}")))
                .or_else(|| figure("loss").map(|l| format!("loss {l:.4}")))
                .unwrap_or_default();
            let filled = (step + 1) * 30 / total.max(1);
            eprint!(
                "\r[{stage}] [{}{}] {}/{} {main}   ",
                "#".repeat(filled),
                ".".repeat(30 - filled),
                step + 1,
                total
            );
            if step + 1 == total {
                eprintln!();
            }
        }
        Ok(value)
    }
}
