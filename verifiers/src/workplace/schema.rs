//! The 27 tools: names, parameters and types as NeMo Gym's workplace assistant
//! declares them (so Gym rows and their tool lists work unchanged), with descriptions
//! written for cascade. [`tool_schemas`] renders them as Responses API function tools.

use serde_json::{json, Map, Value};

/// A parameter's JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Integer,
}

/// One tool's declaration.
#[derive(Debug)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// (name, type, description)
    pub params: &'static [(&'static str, Kind, &'static str)],
    pub required: &'static [&'static str],
}

impl ToolSpec {
    pub fn kind(&self, param: &str) -> Option<Kind> {
        self.params
            .iter()
            .find(|(n, _, _)| *n == param)
            .map(|(_, k, _)| *k)
    }

    /// The Responses API function tool (`{"type": "function", "name", ...}`).
    pub fn schema(&self) -> Value {
        let mut properties = Map::new();
        for (name, kind, description) in self.params {
            let kind = match kind {
                Kind::String => "string",
                Kind::Integer => "integer",
            };
            properties.insert(
                (*name).to_owned(),
                json!({"type": kind, "description": description}),
            );
        }
        json!({
            "type": "function",
            "name": self.name,
            "description": self.description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": self.required,
                "additionalProperties": false,
            },
            "strict": false,
        })
    }
}

use Kind::{Integer as I, String as S};

const ID_FIELD: &str = "The field to read";
const FIELD: &str = "The field to change";
const NEW: &str = "The new value of the field";
const TMIN: &str = "Earliest date, YYYY-MM-DD (inclusive)";
const TMAX: &str = "Latest date, YYYY-MM-DD (inclusive)";
const PAGE: &str = "Page of results, from 1";
const PAGE_SIZE: &str = "Results per page";

