//! `custom:csv_*`: Python's `csv.reader` (default dialect, Python 3.11+) over
//! `io.StringIO(text)`, and the three CSV tasks' checks on its rows.
//!
//! The reader is the C module's state machine: lines end at `\n` (StringIO's
//! lines), a `\r` ends a record and anything but another line break after it
//! on the same line is an error, quoted fields span lines, a quote inside a
//! quoted field that is not doubled ends the quoting and the rest is taken as
//! text (non-strict mode). An error (or a field over the 131,072-character
//! limit) makes the check fail, as the reference's exception does.

use std::sync::OnceLock;

use regex::Regex;

use crate::ifeval::pyregex::{self, Flags};
use crate::ifeval::pystr::strip;

/// `csv.field_size_limit()`'s default.
const FIELD_LIMIT: usize = 131_072;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    StartRecord,
    StartField,
    InField,
    InQuotedField,
    QuoteInQuotedField,
    EatCrnl,
}

/// A character of a line, or the end of the line (the C reader's `EOL`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Input {
    Char(char),
    Eol,
}

struct Reader {
    delimiter: char,
    state: State,
    field: String,
    field_len: usize,
    fields: Vec<String>,
}

struct CsvError;

impl Reader {
    fn save_field(&mut self) {
        self.fields.push(std::mem::take(&mut self.field));
        self.field_len = 0;
    }

    fn add(&mut self, c: char) -> Result<(), CsvError> {
        if self.field_len >= FIELD_LIMIT {
            return Err(CsvError);
        }
        self.field.push(c);
        self.field_len += 1;
        Ok(())
    }

    /// Ends the record at a line break (`\n`, `\r`) or at the end of a line.
    fn end_record(&mut self, input: Input) {
        self.save_field();
        self.state = if input == Input::Eol {
            State::StartRecord
        } else {
            State::EatCrnl
        };
    }

    fn process(&mut self, input: Input) -> Result<(), CsvError> {
        let newline = matches!(input, Input::Char('\n' | '\r'));
        let ch = match input {
            Input::Char(c) => Some(c),
            Input::Eol => None,
        };
        match self.state {
            State::StartRecord if input == Input::Eol => {}
            State::StartRecord if newline => self.state = State::EatCrnl,
            State::StartRecord | State::StartField => {
                if newline || input == Input::Eol {
                    self.end_record(input);
                } else if ch == Some('"') {
                    self.state = State::InQuotedField;
                } else if ch == Some(self.delimiter) {
                    self.save_field();
                    self.state = State::StartField;
                } else if let Some(c) = ch {
                    self.add(c)?;
                    self.state = State::InField;
                }
            }
            State::InField => {
                if newline || input == Input::Eol {
                    self.end_record(input);
                } else if ch == Some(self.delimiter) {
                    self.save_field();
                    self.state = State::StartField;
                } else if let Some(c) = ch {
                    self.add(c)?;
                }
            }
            State::InQuotedField => match ch {
                None => {}
                Some('"') => self.state = State::QuoteInQuotedField,
                Some(c) => self.add(c)?,
            },
            State::QuoteInQuotedField => {
                if ch == Some('"') {
                    self.add('"')?;
                    self.state = State::InQuotedField;
                } else if ch == Some(self.delimiter) {
                    self.save_field();
                    self.state = State::StartField;
                } else if newline || input == Input::Eol {
                    self.end_record(input);
                } else if let Some(c) = ch {
                    self.add(c)?;
                    self.state = State::InField;
                }
            }
            State::EatCrnl => match input {
                Input::Eol => self.state = State::StartRecord,
                _ if newline => {}
                _ => return Err(CsvError),
            },
        }
        Ok(())
    }
}

/// `list(csv.reader(io.StringIO(text), delimiter=delimiter))`.
fn read(text: &str, delimiter: char) -> Result<Vec<Vec<String>>, CsvError> {
    let mut reader = Reader {
        delimiter,
        state: State::StartRecord,
        field: String::new(),
        field_len: 0,
        fields: Vec::new(),
    };
    let mut rows = Vec::new();
    for line in text.split_inclusive('\n') {
        for c in line.chars() {
            reader.process(Input::Char(c))?;
        }
        reader.process(Input::Eol)?;
        if reader.state == State::StartRecord {
            rows.push(std::mem::take(&mut reader.fields));
        }
    }
    // Input ended inside a record: non-strict mode keeps what was read.
    if reader.field_len != 0 || reader.state == State::InQuotedField {
        reader.save_field();
        rows.push(reader.fields);
    }
    Ok(rows)
}

/// `custom:csv_city`: a header `ID,Country,City,Year,Count` and seven rows of
/// five fields.
pub(super) fn city(value: &str) -> bool {
    let Ok(rows) = read(value, ',') else {
        return false;
    };
    rows.len() == 8
        && rows[0] == ["ID", "Country", "City", "Year", "Count"]
        && rows[1..].iter().all(|r| r.len() == 5)
}

