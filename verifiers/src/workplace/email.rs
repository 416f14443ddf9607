//! The email tools and the company directory.

use serde_json::{json, Value};

use super::args::Args;
use super::table::Table;
use super::{contains_ci, field_of, next_id, paginate, time, Outcome};

pub const COLUMNS: &[&str] = &[
    "email_id",
    "inbox/outbox",
    "sender/recipient",
    "subject",
    "sent_datetime",
    "body",
];

pub fn run(emails: &mut Table, tool: &str, a: &Args) -> Outcome {
    match tool {
        "get_email_information_by_id" => information(emails, a),
        "search_emails" => search(emails, a),
        "send_email" => {
            send(emails, a.str("recipient"), a.str("subject"), a.str("body"))?;
            Ok(json!("Email sent successfully."))
        }
        "delete_email" => {
            let id = a.str("email_id").ok_or("Email ID not provided.")?;
            match emails.delete("email_id", id) {
                0 => Err("Email not found.".to_owned()),
                _ => Ok(json!("Email deleted successfully.")),
            }
        }
        "forward_email" => forward(emails, a),
        _ => reply(emails, a),
    }
}

fn information(emails: &Table, a: &Args) -> Outcome {
    let id = a.str("email_id").ok_or("Email ID not provided.")?;
    let field = a.str("field").ok_or("Field not provided.")?;
    match field_of(emails, "email_id", id, field) {
        None => Err("Email not found.".to_owned()),
        Some(Err(_)) => Err(format!(
            "Field '{field}' not found. Available fields: {}",
            emails.columns().join(", ")
        )),
        Some(found) => found,
    }
}

fn search(emails: &Table, a: &Args) -> Outcome {
    let words: Vec<String> = a
        .str("query")
        .unwrap_or("")
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let bound = |key: &str| match a.str(key) {
        None => Ok(None),
        Some(t) => time::date(t)
            .map(Some)
            .ok_or_else(|| format!("Error searching emails: cannot read {key} `{t}` as a date")),
    };
    let (min, max) = (bound("date_min")?, bound("date_max")?);
    let mut hits: Vec<&Vec<String>> = emails
        .rows()
        .iter()
        .filter(|r| {
            let text = format!(
                "{} {} {}",
                emails.cell(r, "subject"),
                emails.cell(r, "body"),
                emails.cell(r, "sender/recipient")
            )
            .to_lowercase();
            words.iter().all(|w| text.contains(w.as_str()))
        })
        .filter(|r| {
            let day = time::date(emails.cell(r, "sent_datetime")).unwrap_or_default();
            min.as_ref().is_none_or(|m| &day >= m) && max.as_ref().is_none_or(|m| &day <= m)
        })
        .collect();
    hits.sort_by_key(|r| std::cmp::Reverse(sort_key(emails.cell(r, "sent_datetime"))));
    if hits.is_empty() {
        return Err("No emails found.".to_owned());
    }
    let items = hits.into_iter().map(|r| emails.record(r)).collect();
    paginate(items, a, "emails", "total_emails")
}

fn sort_key(stamp: &str) -> String {
    time::canonical(stamp).unwrap_or_else(|| stamp.to_owned())
}

/// Appends an outgoing email (the recipient lowercased, sent now).
fn send(
    emails: &mut Table,
    recipient: Option<&str>,
    subject: Option<&str>,
    body: Option<&str>,
) -> Result<(), String> {
    let (Some(recipient), Some(subject), Some(body)) = (recipient, subject, body) else {
        return Err("Recipient, subject, or body not provided.".to_owned());
    };
    if !recipient.contains('@') || !recipient.contains('.') {
        return Err("Invalid recipient email address.".to_owned());
    }
    let id = next_id(emails, "email_id", false)?;
    let recipient = recipient.to_lowercase();
    emails.push(&[
        ("email_id", &id),
        ("inbox/outbox", "outbox"),
        ("sender/recipient", &recipient),
        ("subject", subject),
        ("sent_datetime", time::NOW),
        ("body", body),
    ])
}

fn forward(emails: &mut Table, a: &Args) -> Outcome {
    let (Some(id), Some(recipient)) = (a.str("email_id"), a.str("recipient")) else {
        return Err("Email ID or recipient not provided.".to_owned());
    };
    if !recipient.contains('@') || !recipient.contains('.') {
        return Err("Invalid recipient email address.".to_owned());
    }
    let row = emails.find("email_id", id).ok_or("Email not found.")?;
    let subject = format!("FW: {}", emails.cell(row, "subject"));
    let body = emails.cell(row, "body").to_owned();
    send(emails, Some(recipient), Some(&subject), Some(&body))?;
    Ok(json!("Email forwarded successfully."))
}

fn reply(emails: &mut Table, a: &Args) -> Outcome {
    let (Some(id), Some(body)) = (a.str("email_id"), a.str("body")) else {
        return Err("Email ID or body not provided.".to_owned());
    };
    let row = emails.find("email_id", id).ok_or("Email not found.")?;
    let recipient = emails.cell(row, "sender/recipient").to_owned();
    let subject = format!("RE: {}", emails.cell(row, "subject"));
    send(emails, Some(&recipient), Some(&subject), Some(body))?;
    Ok(json!("Email replied successfully."))
}

/// `company_directory_find_email_address`.
pub fn find_address(directory: &[String], a: &Args) -> Outcome {
    let name = a.str("name").ok_or("Name not provided.")?;
    let found: Vec<Value> = directory
        .iter()
        .filter(|address| contains_ci(address, name))
        .map(|address| json!(address))
        .collect();
    Ok(Value::Array(found))
}
