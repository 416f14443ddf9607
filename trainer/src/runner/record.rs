//! The run record: per stage (the base model first) its algorithm, its eval score in
//! every domain and, for MOPD, the teacher of each domain. Written as `evals.json`
//! (SPEC layout) and `evals.csv`, and printed as the stage × domain table that shows
//! forgetting or transfer at a glance. Files are replaced atomically.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::RunError;
use crate::recipe::Algorithm;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    pub stage: String,
    /// The stage's algorithm; `None` for the base model (written `"base"`).
    #[serde(with = "base_or_algorithm")]
    pub algorithm: Option<Algorithm>,
    pub scores: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub teachers: BTreeMap<String, String>,
    /// `rm` stages: the reward model's held-out figures (the policy's scores are the
    /// row above's: the stage leaves the policy as it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_model: Option<RewardModelRecord>,
}

/// What an `rm` stage's reward model reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewardModelRecord {
    /// Pairwise accuracy on the held-out pairs before and after the stage.
    pub accuracy_before: f64,
    pub accuracy: f64,
    pub train_pairs: usize,
    pub eval_pairs: usize,
    /// Preference rows skipped (missing fields, identical responses, ties).
    pub skipped_rows: usize,
}

impl StageRecord {
    /// The algorithm's name, `base` for the base model.
    pub fn algorithm_name(&self) -> &'static str {
        self.algorithm.map_or("base", Algorithm::as_str)
    }
}

/// `evals.json`'s `algorithm` field: an algorithm's name, or `base` for the base model.
mod base_or_algorithm {
    use serde::de::IntoDeserializer;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::recipe::Algorithm;

    pub fn serialize<S: Serializer>(a: &Option<Algorithm>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(a.map_or("base", Algorithm::as_str))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Algorithm>, D::Error> {
        let name = String::deserialize(d)?;
        if name == "base" {
            return Ok(None);
        }
        Algorithm::deserialize(name.as_str().into_deserializer()).map(Some)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub stages: Vec<StageRecord>,
}

/// Writes `bytes` to `path` through a temporary file and a rename (the shared writer).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunError> {
    Ok(cascade_datasets::jsonl::write_atomic(path, bytes)?)
}

impl RunRecord {
    pub fn load(path: &Path) -> Result<Self, RunError> {
        if !path.exists() {
            return Ok(Self::default());
        }
        let text = std::fs::read_to_string(path).map_err(|e| RunError::io(path, e))?;
        serde_json::from_str(&text).map_err(|e| RunError::Dataset {
            path: path.to_owned(),
            line: 0,
            message: e.to_string(),
        })
    }

    /// Every domain seen, sorted.
    pub fn domains(&self) -> Vec<String> {
        let mut d: Vec<String> = self
            .stages
            .iter()
            .flat_map(|s| s.scores.keys().cloned())
            .collect();
        d.sort();
        d.dedup();
        d
    }

    /// `evals.json` and `evals.csv` in `dir`.
    pub fn save(&self, dir: &Path) -> Result<(), RunError> {
        let json = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomic(&dir.join("evals.json"), json.as_bytes())?;
        let domains = self.domains();
        let mut csv = format!("stage,algorithm,{}\n", domains.join(","));
        for s in &self.stages {
            let cells: Vec<String> = domains
                .iter()
                .map(|d| {
                    s.scores
                        .get(d)
                        .map(|v| format!("{v:.4}"))
                        .unwrap_or_default()
                })
                .collect();
            csv += &format!("{},{},{}\n", s.stage, s.algorithm_name(), cells.join(","));
        }
        write_atomic(&dir.join("evals.csv"), csv.as_bytes())
    }

    /// The stage × domain table, with each score's change from the row above.
    pub fn table(&self) -> String {
        let domains = self.domains();
        let width = self
            .stages
            .iter()
            .map(|s| s.stage.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut out = format!("{:width$}  {:9}", "stage", "algorithm");
        for d in &domains {
            out += &format!("  {:>16}", d);
        }
        out.push('\n');
        let mut prev: Option<&StageRecord> = None;
        for s in &self.stages {
            out += &format!("{:width$}  {:9}", s.stage, s.algorithm_name());
            for d in &domains {
                let cell = match (s.scores.get(d), prev.and_then(|p| p.scores.get(d))) {
                    (Some(v), Some(p)) => format!("{v:.3} ({:+.3})", v - p),
                    (Some(v), None) => format!("{v:.3}"),
                    _ => "-".into(),
                };
                out += &format!("  {cell:>16}");
            }
            if let Some(rm) = &s.reward_model {
                out += &format!(
                    "  reward model: pairwise accuracy {:.3} → {:.3} on {} held-out pairs",
                    rm.accuracy_before, rm.accuracy, rm.eval_pairs
                );
            }
            if !s.teachers.is_empty() {
                let t: Vec<String> = s
                    .teachers
                    .iter()
                    .map(|(d, st)| format!("{d}←{st}"))
                    .collect();
                out += &format!("  teachers: {}", t.join(", "));
            }
            out.push('\n');
            prev = Some(s);
        }
        out
    }
}