fn header(cell: &'static OnceLock<Regex>, names: [&str; 5], sep: &str) -> &'static Regex {
    cell.get_or_init(|| {
        let fields: Vec<String> = names.iter().map(|n| format!("({n}|\"{n}\")")).collect();
        let pattern = format!("^{}$", fields.join(sep));
        pyregex::compile(&pattern, Flags::default()).expect("static pattern")
    })
}

/// The first line, stripped, as the reference matches it.
fn first_line(value: &str) -> &str {
    strip(value.split('\n').next().unwrap_or(""))
}

/// `custom:csv_special_character`: the product header, 14 rows of five fields,
/// and a field (each `"` tripled first) that holds a quoted special character,
/// in a row before any row of another width.
pub(super) fn special_character(value: &str) -> bool {
    static HEADER: OnceLock<Regex> = OnceLock::new();
    static SPECIAL: OnceLock<Regex> = OnceLock::new();
    let names = ["ProductID", "Category", "Brand", "Price", "Stock"];
    if !header(&HEADER, names, ",[ \t]*").is_match(first_line(value)) {
        return false;
    }
    let special = SPECIAL.get_or_init(|| {
        pyregex::compile(r#"^".*[^\d\w\s].*""#, Flags::default()).expect("static pattern")
    });
    let Ok(rows) = read(&value.replace('"', "\"\"\""), ',') else {
        return false;
    };
    if rows.len() != 15 {
        return false;
    }
    for row in &rows[1..] {
        if row.len() != 5 {
            return false;
        }
        if row.iter().any(|f| special.is_match(f)) {
            return true;
        }
    }
    false
}

/// `custom:csv_quotes`: the student header, tab-separated, three rows of five
/// fields, every field (each `"` tripled first) wrapped in quotes.
pub(super) fn quotes(value: &str) -> bool {
    static HEADER: OnceLock<Regex> = OnceLock::new();
    let names = ["StudentID", "Subject", "Grade", "Semester", "Score"];
    if !header(&HEADER, names, "\t *").is_match(first_line(value)) {
        return false;
    }
    let Ok(rows) = read(&value.replace('"', "\"\"\""), '\t') else {
        return false;
    };
    rows.len() == 4
        && rows.iter().all(|row| {
            row.len() == 5
                && row.iter().all(|f| {
                    let f = strip(f);
                    !f.is_empty() && f.starts_with('"') && f.ends_with('"')
                })
        })
}

#[cfg(test)]
mod tests {
    use super::super::follows;
    use super::read;
    use serde_json::json;

    fn rows(text: &str) -> Option<Vec<Vec<String>>> {
        read(text, ',').ok()
    }

    #[test]
    fn reader_follows_python() {
        assert_eq!(
            rows("a,b\n\nc").unwrap(),
            [vec!["a", "b"], vec![], vec!["c"]]
        );
        assert_eq!(
            rows("\"a\nb\",\"x\"\"y\"z").unwrap(),
            [vec!["a\nb", "x\"yz"]]
        );
        assert_eq!(rows("a,b\r\n").unwrap(), [vec!["a", "b"]]);
        assert!(rows("a\rb").is_none());
        assert_eq!(rows("\"open").unwrap(), [vec!["open"]]);
    }

    #[test]
    fn csv_tasks() {
        let city: String = std::iter::once("ID,Country,City,Year,Count\n".to_owned())
            .chain((1..=7).map(|i| format!("{i},France,Paris,2020,{i}\n")))
            .collect();
        assert!(follows("custom:csv_city", json!({}), &city));
        assert!(!follows(
            "custom:csv_city",
            json!({}),
            &city.replace("7,France", "7;France")
        ));
        let mut products = "ProductID,Category,Brand,Price,Stock\n".to_owned();
        for i in 1..=14 {
            let brand = if i == 3 { "\"A&B\"" } else { "Acme" };
            products += &format!("{i},Tools,{brand},9.99,5\n");
        }
        assert!(follows(
            "custom:csv_special_character",
            json!({}),
            &products
        ));
        let plain = products.replace("\"A&B\"", "AB");
        assert!(!follows("custom:csv_special_character", json!({}), &plain));
        let head = "\"StudentID\"\t\"Subject\"\t\"Grade\"\t\"Semester\"\t\"Score\"\n";
        let row = "\"1\"\t\"Math\"\t\"A\"\t\"Fall\"\t\"90\"\n";
        let ok = format!("{head}{row}{row}{row}");
        assert!(follows("custom:csv_quotes", json!({}), &ok));
        assert!(!follows(
            "custom:csv_quotes",
            json!({}),
            &ok.replace("\"Math\"", "Math")
        ));
    }
}
