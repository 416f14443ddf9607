//! Input samples for the commands: the shared row source (`cascade_datasets::rows`:
//! JSONL, a parquet file or a dataset folder of parquet shards) turned into samples. A
//! file with a row that cannot be read is refused whole, naming the file and line or
//! row (exit 2); blank JSONL lines are skipped, nothing else is dropped or reordered.

use std::path::Path;

use cascade_datasets::jsonl::{self, JsonlError, Numbered};
use cascade_datasets::rows::{RowSource, RowsError};
use cascade_verifiers::Sample;
use serde_json::Value;

/// One input sample with its 1-based position (the JSONL line, the parquet row).
#[derive(Debug, Clone)]
pub struct NumberedSample {
    pub line: usize,
    pub sample: Sample,
}

/// Reads every row of `path` (`split`: which split of a dataset folder).
pub fn read_samples(path: &Path, split: Option<&str>) -> Result<Vec<NumberedSample>, RowsError> {
    Ok(numbered(RowSource::open(path, split)?.read()?))
}

/// Reads result lines that `cascade score` wrote: always JSONL, whatever the file's
/// name.
pub fn read_results(path: &Path) -> Result<Vec<NumberedSample>, JsonlError> {
    Ok(numbered(jsonl::read_values(path)?))
}

fn numbered(rows: Vec<Numbered<Value>>) -> Vec<NumberedSample> {
    rows.into_iter()
        .map(|row| NumberedSample {
            line: row.line,
            sample: Sample::at_line(row.value, row.line),
        })
        .collect()
}
