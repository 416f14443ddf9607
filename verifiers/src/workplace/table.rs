//! A table of string records, as NeMo Gym's workplace keeps its databases (pandas
//! DataFrames read with `dtype=str`). Rows keep their order: a new record is appended,
//! a deleted one leaves the others in place, an update changes cells in place, so
//! two states are equal when their rows are equal in order.
//!
//! An empty cell stands for pandas' missing value (`NaN`). No tool can write an empty
//! string (each treats `""` as "not provided"), so the two never need telling apart.

use serde_json::{Map, Value};
use thiserror::Error;

/// The most rows one table may hold, loaded or grown by tools.
pub const MAX_ROWS: usize = 200_000;
/// The most bytes one cell may hold.
pub const MAX_CELL_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TableError {
    #[error("table `{table}` has no column `{column}`")]
    MissingColumn { table: String, column: String },
    #[error("table `{table}` line {line}: {message}")]
    Csv {
        table: String,
        line: usize,
        message: String,
    },
    #[error("table `{0}` is larger than {MAX_ROWS} rows")]
    TooManyRows(String),
}

/// Named columns and rows of string cells (every row has one cell per column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[&str]) -> Self {
        Self {
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// A table from a header and rows; short rows are padded with empty cells.
    pub fn from_rows(columns: Vec<String>, rows: Vec<Vec<String>>) -> Self {
        let width = columns.len();
        let rows = rows
            .into_iter()
            .map(|mut r| {
                r.resize(width, String::new());
                r
            })
            .collect();
        Self { columns, rows }
    }

    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// Fails unless every named column exists (checked once, when a state is built,
    /// so tools can index columns without further checks).
    pub fn require(&self, table: &str, columns: &[&str]) -> Result<(), TableError> {
        for c in columns {
            if self.column(c).is_none() {
                return Err(TableError::MissingColumn {
                    table: table.to_owned(),
                    column: (*c).to_owned(),
                });
            }
        }
        Ok(())
    }

    /// The cell of `row` in column `name` (empty when the column is absent).
    pub fn cell<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        self.column(name)
            .and_then(|i| row.get(i))
            .map_or("", String::as_str)
    }

    /// Whether some row has `value` in column `name`.
    pub fn contains(&self, name: &str, value: &str) -> bool {
        self.find(name, value).is_some()
    }

    /// The first row with `value` in column `name`.
    pub fn find(&self, name: &str, value: &str) -> Option<&[String]> {
        let i = self.column(name)?;
        self.rows.iter().find(|r| r[i] == value).map(Vec::as_slice)
    }

    /// The greatest value of a column, compared as strings, as pandas' `max()` of a
    /// string column does (so `"500"` is above `"00000499"`).
    pub fn max_of(&self, name: &str) -> Option<&str> {
        let i = self.column(name)?;
        self.rows.iter().map(|r| r[i].as_str()).max()
    }

    /// Appends a record given as (column, value) pairs; columns not named stay empty.
    pub fn push(&mut self, record: &[(&str, &str)]) -> Result<(), String> {
        if self.rows.len() >= MAX_ROWS {
            return Err(format!("the table is full ({MAX_ROWS} rows)"));
        }
        let mut row = vec![String::new(); self.columns.len()];
        for (name, value) in record {
            if let Some(i) = self.column(name) {
                row[i] = (*value).to_owned();
            }
        }
        self.rows.push(row);
        Ok(())
    }

    /// Removes every row with `value` in column `name`; returns how many went.
    pub fn delete(&mut self, name: &str, value: &str) -> usize {
        let Some(i) = self.column(name) else { return 0 };
        let before = self.rows.len();
        self.rows.retain(|r| r[i] != value);
        before - self.rows.len()
    }

    /// Sets column `field` to `new_value` in every row with `key` in column `key_column`.
    pub fn update(&mut self, key_column: &str, key: &str, field: &str, new_value: &str) -> usize {
        let (Some(k), Some(f)) = (self.column(key_column), self.column(field)) else {
            return 0;
        };
        let mut changed = 0;
        for row in self.rows.iter_mut().filter(|r| r[k] == key) {
            row[f] = new_value.to_owned();
            changed += 1;
        }
        changed
    }

    /// One row as a JSON object, column by column.
    pub fn record(&self, row: &[String]) -> Value {
        let mut object = Map::new();
        for (c, v) in self.columns.iter().zip(row) {
            object.insert(c.clone(), Value::String(v.clone()));
        }
        Value::Object(object)
    }

    /// Parses CSV text with a header line (RFC 4180 quoting: `"a, ""b"""`).
    pub fn from_csv(table: &str, text: &str) -> Result<Self, TableError> {
        let mut records = parse_csv(table, text)?.into_iter();
        let columns = records.next().unwrap_or_default();
        Ok(Self::from_rows(columns, records.collect()))
    }
}

/// The records of a CSV text, each a list of fields. Bounded: at most [`MAX_ROWS`]
/// records and [`MAX_CELL_BYTES`] per field.
pub fn parse_csv(table: &str, text: &str) -> Result<Vec<Vec<String>>, TableError> {
    let error = |line: usize, message: &str| TableError::Csv {
        table: table.to_owned(),
        line,
        message: message.to_owned(),
    };
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut line) = (false, 1);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if field.len() > MAX_CELL_BYTES {
            return Err(error(line, "a field is too long"));
        }
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
                if records.len() > MAX_ROWS {
                    return Err(TableError::TooManyRows(table.to_owned()));
                }
                line += 1;
            }
            (_, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
        }
    }
    if quoted {
        return Err(error(line, "a quoted field is not closed"));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_quoted_csv() {
        let t = Table::from_csv("t", "a,b\r\n1,\"x, \"\"y\"\"\nz\"\n2,\n").unwrap();
        assert_eq!(t.columns(), ["a", "b"]);
        assert_eq!(t.rows()[0], ["1", "x, \"y\"\nz"]);
        assert_eq!(t.rows()[1], ["2", ""]);
        assert!(Table::from_csv("t", "a\n\"open").is_err());
    }

    #[test]
    fn edits_keep_row_order() {
        let mut t = Table::new(&["id", "v"]);
        t.push(&[("id", "2"), ("v", "a")]).unwrap();
        t.push(&[("id", "10"), ("v", "b")]).unwrap();
        t.push(&[("id", "1")]).unwrap();
        assert_eq!(t.max_of("id"), Some("2"));
        assert_eq!(t.update("id", "10", "v", "c"), 1);
        assert_eq!(t.delete("id", "2"), 1);
        assert_eq!(t.rows(), [vec!["10", "c"], vec!["1", ""]]);
        assert!(t.contains("id", "1") && !t.contains("id", "2"));
    }
}
