//! Which parquet files of a dataset folder hold a split.
//!
//! A Hugging Face dataset folder comes in a few layouts; for split `S` (`train` unless
//! named) they are tried in this order:
//!
//! 1. the Hub's: `data/S-00000-of-0000N.parquet` (any `data/S-*.parquet`, or
//!    `data/S.parquet`);
//! 2. a split folder: `S/*.parquet` (the folder is one config of a
//!    `<config>/<split>/*.parquet` dataset);
//! 3. configs: `<config>/S/*.parquet`, when exactly one config has split `S` (several
//!    are refused, listing them: point at the config's folder);
//! 4. shards in the folder itself, grouped by split the same way as in `data/`
//!    (verl's preprocessing writes `train.parquet` and `test.parquet` side by side).
//!
//! In layouts 1 and 4 a file's split is its name up to the first `-` (its whole stem
//! when it has none). When no split is named and the files are all of one split, that
//! split is read whatever its name (`part-0.parquet`, `part-1.parquet`), unless it is a
//! held-out split (`test`, `validation`, `valid`, `dev`, `eval`). Otherwise a
//! missing split is an error listing the splits that are there. Shards are read in
//! name order (the Hub's zero-padded numbers sort as numbers).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::DEFAULT_SPLIT;

/// Why a folder gave no files to read.
#[derive(Debug, Error)]
pub enum FolderError {
    #[error("cannot list {dir}: {source}")]
    List {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{dir}: no split `{split}` (splits there: {found})")]
    NoSplit {
        dir: String,
        split: String,
        found: String,
    },
    #[error("{dir}: split `{split}` is in several configs ({configs}); name the config's folder")]
    AmbiguousConfig {
        dir: String,
        split: String,
        configs: String,
    },
    #[error("{dir}: no parquet files for split `{split}` (found: {found})")]
    NoShards {
        dir: String,
        split: String,
        found: String,
    },
}

/// The parquet files of `dir` that hold `split` (see the module docs), in order.
pub fn shards(dir: &Path, split: Option<&str>) -> Result<Vec<PathBuf>, FolderError> {
    let wanted = split.unwrap_or(DEFAULT_SPLIT);
    let hub = dir.join("data");
    if hub.is_dir() {
        return pick_split(&hub, split);
    }
    let split_dir = dir.join(wanted);
    if split_dir.is_dir() {
        return nonempty(parquet_files(&split_dir)?, &split_dir, wanted);
    }
    let configs: Vec<PathBuf> = list(dir)?
        .into_iter()
        .filter(|p| p.join(wanted).is_dir())
        .collect();
    match configs.as_slice() {
        [] => pick_split(dir, split),
        [one] => nonempty(parquet_files(&one.join(wanted))?, one, wanted),
        many => Err(FolderError::AmbiguousConfig {
            dir: dir.display().to_string(),
            split: wanted.to_owned(),
            configs: names(many).join(", "),
        }),
    }
}

/// Split names that hold held-out rows: never read unless named.
const HELD_OUT: [&str; 5] = ["test", "validation", "valid", "dev", "eval"];

/// Layouts 1 and 4: the files of `dir` grouped by split; the wanted one.
fn pick_split(dir: &Path, split: Option<&str>) -> Result<Vec<PathBuf>, FolderError> {
    let wanted = split.unwrap_or(DEFAULT_SPLIT);
    let mut groups: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for file in parquet_files(dir)? {
        groups.entry(split_of(&file)).or_default().push(file);
    }
    if let Some(files) = groups.remove(wanted) {
        return Ok(files);
    }
    // Unnamed shards (`part-0.parquet`) are the data whatever their stem; a lone
    // `test` or `validation` split is not the training split, and reading it without
    // being asked would train on held-out rows.
    if split.is_none()
        && groups.len() == 1
        && !groups.keys().any(|k| HELD_OUT.contains(&k.as_str()))
    {
        return Ok(groups.into_values().next().unwrap_or_default());
    }
    if groups.is_empty() {
        return nonempty(Vec::new(), dir, wanted);
    }
    Err(FolderError::NoSplit {
        dir: dir.display().to_string(),
        split: wanted.to_owned(),
        found: groups.into_keys().collect::<Vec<_>>().join(", "),
    })
}

/// A shard's split: its name up to the first `-`, or its whole stem.
fn split_of(file: &Path) -> String {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    stem.split('-').next().unwrap_or_default().to_owned()
}

fn nonempty(files: Vec<PathBuf>, dir: &Path, split: &str) -> Result<Vec<PathBuf>, FolderError> {
    if !files.is_empty() {
        return Ok(files);
    }
    let found = names(&list(dir)?);
    Err(FolderError::NoShards {
        dir: dir.display().to_string(),
        split: split.to_owned(),
        found: if found.is_empty() {
            "nothing".to_owned()
        } else {
            found.join(", ")
        },
    })
}

/// The `*.parquet` files directly in `dir`, in name order.
fn parquet_files(dir: &Path) -> Result<Vec<PathBuf>, FolderError> {
    Ok(list(dir)?
        .into_iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "parquet"))
        .collect())
}

/// Everything in `dir`, in name order.
fn list(dir: &Path) -> Result<Vec<PathBuf>, FolderError> {
    let error = |source| FolderError::List {
        dir: dir.display().to_string(),
        source,
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(error)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    entries.sort();
    Ok(entries)
}

fn names(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}
