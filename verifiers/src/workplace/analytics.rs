//! The analytics tools: read-only counts over site visits, and plots (the only
//! analytics state a call can change, so the only one compared).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::args::Args;
use super::table::Table;
use super::Outcome;

pub const COLUMNS: &[&str] = &[
    "date_of_visit",
    "visitor_id",
    "page_views",
    "session_duration_seconds",
    "traffic_source",
    "user_engaged",
];

pub const METRICS: &[&str] = &[
    "total_visits",
    "session_duration_seconds",
    "user_engaged",
    "visits_direct",
    "visits_referral",
    "visits_search_engine",
    "visits_social_media",
];
pub const PLOT_TYPES: &[&str] = &["bar", "line", "scatter", "histogram"];

pub fn run(visits: &Table, plots: &mut Table, tool: &str, a: &Args) -> Outcome {
    match tool {
        "get_visitor_information_by_id" => visitor(visits, a),
        "create_plot" => plot(plots, a),
        "total_visits_count" => Ok(per_day(visits, a, |_| 1.0, false)),
        "engaged_users_count" => Ok(per_day(visits, a, |r| engaged(visits, r), false)),
        "traffic_source_count" => Ok(match a.str("traffic_source") {
            Some(source) => per_day(
                visits,
                a,
                |r| f64::from(u8::from(visits.cell(r, "traffic_source") == source)),
                false,
            ),
            None => per_day(visits, a, |_| 1.0, false),
        }),
        _ => {
            let bad = visits.rows().iter().find(|r| seconds(visits, r).is_none());
            if let Some(r) = bad {
                let cell = visits.cell(r, "session_duration_seconds");
                return Err(format!("could not convert string to float: '{cell}'"));
            }
            Ok(per_day(
                visits,
                a,
                |r| seconds(visits, r).unwrap_or(0.0),
                true,
            ))
        }
    }
}

fn engaged(visits: &Table, row: &[String]) -> f64 {
    f64::from(u8::from(visits.cell(row, "user_engaged") == "True"))
}

fn seconds(visits: &Table, row: &[String]) -> Option<f64> {
    visits
        .cell(row, "session_duration_seconds")
        .trim()
        .parse()
        .ok()
}

fn visitor(visits: &Table, a: &Args) -> Outcome {
    let id = a.str("visitor_id").ok_or("Visitor ID not provided.")?;
    let found: Vec<Value> = visits
        .rows()
        .iter()
        .filter(|r| visits.cell(r, "visitor_id") == id)
        .map(|r| {
            let mut record = visits.record(r);
            record["user_engaged"] = Value::Bool(engaged(visits, r) == 1.0);
            record
        })
        .collect();
    if found.is_empty() {
        return Err("Visitor not found.".to_owned());
    }
    Ok(Value::Array(found))
}

fn plot(plots: &mut Table, a: &Args) -> Outcome {
    let from = a.str("time_min").ok_or("Start date not provided.")?;
    let to = a.str("time_max").ok_or("End date not provided.")?;
    let metric = a.str("value_to_plot").unwrap_or("");
    if !METRICS.contains(&metric) {
        return Err(format!(
            "Value to plot must be one of '{}'",
            METRICS.join("', '")
        ));
    }
    let kind = a.str("plot_type").unwrap_or("");
    if !PLOT_TYPES.contains(&kind) {
        return Err("Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'".to_owned());
    }
    let path = format!("plots/{from}_{to}_{metric}_{kind}.png");
    plots.push(&[("file_path", &path)])?;
    Ok(json!(path))
}

/// Sums (or averages) `value` per visit date within `time_min..=time_max` (dates
/// compared as text, as Gym does), keyed by date in order.
fn per_day(visits: &Table, a: &Args, value: impl Fn(&[String]) -> f64, mean: bool) -> Value {
    let (min, max) = (a.str("time_min"), a.str("time_max"));
    let mut days: BTreeMap<&str, (f64, u32)> = BTreeMap::new();
    for row in visits.rows() {
        let day = visits.cell(row, "date_of_visit");
        if min.is_some_and(|m| day < m) || max.is_some_and(|m| day > m) {
            continue;
        }
        let entry = days.entry(day).or_default();
        entry.0 += value(row);
        entry.1 += 1;
    }
    let mut out = Map::new();
    for (day, (sum, n)) in days {
        let v = if mean {
            json!(sum / f64::from(n))
        } else {
            json!(sum as u64)
        };
        out.insert(day.to_owned(), v);
    }
    Value::Object(out)
}
