//! The one JSONL reader and the one atomic writer, shared by the loaders, the `cascade`
//! command and the trainer.
//!
//! Reading: blank lines (and a trailing `\r`) are skipped; every other line is parsed
//! in order, and the first line that is not UTF-8 or not JSON is an error naming the
//! file and the 1-based line, so nothing is ever dropped or reordered silently.
//! [`lines`] reads lazily (a caller that needs only the first N rows stops there);
//! [`read_values`] and [`parse_values`] collect.
//!
//! Writing: [`write_atomic`] writes a temporary file beside the target and renames it
//! into place, so an interrupted run never leaves a complete-looking partial file.
//!
//! ```
//! let rows = cascade_datasets::jsonl::parse_values("{\"a\":1}\n\n{\"a\":2}\r\n".as_bytes(), "x.jsonl").unwrap();
//! assert_eq!((rows[1].line, rows[1].value["a"].as_i64()), (3, Some(2)));
//! ```

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use serde_json::Value;
use thiserror::Error;

use crate::{LoadError, RowError};

/// Why a JSONL file could not be read or written; every variant names the file.
#[derive(Debug, Error)]
pub enum JsonlError {
    #[error("cannot open {file}: {source}")]
    Open {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {file}: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: not valid UTF-8 ({source})")]
    Utf8 {
        file: String,
        line: usize,
        #[source]
        source: std::str::Utf8Error,
    },
    #[error("{file}:{line}: malformed JSON: {source}")]
    Json {
        file: String,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    /// The folder cannot take a new file (missing, read-only): the caller named a bad path.
    #[error("cannot write {file}: its folder is not writable ({source})")]
    Folder {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {file}: {source}")]
    Write {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

/// One parsed line and its 1-based line number in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Numbered<T> {
    pub line: usize,
    pub value: T,
}

/// The non-blank lines of `reader`, parsed as JSON, in order; `file` names the source
/// in errors. After the first error the iterator may go on, but callers stop there.
pub fn lines<'a, R: BufRead + 'a>(
    reader: R,
    file: &'a str,
) -> impl Iterator<Item = Result<Numbered<Value>, JsonlError>> + 'a {
    reader
        .split(b'\n')
        .enumerate()
        .filter_map(move |(index, bytes)| parse_line(bytes, index + 1, file).transpose())
}

fn parse_line(
    bytes: std::io::Result<Vec<u8>>,
    line: usize,
    file: &str,
) -> Result<Option<Numbered<Value>>, JsonlError> {
    let bytes = bytes.map_err(|source| JsonlError::Read {
        file: file.to_owned(),
        source,
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|source| JsonlError::Utf8 {
        file: file.to_owned(),
        line,
        source,
    })?;
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value = serde_json::from_str(text).map_err(|source| JsonlError::Json {
        file: file.to_owned(),
        line,
        source,
    })?;
    Ok(Some(Numbered { line, value }))
}

/// Parses every non-blank line of `reader`; `file` names it in errors.
pub fn parse_values<R: BufRead>(reader: R, file: &str) -> Result<Vec<Numbered<Value>>, JsonlError> {
    lines(reader, file).collect()
}

/// Opens `path` for [`lines`].
pub fn open(path: &Path) -> Result<BufReader<File>, JsonlError> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|source| JsonlError::Open {
            file: path.display().to_string(),
            source,
        })
}

/// Reads and parses the whole file at `path`.
pub fn read_values(path: &Path) -> Result<Vec<Numbered<Value>>, JsonlError> {
    parse_values(open(path)?, &path.display().to_string())
}

/// Parses each non-blank line of `path` and converts it with `convert(row, line)`
/// (`line` is 1-based): every loader's shared loop.
pub fn convert_file(
    path: &Path,
    mut convert: impl FnMut(&Value, usize) -> Result<Value, RowError>,
) -> Result<Vec<Value>, LoadError> {
    let file = path.display().to_string();
    let mut rows = Vec::new();
    for row in read_values(path)? {
        let converted = convert(&row.value, row.line).map_err(|source| LoadError::Row {
            file: file.clone(),
            line: row.line,
            source,
        })?;
        rows.push(converted);
    }
    Ok(rows)
}

/// Writes `bytes` to a temporary file beside `path`, then renames it into place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), JsonlError> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// As [`write_atomic`], with the content written by `fill` into a buffered writer.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), JsonlError> {
    let error = |source| JsonlError::Write {
        file: path.display().to_string(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|source| JsonlError::Folder {
        file: path.display().to_string(),
        source,
    })?;
    {
        let mut buffered = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut buffered).map_err(error)?;
        buffered.flush().map_err(error)?;
    }
    tmp.persist(path).map_err(|e| error(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_the_bad_line() {
        let err = parse_values("{\"id\":\"a\"}\n\n{oops\n".as_bytes(), "in.jsonl").unwrap_err();
        assert!(
            err.to_string().starts_with("in.jsonl:3: malformed JSON"),
            "{err}"
        );
        let err = parse_values(&b"{}\n\xff\n"[..], "in.jsonl").unwrap_err();
        assert!(
            err.to_string().starts_with("in.jsonl:2: not valid UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn keeps_order_and_skips_blank_lines() {
        let rows = parse_values("{\"id\":\"b\"}\r\n\n  \n{\"id\":\"a\"}".as_bytes(), "x").unwrap();
        let ids: Vec<_> = rows
            .iter()
            .map(|n| (n.line, n.value["id"].clone()))
            .collect();
        assert_eq!(ids, vec![(1, "b".into()), (4, "a".into())]);
    }

    #[test]
    fn lazy_reading_stops_before_a_later_bad_line() {
        let first: Vec<_> = lines("{\"a\":1}\n{bad\n".as_bytes(), "x").take(1).collect();
        assert!(first[0].is_ok());
    }

    #[test]
    fn converts_and_writes_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.jsonl");
        write_atomic(&path, b"{\"a\":1}\n\n{\"a\":2}\n").unwrap();
        let rows = convert_file(&path, |v, line| Ok(serde_json::json!([v["a"], line]))).unwrap();
        assert_eq!(
            rows,
            vec![serde_json::json!([1, 1]), serde_json::json!([2, 3])]
        );

        write_atomic(&path, b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let err =
            convert_file(&path, |v, _| v.get("a").cloned().ok_or(RowError::NoTests)).unwrap_err();
        assert!(
            err.to_string().ends_with("rows.jsonl:2: no test cases"),
            "{err}"
        );
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn a_missing_file_or_folder_is_named() {
        let err = read_values(Path::new("/nonexistent/x.jsonl")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot open /nonexistent/x.jsonl"),
            "{err}"
        );
        let err = write_atomic(Path::new("/nonexistent/out.jsonl"), b"").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("cannot write /nonexistent/out.jsonl"),
            "{err}"
        );
    }

    proptest! {
        // The reader never panics: any bytes give either rows or an error naming the file.
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            match parse_values(std::io::Cursor::new(bytes), "f") {
                Ok(rows) => prop_assert!(rows.iter().all(|r| r.line >= 1)),
                Err(e) => prop_assert!(e.to_string().starts_with("f")),
            }
        }

        #[test]
        fn valid_objects_round_trip(ids in proptest::collection::vec("[a-z0-9\\\\\"\\n]{0,12}", 0..40)) {
            let text: String = ids.iter()
                .map(|id| format!("{}\n", serde_json::json!({"id": id})))
                .collect();
            let rows = parse_values(std::io::Cursor::new(text.into_bytes()), "f").unwrap();
            let got: Vec<_> = rows.iter().map(|r| r.value["id"].as_str().unwrap().to_owned()).collect();
            prop_assert_eq!(got, ids);
        }
    }
}
