//! The calendar tools. Event ids are 8 digits; times are `YYYY-MM-DD HH:MM:SS`.

use serde_json::json;

use super::args::Args;
use super::table::Table;
use super::{contains_ci, field_of, next_id, paginate, time, Outcome};

pub const COLUMNS: &[&str] = &[
    "event_id",
    "event_name",
    "participant_email",
    "event_start",
    "duration",
];

const READABLE: &[&str] = COLUMNS;
const WRITABLE: &[&str] = &["event_name", "participant_email", "event_start", "duration"];

pub fn run(events: &mut Table, tool: &str, a: &Args) -> Outcome {
    match tool {
        "get_event_information_by_id" => information(events, a),
        "search_events" => search(events, a),
        "create_event" => create(events, a),
        "delete_event" => {
            let id = valid_id(a.str("event_id"))?;
            match events.delete("event_id", id) {
                0 => Err("Event not found.".to_owned()),
                _ => Ok(json!("Event deleted successfully.")),
            }
        }
        _ => update(events, a),
    }
}

fn valid_id(id: Option<&str>) -> Result<&str, String> {
    let id = id.ok_or("Event ID not provided.")?;
    if id.len() == 8 && id.bytes().all(|b| b.is_ascii_digit()) {
        Ok(id)
    } else {
        Err("Invalid event ID format. Expected 8-digit ID.".to_owned())
    }
}

fn information(events: &Table, a: &Args) -> Outcome {
    let id = a.str("event_id").ok_or("Event ID not provided.")?;
    let field = a.str("field").ok_or("Field not provided.")?;
    let id = valid_id(Some(id))?;
    if !READABLE.contains(&field) {
        return Err(format!(
            "Invalid field. Available fields are: {}",
            READABLE.join(", ")
        ));
    }
    field_of(events, "event_id", id, field).unwrap_or_else(|| Err("Event not found.".to_owned()))
}

fn bound(a: &Args, key: &str) -> Result<Option<String>, String> {
    match a.str(key) {
        None => Ok(None),
        Some(t) => time::canonical(t)
            .map(Some)
            .ok_or_else(|| format!("Invalid {key} format. Expected YYYY-MM-DD HH:MM:SS.")),
    }
}

fn search(events: &Table, a: &Args) -> Outcome {
    let (min, max) = (bound(a, "time_min")?, bound(a, "time_max")?);
    let query = a.str("query").unwrap_or("");
    let start = |r: &[String]| time::canonical(events.cell(r, "event_start")).unwrap_or_default();
    let mut hits: Vec<&Vec<String>> = events
        .rows()
        .iter()
        .filter(|r| {
            contains_ci(events.cell(r, "event_name"), query)
                || contains_ci(events.cell(r, "participant_email"), query)
        })
        .filter(|r| {
            let s = start(r);
            min.as_ref().is_none_or(|m| &s >= m) && max.as_ref().is_none_or(|m| &s <= m)
        })
        .collect();
    if hits.is_empty() {
        return Err("No events found.".to_owned());
    }
    hits.sort_by_key(|r| std::cmp::Reverse(start(r)));
    let items = hits.into_iter().map(|r| events.record(r)).collect();
    paginate(items, a, "events", "total_events")
}

/// Checks a start time or a duration the way Gym's calendar does.
fn check_value(field: &str, value: &str) -> Result<(), String> {
    match field {
        "event_start" if time::canonical(value).is_none() => {
            Err("Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.".to_owned())
        }
        "duration" => match time::python_int(value) {
            None => Err("Invalid duration format. Expected a number of minutes.".to_owned()),
            Some(n) if n <= 0 => Err("Duration must be a positive number of minutes.".to_owned()),
            Some(_) => Ok(()),
        },
        _ => Ok(()),
    }
}

fn create(events: &mut Table, a: &Args) -> Outcome {
    let name = a.str("event_name").ok_or("Event name not provided.")?;
    let email = a
        .str("participant_email")
        .ok_or("Participant email not provided.")?;
    let start = a.str("event_start").ok_or("Event start not provided.")?;
    let duration = a.str("duration").ok_or("Event duration not provided.")?;
    check_value("event_start", start)?;
    check_value("duration", duration)?;
    let id = next_id(events, "event_id", true)?;
    let email = email.to_lowercase();
    events.push(&[
        ("event_id", &id),
        ("event_name", name),
        ("participant_email", &email),
        ("event_start", start),
        ("duration", duration),
    ])?;
    Ok(json!(id))
}

fn update(events: &mut Table, a: &Args) -> Outcome {
    let (Some(id), Some(field), Some(value)) =
        (a.str("event_id"), a.str("field"), a.str("new_value"))
    else {
        return Err("Event ID, field, or new value not provided.".to_owned());
    };
    let id = valid_id(Some(id))?;
    if !WRITABLE.contains(&field) {
        return Err(format!(
            "Invalid field. Available fields are: {}",
            WRITABLE.join(", ")
        ));
    }
    check_value(field, value)?;
    let value = if field == "participant_email" {
        value.to_lowercase()
    } else {
        value.to_owned()
    };
    match events.update("event_id", id, field, &value) {
        0 => Err("Event not found.".to_owned()),
        _ => Ok(json!("Event updated successfully.")),
    }
}