/// Every tool, in Gym's order.
pub const TOOLS: &[ToolSpec] = &[
    ToolSpec { name: "company_directory_find_email_address", description: "Lists the staff email addresses that contain a name or part of one (case-insensitive).", params: &[("name", S, "A name or part of a name")], required: &[] },
    ToolSpec { name: "email_get_email_information_by_id", description: "Reads one field of an email. Fields: email_id, inbox/outbox, sender/recipient, subject, sent_datetime, body.", params: &[("email_id", S, "The email's id"), ("field", S, ID_FIELD)], required: &["email_id", "field"] },
    ToolSpec { name: "email_search_emails", description: "Finds emails whose subject, body and sender/recipient together contain every word of the query, newest first.", params: &[("query", S, "Words to look for"), ("date_min", S, TMIN), ("date_max", S, TMAX), ("page", I, PAGE), ("page_size", I, PAGE_SIZE)], required: &[] },
    ToolSpec { name: "email_send_email", description: "Sends an email.", params: &[("recipient", S, "The recipient's email address"), ("subject", S, "The subject line"), ("body", S, "The message text")], required: &["recipient", "subject", "body"] },
    ToolSpec { name: "email_delete_email", description: "Deletes an email.", params: &[("email_id", S, "The id of the email to delete")], required: &["email_id"] },
    ToolSpec { name: "email_forward_email", description: "Forwards an email to a recipient.", params: &[("email_id", S, "The id of the email to forward"), ("recipient", S, "The recipient's email address")], required: &["email_id", "recipient"] },
    ToolSpec { name: "email_reply_email", description: "Replies to an email.", params: &[("email_id", S, "The id of the email to answer"), ("body", S, "The reply text")], required: &["email_id", "body"] },
    ToolSpec { name: "calendar_get_event_information_by_id", description: "Reads one field of a calendar event. Fields: event_id, event_name, participant_email, event_start, duration.", params: &[("event_id", S, "The event's 8-digit id"), ("field", S, ID_FIELD)], required: &["event_id", "field"] },
    ToolSpec { name: "calendar_search_events", description: "Finds events whose name or participant contains the query, latest first.", params: &[("query", S, "Text to look for"), ("time_min", S, "Earliest start, YYYY-MM-DD HH:MM:SS"), ("time_max", S, "Latest start, YYYY-MM-DD HH:MM:SS"), ("page", I, PAGE), ("page_size", I, PAGE_SIZE)], required: &[] },
    ToolSpec { name: "calendar_create_event", description: "Creates a calendar event and returns its id.", params: &[("event_name", S, "The event's name"), ("participant_email", S, "The participant's email address"), ("event_start", S, "Start time, YYYY-MM-DD HH:MM:SS"), ("duration", S, "Length in minutes")], required: &["event_name", "participant_email", "event_start", "duration"] },
    ToolSpec { name: "calendar_delete_event", description: "Deletes a calendar event.", params: &[("event_id", S, "The 8-digit id of the event to delete")], required: &["event_id"] },
    ToolSpec { name: "calendar_update_event", description: "Changes one field of a calendar event. Fields: event_name, participant_email, event_start, duration.", params: &[("event_id", S, "The event's 8-digit id"), ("field", S, FIELD), ("new_value", S, NEW)], required: &["event_id", "field", "new_value"] },
    ToolSpec { name: "analytics_get_visitor_information_by_id", description: "Returns the site visits of one visitor.", params: &[("visitor_id", S, "The visitor's id")], required: &["visitor_id"] },
    ToolSpec { name: "analytics_create_plot", description: "Plots a daily site metric and returns the image path. value_to_plot: total_visits, session_duration_seconds, user_engaged, visits_direct, visits_referral, visits_search_engine, visits_social_media. plot_type: bar, line, scatter, histogram.", params: &[("time_min", S, TMIN), ("time_max", S, TMAX), ("value_to_plot", S, "The metric to plot"), ("plot_type", S, "The kind of plot")], required: &["time_min", "time_max", "value_to_plot", "plot_type"] },
    ToolSpec { name: "analytics_total_visits_count", description: "Counts site visits per day.", params: &[("time_min", S, TMIN), ("time_max", S, TMAX)], required: &[] },
    ToolSpec { name: "analytics_engaged_users_count", description: "Counts engaged visitors per day.", params: &[("time_min", S, TMIN), ("time_max", S, TMAX)], required: &[] },
    ToolSpec { name: "analytics_traffic_source_count", description: "Counts visits per day, from one traffic source (direct, referral, search engine, social media) or from all.", params: &[("time_min", S, TMIN), ("time_max", S, TMAX), ("traffic_source", S, "The traffic source")], required: &[] },
    ToolSpec { name: "analytics_get_average_session_duration", description: "Average session length in seconds per day.", params: &[("time_min", S, TMIN), ("time_max", S, TMAX)], required: &[] },
    ToolSpec { name: "project_management_get_task_information_by_id", description: "Reads one field of a task. Fields: task_id, task_name, assigned_to_email, list_name, due_date, board.", params: &[("task_id", S, "The task's 8-digit id"), ("field", S, ID_FIELD)], required: &["task_id", "field"] },
    ToolSpec { name: "project_management_search_tasks", description: "Finds tasks matching every given criterion (name, list and board by substring; assignee exactly).", params: &[("task_name", S, "Text in the task name"), ("assigned_to_email", S, "The assignee's email address"), ("list_name", S, "Backlog, In Progress, In Review or Completed"), ("due_date", S, "Due date, YYYY-MM-DD"), ("board", S, "Back end, Front end or Design")], required: &[] },
    ToolSpec { name: "project_management_create_task", description: "Creates a task and returns its id. list_name: Backlog, In Progress, In Review, Completed. board: Back end, Front end, Design.", params: &[("task_name", S, "The task's name"), ("assigned_to_email", S, "The assignee's email address"), ("list_name", S, "The list"), ("due_date", S, "Due date, YYYY-MM-DD"), ("board", S, "The board")], required: &["task_name", "assigned_to_email", "list_name", "due_date", "board"] },
    ToolSpec { name: "project_management_delete_task", description: "Deletes a task.", params: &[("task_id", S, "The 8-digit id of the task to delete")], required: &["task_id"] },
    ToolSpec { name: "project_management_update_task", description: "Changes one field of a task. Fields: task_name, assigned_to_email, list_name, due_date, board.", params: &[("task_id", S, "The task's 8-digit id"), ("field", S, FIELD), ("new_value", S, NEW)], required: &["task_id", "field", "new_value"] },
    ToolSpec { name: "customer_relationship_manager_search_customers", description: "Finds customers matching every given criterion; dates compare as YYYY-MM-DD text.", params: &[("customer_name", S, "Text in the customer's name"), ("customer_email", S, "Text in the customer's email"), ("product_interest", S, "Software, Hardware, Services, Consulting or Training"), ("status", S, "Qualified, Won, Lost, Lead or Proposal"), ("assigned_to_email", S, "The account owner's email address"), ("last_contact_date_min", S, "Earliest last contact date"), ("last_contact_date_max", S, "Latest last contact date"), ("follow_up_by_min", S, "Earliest follow-up date"), ("follow_up_by_max", S, "Latest follow-up date"), ("page", I, PAGE), ("page_size", I, PAGE_SIZE)], required: &[] },
    ToolSpec { name: "customer_relationship_manager_update_customer", description: "Changes one field of a customer. Fields: customer_name, assigned_to_email, customer_email, customer_phone, last_contact_date, product_interest, status, notes, follow_up_by.", params: &[("customer_id", S, "The customer's 8-digit id"), ("field", S, FIELD), ("new_value", S, NEW)], required: &["customer_id", "field", "new_value"] },
    ToolSpec { name: "customer_relationship_manager_add_customer", description: "Adds a customer and returns its id.", params: &[("customer_name", S, "The customer's name"), ("assigned_to_email", S, "The account owner's email address"), ("status", S, "Qualified, Won, Lost, Lead or Proposal"), ("customer_email", S, "The customer's email address"), ("customer_phone", S, "The customer's phone number"), ("last_contact_date", S, "Last contact date"), ("product_interest", S, "Software, Hardware, Services, Consulting or Training"), ("notes", S, "Notes"), ("follow_up_by", S, "Follow-up date")], required: &["customer_name", "assigned_to_email", "status"] },
    ToolSpec { name: "customer_relationship_manager_delete_customer", description: "Deletes a customer.", params: &[("customer_id", S, "The 8-digit id of the customer to delete")], required: &["customer_id"] },
];

/// The spec of a tool by name.
pub fn spec(name: &str) -> Option<&'static ToolSpec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Every tool as a Responses API function tool, for a row's
/// `responses_create_params.tools`.
pub fn tool_schemas() -> Vec<Value> {
    TOOLS.iter().map(ToolSpec::schema).collect()
}
