//! The one row source: every command that reads a dataset (`cascade score`, `check`,
//! the trainer's stage datasets) reads its rows through [`RowSource`], whatever the
//! user keeps them in.
//!
//! | path | read as |
//! | --- | --- |
//! | `*.jsonl`, `*.ndjson`, `*.json`, or no extension (`/dev/stdin`) | JSON Lines, by [`crate::jsonl`] (as the Hugging Face `json` loader, `.json` holds one object a line) |
//! | `*.parquet` | one parquet file (verl's `train.parquet`, one Hub shard) |
//! | a folder | a Hugging Face dataset folder of parquet shards, one split of it ([`folder`]) |
//!
//! Any other extension is an error naming the file. Rows come in order, each with a
//! 1-based position in [`Numbered::line`]: the line number for JSON Lines (blank lines
//! are skipped, so positions can jump), the row's index across the whole dataset for
//! parquet (shards in name order, counted on from one shard to the next: the second
//! shard's first row follows the first shard's last). Parquet rows become JSON objects
//! by the parquet crate's record API: structs are objects, lists arrays, maps objects,
//! nulls null, binary columns base64 text. Reading is lazy (a caller that needs N rows
//! stops there), and the first unreadable file or row ends it with an error naming the
//! file (and the row within that file), so no row is ever dropped or reordered.
//!
//! ```
//! use cascade_datasets::rows::RowSource;
//! let dir = cascade_datasets::bundled_dir().join("parquet");
//! let rows = RowSource::open(&dir.join("hf"), None)?.read()?;
//! assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 2, 3, 4]);
//! assert_eq!(rows[2].value["id"], "hf-2");
//! # Ok::<(), cascade_datasets::rows::RowsError>(())
//! ```

pub mod folder;
mod parquet;

use std::path::{Path, PathBuf};

use serde_json::Value;
use thiserror::Error;

use crate::jsonl::{self, JsonlError, Numbered};

/// The split read from a dataset folder when none is named.
pub const DEFAULT_SPLIT: &str = "train";

/// Why rows could not be read; every variant names the file or folder.
#[derive(Debug, Error)]
pub enum RowsError {
    #[error(transparent)]
    Jsonl(#[from] JsonlError),
    #[error("{file}: unknown input format `.{extension}` (expected .jsonl, .ndjson, .json, .parquet or a folder of parquet shards)")]
    UnknownFormat { file: String, extension: String },
    #[error("{file}: a split (`{split}`) names part of a dataset folder, and this is one file")]
    SplitOfFile { file: String, split: String },
    #[error("cannot open {file}: {source}")]
    Open {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not a readable parquet file: {source}")]
    Parquet {
        file: String,
        #[source]
        source: ::parquet::errors::ParquetError,
    },
    /// `row` is 1-based, within `file`.
    #[error("{file}: row {row}: {source}")]
    ParquetRow {
        file: String,
        row: usize,
        #[source]
        source: ::parquet::errors::ParquetError,
    },
    #[error(transparent)]
    Folder(#[from] folder::FolderError),
}

/// The two readers behind a [`RowSource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Parquet,
}

/// Where a dataset's rows come from, resolved from a path (see the module docs): one
/// JSONL file, or parquet files read one after the other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowSource {
    format: Format,
    files: Vec<PathBuf>,
    /// `files[0]` as errors name it (the JSONL reader borrows it).
    name: String,
}

impl RowSource {
    /// Resolves `path`: a file by its extension, a folder as a dataset of parquet
    /// shards, reading `split` ([`DEFAULT_SPLIT`] when `None`; see [`folder::shards`]).
    /// A split named for a single file is an error rather than ignored.
    pub fn open(path: &Path, split: Option<&str>) -> Result<Self, RowsError> {
        let name = path.display().to_string();
        if path.is_dir() {
            let files = folder::shards(path, split)?;
            return Ok(Self::new(Format::Parquet, files));
        }
        if let Some(split) = split {
            return Err(RowsError::SplitOfFile {
                file: name,
                split: split.to_owned(),
            });
        }
        let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
        let format = match extension.as_deref() {
            None | Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
            Some("parquet") => Format::Parquet,
            Some(other) => {
                return Err(RowsError::UnknownFormat {
                    file: name,
                    extension: other.to_owned(),
                })
            }
        };
        Ok(Self::new(format, vec![path.to_owned()]))
    }

    fn new(format: Format, files: Vec<PathBuf>) -> Self {
        let name = files
            .first()
            .map_or_else(String::new, |f| f.display().to_string());
        Self {
            format,
            files,
            name,
        }
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The files read, in order.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The rows, lazily, in order, each with its 1-based position. After the first
    /// error the iterator ends.
    pub fn rows(&self) -> Box<dyn Iterator<Item = Result<Numbered<Value>, RowsError>> + '_> {
        match self.format {
            Format::Jsonl => match jsonl::open(&self.files[0]) {
                Ok(reader) => Box::new(stop_after_error(
                    jsonl::lines(reader, &self.name).map(|row| row.map_err(RowsError::from)),
                )),
                Err(e) => Box::new(std::iter::once(Err(e.into()))),
            },
            Format::Parquet => Box::new(stop_after_error(parquet::Rows::new(&self.files))),
        }
    }

    /// Every row, in order.
    pub fn read(&self) -> Result<Vec<Numbered<Value>>, RowsError> {
        self.rows().collect()
    }
}

/// Ends an iterator at its first error (the JSONL reader may go on after one).
fn stop_after_error<T, E>(
    iter: impl Iterator<Item = Result<T, E>>,
) -> impl Iterator<Item = Result<T, E>> {
    let mut failed = false;
    iter.take_while(move |item| {
        let go = !failed;
        failed |= item.is_err();
        go
    })
}

#[cfg(test)]
mod tests;
