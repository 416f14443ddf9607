//! The task kinds: each draws its subject from the workplace and returns the request
//! text and the reference calls that carry it out.

use serde_json::{json, Value};

use cascade_verifiers::seeded::SplitMix64;
use cascade_verifiers::workplace::seed::{staff_email, EVENT_NAMES, STAFF};
use cascade_verifiers::workplace::{Table, Workplace};

/// How many task kinds [`draw`] chooses from.
pub const KINDS: usize = 7;

/// A drawn task.
pub struct Task {
    pub kind: &'static str,
    pub prompt: String,
    pub calls: Vec<(&'static str, Value)>,
}

const SUBJECTS: &[(&str, &str)] = &[
    ("Lunch on Friday", "Are you free for lunch on Friday?"),
    (
        "Slides for Monday",
        "Could you send me the slides before Monday's meeting?",
    ),
    ("Office keys", "I left the office keys at the front desk."),
    (
        "Expense report",
        "Please approve my expense report when you get a chance.",
    ),
];
const BOARDS: &[&str] = &["Back end", "Front end", "Design"];
const LISTS: &[&str] = &["Backlog", "In Progress", "In Review", "Completed"];
const STATUSES: &[&str] = &["Qualified", "Won", "Lost", "Lead", "Proposal"];

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// A staff member's full name and address.
fn colleague(rng: &mut SplitMix64) -> (String, String) {
    let i = rng.below(STAFF.len());
    let (first, last) = STAFF[i];
    (
        format!("{} {}", capitalized(first), capitalized(last)),
        staff_email(i),
    )
}

/// A row of `table` and its cells by column.
fn pick<'a>(rng: &mut SplitMix64, table: &'a Table) -> impl Fn(&str) -> String + 'a {
    let row = &table.rows()[rng.below(table.len())];
    move |column| table.cell(row, column).to_owned()
}

/// A value from `choices` other than `current`.
fn other(rng: &mut SplitMix64, choices: &[&'static str], current: &str) -> &'static str {
    let rest: Vec<&'static str> = choices.iter().copied().filter(|c| *c != current).collect();
    rest[rng.below(rest.len())]
}

pub fn draw(rng: &mut SplitMix64, w: &Workplace) -> Task {
    match rng.below(KINDS) {
        0 => send_email(rng),
        1 | 2 => move_task(rng, w),
        3 => {
            let task = pick(rng, &w.tasks);
            Task {
                kind: "delete_task",
                prompt: format!(
                    "The task '{}' is no longer needed. Please delete it.",
                    task("task_name")
                ),
                calls: vec![(
                    "project_management_delete_task",
                    json!({"task_id": task("task_id")}),
                )],
            }
        }
        4 => schedule(rng),
        5 => customer_status(rng, w),
        _ => close_deal(rng, w),
    }
}

fn send_email(rng: &mut SplitMix64) -> Task {
    let (name, address) = colleague(rng);
    let (subject, body) = *rng.pick(SUBJECTS);
    Task {
        kind: "send_email",
        prompt: format!("Send {name} an email with the subject '{subject}' that says: {body}"),
        calls: vec![(
            "email_send_email",
            json!({"recipient": address, "subject": subject, "body": body}),
        )],
    }
}

fn move_task(rng: &mut SplitMix64, w: &Workplace) -> Task {
    let task = pick(rng, &w.tasks);
    let (field, place) = if rng.below(2) == 0 {
        ("board", other(rng, BOARDS, &task("board")))
    } else {
        ("list_name", other(rng, LISTS, &task("list_name")))
    };
    let what = if field == "board" { "board" } else { "list" };
    Task {
        kind: "move_task",
        prompt: format!(
            "Move the task '{}' to the {place} {what}.",
            task("task_name")
        ),
        calls: vec![(
            "project_management_update_task",
            json!({"task_id": task("task_id"), "field": field, "new_value": place}),
        )],
    }
}

fn schedule(rng: &mut SplitMix64) -> Task {
    let (name, address) = colleague(rng);
    let event: &&str = rng.pick(EVENT_NAMES);
    let event = capitalized(event);
    let day = rng.range(4, 8);
    let hour = rng.range(9, 16);
    let duration = *rng.pick(&["30", "60"]);
    Task {
        kind: "schedule",
        prompt: format!("Put a {duration}-minute '{event}' with {name} on the calendar for December {day} at {hour}:00."),
        calls: vec![(
            "calendar_create_event",
            json!({"event_name": event, "participant_email": address, "event_start": format!("2023-12-{day:02} {hour:02}:00:00"), "duration": duration}),
        )],
    }
}

fn customer_status(rng: &mut SplitMix64, w: &Workplace) -> Task {
    let customer = pick(rng, &w.customers);
    let id = customer("customer_id");
    if rng.below(2) == 0 {
        let status = other(rng, STATUSES, &customer("status"));
        return Task {
            kind: "customer_status",
            prompt: format!(
                "Look up {} in the CRM and set their status to {status}.",
                customer("customer_name")
            ),
            calls: vec![(
                "customer_relationship_manager_update_customer",
                json!({"customer_id": id, "field": "status", "new_value": status}),
            )],
        };
    }
    let owner = customer("assigned_to_email");
    let (name, address) = loop {
        let (name, address) = colleague(rng);
        if address != owner {
            break (name, address);
        }
    };
    Task {
        kind: "customer_owner",
        prompt: format!(
            "{name} is taking over the account of {}. Reassign them in the CRM.",
            customer("customer_name")
        ),
        calls: vec![(
            "customer_relationship_manager_update_customer",
            json!({"customer_id": id, "field": "assigned_to_email", "new_value": address}),
        )],
    }
}

fn close_deal(rng: &mut SplitMix64, w: &Workplace) -> Task {
    let customer = pick(rng, &w.customers);
    let name = customer("customer_name");
    let status = if customer("status") == "Won" {
        "Qualified"
    } else {
        "Won"
    };
    let verb = if status == "Won" {
        "We won the deal with"
    } else {
        "Move back to Qualified"
    };
    Task {
        kind: "close_deal",
        prompt: format!("{verb} {name}: update their CRM status to {status}, then email them at their CRM address with the subject 'Thank you' and the text 'Thank you for your time.'"),
        calls: vec![
            ("customer_relationship_manager_update_customer", json!({"customer_id": customer("customer_id"), "field": "status", "new_value": status})),
            ("email_send_email", json!({"recipient": customer("customer_email"), "subject": "Thank you", "body": "Thank you for your time."})),
        ],
    }
}
