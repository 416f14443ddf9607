//! A deterministic, in-memory workplace: the five databases and 27 tools of NeMo Gym's
//! workplace assistant (email, calendar, analytics, project management, customer
//! relationship manager, plus a read-only company directory), with the same tool names,
//! parameters and effects, so Gym's rows score unchanged.
//!
//! A tool never fails the caller: an unknown tool, bad JSON arguments, a wrong type, a
//! missing argument or an unknown id is a [`ToolResult`] whose `output` is the message
//! the model reads (and whose `error` says so). [`compare`] decides whether two states
//! are the same, with Gym's case rules.
//!
//! Bounded: argument text is capped ([`MAX_ARGUMENT_BYTES`]), tables are capped
//! ([`table::MAX_ROWS`]), and a tool's work is linear in its table; callers cap how
//! many calls they run.

mod analytics;
mod args;
mod calendar;
pub mod compare;
mod crm;
mod email;
mod projects;
pub mod schema;
pub mod seed;
pub mod table;
pub mod time;

use std::sync::Arc;

use serde_json::{json, Value};

pub use args::{parse_text, MAX_ARGUMENT_BYTES};
pub use compare::{first_difference, Diff};
pub use schema::{tool_schemas, ToolSpec, TOOLS};
pub use table::{Table, TableError};

use args::Args;

/// The databases a workplace starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct Databases {
    pub emails: Table,
    pub calendar: Table,
    pub analytics: Table,
    pub tasks: Table,
    pub customers: Table,
    /// The company directory: one email address per entry.
    pub directory: Vec<String>,
}

/// The live state tools read and change. Cloning is cheap for the read-only parts
/// (analytics visits, directory), which are shared.
#[derive(Debug, Clone, PartialEq)]
pub struct Workplace {
    pub emails: Table,
    pub calendar: Table,
    pub tasks: Table,
    pub customers: Table,
    /// Plots made by `analytics_create_plot` (`file_path`); starts empty.
    pub plots: Table,
    analytics: Arc<Table>,
    directory: Arc<Vec<String>>,
}

/// One tool call: a name and its arguments, as text (Responses items, Gym's
/// `ground_truth`) or as parsed JSON (Hermes `<tool_call>` blocks).
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub arguments: Arguments,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    Text(String),
    Json(Value),
}

/// What a call returned: the output the model reads, and the error when the tool did
/// nothing (refused, not found, bad arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub output: Value,
    pub error: Option<String>,
}

/// A tool's answer inside this module: a value, or the refusal text.
type Outcome = Result<Value, String>;

impl Workplace {
    /// A workplace over `db`. Fails when a table lacks a column its tools use.
    pub fn new(db: Databases) -> Result<Self, TableError> {
        db.emails.require("emails", email::COLUMNS)?;
        db.calendar.require("calendar_events", calendar::COLUMNS)?;
        db.analytics.require("analytics_data", analytics::COLUMNS)?;
        db.tasks.require("project_tasks", projects::COLUMNS)?;
        db.customers
            .require("customer_relationship_manager_data", crm::COLUMNS)?;
        Ok(Self {
            emails: db.emails,
            calendar: db.calendar,
            tasks: db.tasks,
            customers: db.customers,
            plots: Table::new(&["file_path"]),
            analytics: Arc::new(db.analytics),
            directory: Arc::new(db.directory),
        })
    }

    /// Runs one call. Never panics; every failure is a result the model can read.
    pub fn execute(&mut self, call: &Call) -> ToolResult {
        let parsed;
        let value = match &call.arguments {
            Arguments::Json(v) => v,
            Arguments::Text(text) => match parse_text(text) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(e) => return failure(&call.name, e),
            },
        };
        let Some(spec) = schema::spec(&call.name) else {
            return failure(&call.name, "no such tool".to_owned());
        };
        let args = match args::check(spec, value) {
            Ok(args) => args,
            Err(e) => return failure(&call.name, e),
        };
        match self.dispatch(spec.name, &args) {
            Ok(output) => ToolResult {
                output,
                error: None,
            },
            Err(message) => ToolResult {
                output: Value::String(message.clone()),
                error: Some(message),
            },
        }
    }

    fn dispatch(&mut self, name: &str, a: &Args) -> Outcome {
        let pre = |p: &str| name.strip_prefix(p);
        if let Some(tool) = pre("email_") {
            return email::run(&mut self.emails, tool, a);
        }
        if let Some(tool) = pre("calendar_") {
            return calendar::run(&mut self.calendar, tool, a);
        }
        if let Some(tool) = pre("analytics_") {
            return analytics::run(&self.analytics, &mut self.plots, tool, a);
        }
        if let Some(tool) = pre("project_management_") {
            return projects::run(&mut self.tasks, tool, a);
        }
        if let Some(tool) = pre("customer_relationship_manager_") {
            return crm::run(&mut self.customers, tool, a);
        }
        email::find_address(&self.directory, a)
    }
}

fn failure(tool: &str, message: String) -> ToolResult {
    let text = format!("Error executing tool '{tool}': {message}");
    ToolResult {
        output: Value::String(text.clone()),
        error: Some(text),
    }
}

/// The next id of a table: the greatest id (compared as text, as pandas does) plus one,
/// zero-padded to 8 digits when `pad`. An empty table starts at 1.
fn next_id(table: &Table, column: &str, pad: bool) -> Result<String, String> {
    let next = match table.max_of(column) {
        None => 1,
        Some(max) => time::python_int(max)
            .and_then(|n| n.checked_add(1))
            .ok_or_else(|| format!("Error: the greatest {column} `{max}` is not a number."))?,
    };
    Ok(if pad {
        format!("{next:08}")
    } else {
        next.to_string()
    })
}

/// One page of `items`, in the layout Gym's search tools answer with.
fn paginate(items: Vec<Value>, a: &Args, key: &str, total_key: &str) -> Outcome {
    let page_size = a.int("page_size", 5);
    if page_size < 1 {
        return Err("Error: page_size must be at least 1.".to_owned());
    }
    let total = items.len() as i64;
    let pages = (total + page_size - 1) / page_size;
    let page = if pages > 0 {
        a.int("page", 1).clamp(1, pages)
    } else {
        1
    };
    let start = ((page - 1) * page_size) as usize;
    let shown: Vec<Value> = items
        .into_iter()
        .skip(start)
        .take(page_size as usize)
        .collect();
    Ok(json!({
        key: shown,
        "pagination": {total_key: total, "page": page, "page_size": page_size, "total_pages": pages},
    }))
}

/// `{field: value}` of the first row with `id`, as the `get_…_by_id` tools answer.
fn field_of(table: &Table, id_column: &str, id: &str, field: &str) -> Option<Outcome> {
    let row = table.find(id_column, id)?;
    Some(match table.column(field) {
        Some(i) => Ok(json!({ field: row[i] })),
        None => Err("Field not found.".to_owned()),
    })
}

/// Case-insensitive substring test (pandas' `str.contains(case=False)`, without its
/// regular-expression reading of the pattern).
fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

#[cfg(test)]
mod tests;
