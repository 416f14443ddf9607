//! CSV to a JSON array of row objects, as Gym's `csv.DictReader` reads it: the first row
//! is the header, blank lines are skipped, a short row's missing cells are `null`. All
//! cells are strings here; [`super::coerce::csv`] types them by the schema.

use serde_json::{Map, Value};

/// The cells (header width × rows) a CSV document may build, per byte of its text.
pub const MAX_CELLS_PER_BYTE: usize = 2;
/// The cells any CSV document may build, whatever its length.
pub const MAX_CELLS_FLOOR: usize = 1024;

/// The rows of a CSV document.
pub fn parse(text: &str) -> Result<Value, String> {
    // Rows shorter than the header are padded with `null`, so a wide header over many
    // one-byte rows would build rows × columns cells from a text of rows + columns
    // bytes. The cells built are capped linearly in the text, which never refuses a
    // file whose rows are complete (each cell needs at least its separator).
    let mut cells_left = text
        .len()
        .saturating_mul(MAX_CELLS_PER_BYTE)
        .saturating_add(MAX_CELLS_FLOOR);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("invalid CSV: {e}"))?;
        if record.iter().all(str::is_empty) && record.len() <= 1 {
            continue; // a blank line
        }
        let Some(names) = &header else {
            header = Some(record.iter().map(str::to_owned).collect());
            continue;
        };
        if record.len() > names.len() {
            return Err(format!(
                "CSV line {} has {} fields, the header has {}",
                i + 1,
                record.len(),
                names.len()
            ));
        }
        cells_left = cells_left.checked_sub(names.len()).ok_or_else(|| {
            format!(
                "CSV line {} pads its rows past {MAX_CELLS_PER_BYTE} cells per byte of text",
                i + 1
            )
        })?;
        let mut row = Map::new();
        for (k, name) in names.iter().enumerate() {
            let cell = record
                .get(k)
                .map_or(Value::Null, |c| Value::String(c.to_owned()));
            row.insert(name.clone(), cell);
        }
        rows.push(Value::Object(row));
    }
    Ok(Value::Array(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_keyed_by_the_header() {
        let doc = "name,age,quote\nAlice,30,\"says \"\"hi\"\", then, leaves\"\n\nBob,25\n";
        assert_eq!(
            parse(doc).unwrap(),
            json!([
                {"name": "Alice", "age": "30", "quote": "says \"hi\", then, leaves"},
                {"name": "Bob", "age": "25", "quote": null}
            ])
        );
        assert_eq!(
            parse("a,b\r\n1,2\r\n").unwrap(),
            json!([{"a": "1", "b": "2"}])
        );
        assert_eq!(parse("a,b\n").unwrap(), json!([]));
        assert_eq!(parse("").unwrap(), json!([]));
        assert_eq!(
            parse("a\n,\n").unwrap_err(),
            "CSV line 2 has 2 fields, the header has 1"
        );
    }
}
