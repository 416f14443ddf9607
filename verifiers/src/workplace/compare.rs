//! Whether two workplace states are the same, with NeMo Gym's case rules: every cell
//! compares case-insensitively except the columns `status`, `list_name` and `board`,
//! whose values are fixed names. Rows compare in order (appends go last, deletes and
//! updates keep the order), so equivalent call sequences leave equal states.
//!
//! Where Gym (pandas' `DataFrame.equals`) also compares row index labels, cascade
//! compares contents only: deleting then sending an email leaves the same emails as
//! sending then deleting, though pandas' labels differ.

use serde_json::{json, Value};

use super::table::Table;
use super::Workplace;

/// Columns whose case matters.
pub const CASE_SENSITIVE: &[&str] = &["status", "list_name", "board"];

/// The first place two states differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub table: &'static str,
    /// The first differing row (by position).
    pub row: usize,
    /// That row in each state, or null where the state has no such row.
    pub predicted: Value,
    pub expected: Value,
}

impl Diff {
    pub fn to_json(&self) -> Value {
        json!({
            "table": self.table,
            "row": self.row,
            "predicted": self.predicted,
            "expected": self.expected,
        })
    }
}

/// The compared tables of a state, by Gym's names.
fn tables(w: &Workplace) -> [(&'static str, &Table); 5] {
    [
        ("calendar_events", &w.calendar),
        ("emails", &w.emails),
        ("plots", &w.plots),
        ("project_tasks", &w.tasks),
        ("customer_relationship_manager_data", &w.customers),
    ]
}

/// `None` when the states are equal, else where they first differ.
pub fn first_difference(predicted: &Workplace, expected: &Workplace) -> Option<Diff> {
    for ((name, p), (_, e)) in tables(predicted).into_iter().zip(tables(expected)) {
        if let Some(row) = first_row_difference(p, e) {
            let side = |t: &Table| t.rows().get(row).map_or(Value::Null, |r| t.record(r));
            return Some(Diff {
                table: name,
                row,
                predicted: side(p),
                expected: side(e),
            });
        }
    }
    None
}

fn first_row_difference(p: &Table, e: &Table) -> Option<usize> {
    if p.columns() != e.columns() {
        return Some(0);
    }
    let sensitive: Vec<bool> = p
        .columns()
        .iter()
        .map(|c| CASE_SENSITIVE.contains(&c.as_str()))
        .collect();
    let same_row = |a: &[String], b: &[String]| {
        a.iter()
            .zip(b)
            .zip(&sensitive)
            .all(|((x, y), &s)| if s { x == y } else { same_text(x, y) })
    };
    let common = p.len().min(e.len());
    (0..common)
        .find(|&i| !same_row(&p.rows()[i], &e.rows()[i]))
        .or((p.len() != e.len()).then_some(common))
}

/// Equal ignoring case (Unicode lowercase, as Python's `str.lower`).
fn same_text(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
}
