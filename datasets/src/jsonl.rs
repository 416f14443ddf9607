//! Reading a public JSONL file row by row: every loader's shared loop. Blank lines are
//! skipped; every other line is parsed and converted in order, and the first line that
//! fails is an error naming the file and line, so no row is dropped or reordered.

use std::path::Path;

use serde_json::Value;

use crate::LoadError;

/// Parses each non-blank line of `path` and converts it with `convert(row, line)`
/// (`line` is 1-based).
pub fn convert_file(
    path: &Path,
    mut convert: impl FnMut(&Value, usize) -> Result<Value, String>,
) -> Result<Vec<Value>, LoadError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        file: file.clone(),
        source,
    })?;
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let number = index + 1;
        let row = serde_json::from_str::<Value>(line)
            .map_err(|e| e.to_string())
            .and_then(|value| convert(&value, number))
            .map_err(|message| LoadError::Row {
                file: file.clone(),
                line: number,
                message,
            })?;
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_skips_blank_lines_and_names_the_bad_line() {
        let dir = std::env::temp_dir().join(format!("cascade-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.jsonl");
        std::fs::write(&path, "{\"a\":1}\n\n{\"a\":2}\n").unwrap();
        let rows = convert_file(&path, |v, line| Ok(serde_json::json!([v["a"], line]))).unwrap();
        assert_eq!(
            rows,
            vec![serde_json::json!([1, 1]), serde_json::json!([2, 3])]
        );

        std::fs::write(&path, "{\"a\":1}\n{\"b\":2}\n").unwrap();
        let err =
            convert_file(&path, |v, _| v.get("a").cloned().ok_or("no `a`".to_owned())).unwrap_err();
        assert!(err.to_string().ends_with("rows.jsonl:2: no `a`"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
