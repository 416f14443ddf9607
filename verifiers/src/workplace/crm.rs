//! The customer relationship manager tools.

use serde_json::{json, Value};

use super::args::Args;
use super::table::Table;
use super::{contains_ci, next_id, paginate, Outcome};

pub const COLUMNS: &[&str] = &[
    "customer_id",
    "assigned_to_email",
    "customer_name",
    "customer_email",
    "customer_phone",
    "last_contact_date",
    "product_interest",
    "status",
    "follow_up_by",
    "notes",
];

pub const STATUSES: &[&str] = &["Qualified", "Won", "Lost", "Lead", "Proposal"];
pub const PRODUCTS: &[&str] = &["Software", "Hardware", "Services", "Consulting", "Training"];

/// Filters matched as case-insensitive substrings.
const TEXT_FILTERS: &[&str] = &[
    "customer_name",
    "customer_email",
    "product_interest",
    "status",
    "assigned_to_email",
];
/// Filters compared as text against a column: (argument, column, at least?).
const RANGE_FILTERS: &[(&str, &str, bool)] = &[
    ("last_contact_date_min", "last_contact_date", true),
    ("last_contact_date_max", "last_contact_date", false),
    ("follow_up_by_min", "follow_up_by", true),
    ("follow_up_by_max", "follow_up_by", false),
];

pub fn run(customers: &mut Table, tool: &str, a: &Args) -> Outcome {
    match tool {
        "search_customers" => search(customers, a),
        "update_customer" => update(customers, a),
        "add_customer" => add(customers, a),
        _ => {
            let id = a.str("customer_id").ok_or("Customer ID not provided.")?;
            match customers.delete("customer_id", id) {
                0 => Err("Customer not found.".to_owned()),
                _ => Ok(json!("Customer deleted successfully.")),
            }
        }
    }
}

fn matches(customers: &Table, row: &[String], a: &Args) -> bool {
    let text = TEXT_FILTERS.iter().all(|k| {
        a.str(k)
            .is_none_or(|want| contains_ci(customers.cell(row, k), want))
    });
    text && RANGE_FILTERS.iter().all(|(arg, column, at_least)| {
        a.str(arg).is_none_or(|bound| {
            let cell = customers.cell(row, column);
            !cell.is_empty()
                && if *at_least {
                    cell >= bound
                } else {
                    cell <= bound
                }
        })
    })
}

fn search(customers: &Table, a: &Args) -> Outcome {
    let given = TEXT_FILTERS.iter().any(|k| a.str(k).is_some())
        || RANGE_FILTERS.iter().any(|(k, _, _)| a.str(k).is_some());
    if !given {
        return Err(
            "No search parameters provided. Please provide at least one parameter.".to_owned(),
        );
    }
    let hits: Vec<Value> = customers
        .rows()
        .iter()
        .filter(|r| matches(customers, r, a))
        .map(|r| customers.record(r))
        .collect();
    if hits.is_empty() {
        return Err("No customers found.".to_owned());
    }
    paginate(hits, a, "customers", "total_customers")
}

fn update(customers: &mut Table, a: &Args) -> Outcome {
    let (Some(id), Some(field), Some(value)) =
        (a.str("customer_id"), a.str("field"), a.str("new_value"))
    else {
        return Err("Customer ID, field, or new value not provided.".to_owned());
    };
    if field == "status" && !STATUSES.contains(&value) {
        return Err(
            "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'"
                .to_owned(),
        );
    }
    if field == "product_interest" && !PRODUCTS.contains(&value) {
        return Err("Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'".to_owned());
    }
    let value = if matches!(field, "customer_email" | "assigned_to_email") {
        value.to_lowercase()
    } else {
        value.to_owned()
    };
    if !customers.contains("customer_id", id) {
        return Err("Customer not found.".to_owned());
    }
    if customers.column(field).is_none() {
        return Err(format!(
            "Field not valid. Please choose from: {}",
            COLUMNS[1..].join(", ")
        ));
    }
    customers.update("customer_id", id, field, &value);
    Ok(json!("Customer updated successfully."))
}

fn add(customers: &mut Table, a: &Args) -> Outcome {
    let (Some(name), Some(owner), Some(status)) = (
        a.str("customer_name"),
        a.str("assigned_to_email"),
        a.str("status"),
    ) else {
        return Err(
            "Please provide all required fields: customer_name, assigned_to_email, status."
                .to_owned(),
        );
    };
    let owner = owner.to_lowercase();
    let email = a.str("customer_email").unwrap_or("").to_lowercase();
    let id = next_id(customers, "customer_id", true)?;
    let optional = |k: &str| a.str(k).unwrap_or("");
    customers.push(&[
        ("customer_id", &id),
        ("customer_name", name),
        ("customer_email", &email),
        ("customer_phone", optional("customer_phone")),
        ("last_contact_date", optional("last_contact_date")),
        ("product_interest", optional("product_interest")),
        ("status", status),
        ("assigned_to_email", &owner),
        ("notes", optional("notes")),
        ("follow_up_by", optional("follow_up_by")),
    ])?;
    Ok(json!(id))
}
