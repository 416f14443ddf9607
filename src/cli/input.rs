//! Input samples for the commands: the shared JSONL reader (`cascade_datasets::jsonl`)
//! turned into samples. A file with a line that is not UTF-8 or not JSON is refused
//! whole, naming the file and line (exit 2); blank lines are skipped, nothing else is
//! dropped or reordered.

use std::path::Path;

use cascade_datasets::jsonl;
use cascade_verifiers::Sample;

/// One input sample with its 1-based line number.
#[derive(Debug, Clone)]
pub struct NumberedSample {
    pub line: usize,
    pub sample: Sample,
}

/// Reads and parses a whole JSONL file.
pub fn read_samples(path: &Path) -> Result<Vec<NumberedSample>, jsonl::JsonlError> {
    Ok(jsonl::read_values(path)?
        .into_iter()
        .map(|row| NumberedSample {
            line: row.line,
            sample: Sample::at_line(row.value, row.line),
        })
        .collect())
}
