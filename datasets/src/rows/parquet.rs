//! Parquet files as JSON rows, through the parquet crate's record API (no arrow):
//! each file is opened when the previous one is done, so a long list of shards costs
//! one open file at a time.

use std::fs::File;
use std::path::{Path, PathBuf};

use parquet::file::reader::SerializedFileReader;
use parquet::record::reader::RowIter;
use serde_json::Value;

use super::RowsError;
use crate::jsonl::Numbered;

/// The rows of `files`, in order, numbered across them from 1.
pub(super) struct Rows<'a> {
    files: std::slice::Iter<'a, PathBuf>,
    /// The file being read, its rows, and how many of them were read.
    current: Option<(String, RowIter<'static>, usize)>,
    position: usize,
}

impl<'a> Rows<'a> {
    pub(super) fn new(files: &'a [PathBuf]) -> Self {
        Self {
            files: files.iter(),
            current: None,
            position: 0,
        }
    }
}

fn open(path: &Path) -> Result<RowIter<'static>, RowsError> {
    let file = || path.display().to_string();
    let handle = File::open(path).map_err(|source| RowsError::Open {
        file: file(),
        source,
    })?;
    let reader = SerializedFileReader::new(handle).map_err(|source| RowsError::Parquet {
        file: file(),
        source,
    })?;
    Ok(reader.into_iter())
}

impl Iterator for Rows<'_> {
    type Item = Result<Numbered<Value>, RowsError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((file, rows, read)) = &mut self.current {
                match rows.next() {
                    Some(Ok(row)) => {
                        *read += 1;
                        self.position += 1;
                        return Some(Ok(Numbered {
                            line: self.position,
                            value: row.to_json_value(),
                        }));
                    }
                    Some(Err(source)) => {
                        return Some(Err(RowsError::ParquetRow {
                            file: file.clone(),
                            row: *read + 1,
                            source,
                        }))
                    }
                    None => self.current = None,
                }
            }
            let path = self.files.next()?;
            match open(path) {
                Ok(rows) => self.current = Some((path.display().to_string(), rows, 0)),
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
