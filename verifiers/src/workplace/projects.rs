//! The project management tools. Lists and boards are case-sensitive names.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::{json, Value};

use super::args::Args;
use super::table::Table;
use super::{contains_ci, field_of, next_id, Outcome};

pub const COLUMNS: &[&str] = &[
    "task_id",
    "task_name",
    "assigned_to_email",
    "list_name",
    "due_date",
    "board",
];

pub const LISTS: &[&str] = &["Backlog", "In Progress", "In Review", "Completed"];
pub const BOARDS: &[&str] = &["Back end", "Front end", "Design"];

const BAD_LIST: &str =
    "List not valid. Please choose from: 'Backlog', 'In Progress', 'In Review', 'Completed'.";
const BAD_BOARD: &str = "Board not valid. Please choose from: 'Back end', 'Front end', 'Design'.";
const BAD_ASSIGNEE: &str = "Assignee email not valid. Please choose from the list of team members.";

pub fn run(tasks: &mut Table, tool: &str, a: &Args) -> Outcome {
    match tool {
        "get_task_information_by_id" => {
            let id = a.str("task_id").ok_or("Task ID not provided.")?;
            let field = a.str("field").ok_or("Field not provided.")?;
            field_of(tasks, "task_id", id, field)
                .unwrap_or_else(|| Err("Task not found.".to_owned()))
        }
        "search_tasks" => search(tasks, a),
        "create_task" => create(tasks, a),
        "delete_task" => {
            let id = a.str("task_id").ok_or("Task ID not provided.")?;
            match tasks.delete("task_id", id) {
                0 => Err("Task not found.".to_owned()),
                _ => Ok(json!("Task deleted successfully.")),
            }
        }
        _ => update(tasks, a),
    }
}

fn email_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$").expect("a valid pattern")
    })
}

fn is_assignee(tasks: &Table, email: &str) -> bool {
    tasks
        .rows()
        .iter()
        .any(|r| tasks.cell(r, "assigned_to_email").to_lowercase() == email)
}

fn search(tasks: &Table, a: &Args) -> Outcome {
    let keys = [
        "task_name",
        "assigned_to_email",
        "list_name",
        "due_date",
        "board",
    ];
    if keys.iter().all(|k| a.str(k).is_none()) {
        return Err("No search parameters provided.".to_owned());
    }
    let assignee = a.str("assigned_to_email");
    if assignee.is_some_and(|e| !email_pattern().is_match(e)) {
        return Err("Invalid email format for assigned_to_email.".to_owned());
    }
    let hits: Vec<Value> = tasks
        .rows()
        .iter()
        .filter(|r| {
            keys.iter().all(|k| match a.str(k) {
                None => true,
                Some(want) if *k == "assigned_to_email" => {
                    tasks.cell(r, k).to_lowercase() == want.to_lowercase()
                }
                Some(want) => contains_ci(tasks.cell(r, k), want),
            })
        })
        .map(|r| tasks.record(r))
        .collect();
    Ok(Value::Array(hits))
}

fn create(tasks: &mut Table, a: &Args) -> Outcome {
    let fields = [
        "task_name",
        "assigned_to_email",
        "list_name",
        "due_date",
        "board",
    ];
    let values: Vec<&str> = fields.iter().filter_map(|k| a.str(k)).collect();
    let [name, email, list, due, board] = values[..] else {
        return Err("Missing task details.".to_owned());
    };
    let email = email.to_lowercase();
    if !is_assignee(tasks, &email) {
        return Err(BAD_ASSIGNEE.to_owned());
    }
    if !LISTS.contains(&list) {
        return Err(BAD_LIST.to_owned());
    }
    if !BOARDS.contains(&board) {
        return Err(BAD_BOARD.to_owned());
    }
    let id = next_id(tasks, "task_id", true)?;
    tasks.push(&[
        ("task_id", &id),
        ("task_name", name),
        ("assigned_to_email", &email),
        ("list_name", list),
        ("due_date", due),
        ("board", board),
    ])?;
    Ok(json!(id))
}

fn update(tasks: &mut Table, a: &Args) -> Outcome {
    let (Some(id), Some(field), Some(value)) =
        (a.str("task_id"), a.str("field"), a.str("new_value"))
    else {
        return Err("Task ID, field, or new value not provided.".to_owned());
    };
    let value = if field == "assigned_to_email" {
        value.to_lowercase()
    } else {
        value.to_owned()
    };
    match field {
        "board" if !BOARDS.contains(&value.as_str()) => return Err(BAD_BOARD.to_owned()),
        "list_name" if !LISTS.contains(&value.as_str()) => return Err(BAD_LIST.to_owned()),
        "assigned_to_email" if !is_assignee(tasks, &value) => return Err(BAD_ASSIGNEE.to_owned()),
        _ => {}
    }
    if !tasks.contains("task_id", id) {
        return Err("Task not found.".to_owned());
    }
    if tasks.column(field).is_none() {
        return Err("Field not valid.".to_owned());
    }
    tasks.update("task_id", id, field, &value);
    Ok(json!("Task updated successfully."))
}
