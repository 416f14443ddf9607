//! Every tool's effect and refusals, and the state comparison.

use serde_json::{json, Value};

use super::*;

fn table(columns: &[&str], rows: &[&[&str]]) -> Table {
    let rows = rows
        .iter()
        .map(|r| r.iter().map(|c| (*c).to_owned()).collect())
        .collect();
    Table::from_rows(columns.iter().map(|c| (*c).to_owned()).collect(), rows)
}

fn small() -> Workplace {
    Workplace::new(Databases {
        emails: table(
            email::COLUMNS,
            &[
                &[
                    "00000002",
                    "inbox",
                    "ana.ruiz@corp.test",
                    "Budget draft",
                    "2023-11-20 09:00:00",
                    "See the budget.",
                ],
                &[
                    "00000009",
                    "outbox",
                    "li.wei@corp.test",
                    "Offsite plan",
                    "2023-11-25 10:00:00",
                    "Plan attached.",
                ],
            ],
        ),
        calendar: table(
            calendar::COLUMNS,
            &[&[
                "00000004",
                "Design review",
                "ana.ruiz@corp.test",
                "2023-12-01 10:00:00",
                "60",
            ]],
        ),
        analytics: table(
            analytics::COLUMNS,
            &[
                &["2023-11-01", "0001", "3", "30", "direct", "True"],
                &["2023-11-01", "0002", "1", "10", "referral", "False"],
                &["2023-11-02", "0001", "2", "20", "direct", "True"],
            ],
        ),
        tasks: table(
            projects::COLUMNS,
            &[&[
                "00000007",
                "Fix login",
                "ana.ruiz@corp.test",
                "Backlog",
                "2023-12-05",
                "Back end",
            ]],
        ),
        customers: table(
            crm::COLUMNS,
            &[&[
                "00000003",
                "li.wei@corp.test",
                "Bo Park",
                "bo@park.test",
                "",
                "2023-11-01 10:00:00",
                "Software",
                "Lead",
                "2023-12-01 10:00:00",
                "",
            ]],
        ),
        directory: vec!["ana.ruiz@corp.test".into(), "li.wei@corp.test".into()],
    })
    .unwrap()
}

fn call(w: &mut Workplace, name: &str, args: Value) -> ToolResult {
    w.execute(&Call {
        name: name.into(),
        arguments: Arguments::Json(args),
    })
}

fn ok(w: &mut Workplace, name: &str, args: Value) -> Value {
    let r = call(w, name, args);
    assert_eq!(r.error, None, "{name}: {:?}", r.output);
    r.output
}

fn refused(w: &mut Workplace, name: &str, args: Value) -> String {
    let before = w.clone();
    let r = call(w, name, args);
    assert_eq!(*w, before, "a refused call changes nothing");
    r.error.expect("an error")
}

#[test]
fn email_tools() {
    let mut w = small();
    assert_eq!(
        ok(
            &mut w,
            "email_get_email_information_by_id",
            json!({"email_id": "00000002", "field": "subject"})
        ),
        json!({"subject": "Budget draft"})
    );
    assert!(refused(
        &mut w,
        "email_get_email_information_by_id",
        json!({"email_id": "00000002", "field": "cc"})
    )
    .starts_with("Field 'cc' not found."));
    let found = ok(
        &mut w,
        "email_search_emails",
        json!({"query": "PLAN li.wei"}),
    );
    assert_eq!(found["pagination"]["total_emails"], 1);
    let all = ok(
        &mut w,
        "email_search_emails",
        json!({"page_size": 1, "page": 9}),
    );
    assert_eq!(
        all["pagination"],
        json!({"total_emails": 2, "page": 2, "page_size": 1, "total_pages": 2})
    );
    assert_eq!(
        all["emails"][0]["email_id"], "00000002",
        "newest first, so page 2 is the older"
    );
    assert_eq!(
        refused(
            &mut w,
            "email_search_emails",
            json!({"date_min": "2023-11-26"})
        ),
        "No emails found."
    );
    ok(
        &mut w,
        "email_send_email",
        json!({"recipient": "Li.Wei@corp.test", "subject": "Hi", "body": "B"}),
    );
    let sent = w.emails.rows().last().unwrap().clone();
    assert_eq!(
        sent,
        ["10", "outbox", "li.wei@corp.test", "Hi", time::NOW, "B"],
        "id: text max 00000009 + 1, unpadded"
    );
    ok(
        &mut w,
        "email_reply_email",
        json!({"email_id": "00000002", "body": "Thanks"}),
    );
    assert_eq!(
        w.emails.rows().last().unwrap()[..4],
        ["11", "outbox", "ana.ruiz@corp.test", "RE: Budget draft"]
    );
    ok(
        &mut w,
        "email_forward_email",
        json!({"email_id": "00000009", "recipient": "x@y.test"}),
    );
    assert_eq!(w.emails.rows().last().unwrap()[3], "FW: Offsite plan");
    assert_eq!(
        refused(
            &mut w,
            "email_send_email",
            json!({"recipient": "nobody", "subject": "s", "body": "b"})
        ),
        "Invalid recipient email address."
    );
    assert_eq!(
        refused(
            &mut w,
            "email_send_email",
            json!({"recipient": "a@b.c", "subject": "", "body": "b"})
        ),
        "Recipient, subject, or body not provided."
    );
    ok(
        &mut w,
        "email_delete_email",
        json!({"email_id": "00000002"}),
    );
    assert_eq!(
        refused(
            &mut w,
            "email_delete_email",
            json!({"email_id": "00000002"})
        ),
        "Email not found."
    );
    assert_eq!(
        ok(
            &mut w,
            "company_directory_find_email_address",
            json!({"name": "RUIZ"})
        ),
        json!(["ana.ruiz@corp.test"])
    );
    assert_eq!(
        refused(&mut w, "company_directory_find_email_address", json!({})),
        "Name not provided."
    );
}

#[test]
fn calendar_tools() {
    let mut w = small();
    let id = ok(
        &mut w,
        "calendar_create_event",
        json!({"event_name": "Sync", "participant_email": "LI.WEI@corp.test", "event_start": "2023-12-02 09:00:00", "duration": "30"}),
    );
    assert_eq!(id, "00000005");
    assert_eq!(w.calendar.rows()[1][2], "li.wei@corp.test");
    assert_eq!(
        refused(
            &mut w,
            "calendar_create_event",
            json!({"event_name": "S", "participant_email": "a@b.c", "event_start": "soon", "duration": "30"})
        ),
        "Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS."
    );
    assert_eq!(
        refused(
            &mut w,
            "calendar_create_event",
            json!({"event_name": "S", "participant_email": "a@b.c", "event_start": "2023-12-02", "duration": "-5"})
        ),
        "Duration must be a positive number of minutes."
    );
    let found = ok(
        &mut w,
        "calendar_search_events",
        json!({"query": "li.wei", "time_min": "2023-12-02"}),
    );
    assert_eq!(found["events"][0]["event_id"], "00000005");
    assert_eq!(
        ok(
            &mut w,
            "calendar_get_event_information_by_id",
            json!({"event_id": "00000004", "field": "duration"})
        ),
        json!({"duration": "60"})
    );
    assert_eq!(
        refused(
            &mut w,
            "calendar_get_event_information_by_id",
            json!({"event_id": "4", "field": "duration"})
        ),
        "Invalid event ID format. Expected 8-digit ID."
    );
    ok(
        &mut w,
        "calendar_update_event",
        json!({"event_id": "00000004", "field": "duration", "new_value": "45"}),
    );
    assert_eq!(w.calendar.rows()[0][4], "45");
    assert!(refused(
        &mut w,
        "calendar_update_event",
        json!({"event_id": "00000004", "field": "event_id", "new_value": "1"})
    )
    .starts_with("Invalid field."));
    ok(
        &mut w,
        "calendar_delete_event",
        json!({"event_id": "00000004"}),
    );
    assert_eq!(
        refused(
            &mut w,
            "calendar_delete_event",
            json!({"event_id": "00000004"})
        ),
        "Event not found."
    );
}

#[test]
fn project_tools() {
    let mut w = small();
    let args = json!({"task_name": "New", "assigned_to_email": "ANA.RUIZ@corp.test", "list_name": "Backlog", "due_date": "2023-12-09", "board": "Design"});
    assert_eq!(
        ok(&mut w, "project_management_create_task", args),
        "00000008"
    );
    assert_eq!(
        refused(
            &mut w,
            "project_management_create_task",
            json!({"task_name": "N", "assigned_to_email": "zed@corp.test", "list_name": "Backlog", "due_date": "d", "board": "Design"})
        ),
        projects_bad_assignee()
    );
    assert!(refused(&mut w, "project_management_create_task", json!({"task_name": "N", "assigned_to_email": "ana.ruiz@corp.test", "list_name": "backlog", "due_date": "d", "board": "Design"})).starts_with("List not valid."));
    assert_eq!(
        refused(
            &mut w,
            "project_management_create_task",
            json!({"task_name": "N"})
        ),
        "Missing task details."
    );
    let found = ok(
        &mut w,
        "project_management_search_tasks",
        json!({"board": "design"}),
    );
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert_eq!(
        refused(
            &mut w,
            "project_management_search_tasks",
            json!({"assigned_to_email": "not-an-email"})
        ),
        "Invalid email format for assigned_to_email."
    );
    ok(
        &mut w,
        "project_management_update_task",
        json!({"task_id": "00000007", "field": "list_name", "new_value": "In Review"}),
    );
    assert_eq!(w.tasks.rows()[0][3], "In Review");
    assert!(refused(
        &mut w,
        "project_management_update_task",
        json!({"task_id": "00000007", "field": "board", "new_value": "Ops"})
    )
    .starts_with("Board not valid."));
    assert_eq!(
        refused(
            &mut w,
            "project_management_update_task",
            json!({"task_id": "00000007", "field": "color", "new_value": "x"})
        ),
        "Field not valid."
    );
    assert_eq!(
        ok(
            &mut w,
            "project_management_get_task_information_by_id",
            json!({"task_id": "00000007", "field": "board"})
        ),
        json!({"board": "Back end"})
    );
    ok(
        &mut w,
        "project_management_delete_task",
        json!({"task_id": "00000007"}),
    );
    assert_eq!(
        refused(
            &mut w,
            "project_management_delete_task",
            json!({"task_id": "00000007"})
        ),
        "Task not found."
    );
}

fn projects_bad_assignee() -> &'static str {
    "Assignee email not valid. Please choose from the list of team members."
}

#[test]
fn crm_tools() {
    let mut w = small();
    let found = ok(
        &mut w,
        "customer_relationship_manager_search_customers",
        json!({"customer_name": "park", "last_contact_date_min": "2023-10-01"}),
    );
    assert_eq!(found["pagination"]["total_customers"], 1);
    assert!(refused(
        &mut w,
        "customer_relationship_manager_search_customers",
        json!({})
    )
    .starts_with("No search parameters"));
    ok(
        &mut w,
        "customer_relationship_manager_update_customer",
        json!({"customer_id": "00000003", "field": "status", "new_value": "Won"}),
    );
    assert_eq!(w.customers.rows()[0][7], "Won");
    assert!(refused(
        &mut w,
        "customer_relationship_manager_update_customer",
        json!({"customer_id": "00000003", "field": "status", "new_value": "won"})
    )
    .starts_with("Status not valid."));
    assert_eq!(
        refused(
            &mut w,
            "customer_relationship_manager_update_customer",
            json!({"customer_id": "00000099", "field": "notes", "new_value": "x"})
        ),
        "Customer not found."
    );
    let id = ok(
        &mut w,
        "customer_relationship_manager_add_customer",
        json!({"customer_name": "Cy Doe", "assigned_to_email": "LI.WEI@corp.test", "status": "Lead", "customer_email": "CY@doe.test"}),
    );
    assert_eq!(id, "00000004");
    assert_eq!(
        w.customers.rows()[1][..4],
        ["00000004", "li.wei@corp.test", "Cy Doe", "cy@doe.test"]
    );
    ok(
        &mut w,
        "customer_relationship_manager_delete_customer",
        json!({"customer_id": "00000003"}),
    );
    assert_eq!(w.customers.len(), 1);
}

#[test]
fn analytics_tools() {
    let mut w = small();
    assert_eq!(
        ok(&mut w, "analytics_total_visits_count", json!({})),
        json!({"2023-11-01": 2, "2023-11-02": 1})
    );
    assert_eq!(
        ok(
            &mut w,
            "analytics_engaged_users_count",
            json!({"time_min": "2023-11-02"})
        ),
        json!({"2023-11-02": 1})
    );
    assert_eq!(
        ok(
            &mut w,
            "analytics_traffic_source_count",
            json!({"traffic_source": "referral"})
        ),
        json!({"2023-11-01": 1, "2023-11-02": 0})
    );
    assert_eq!(
        ok(
            &mut w,
            "analytics_get_average_session_duration",
            json!({"time_max": "2023-11-01"})
        ),
        json!({"2023-11-01": 20.0})
    );
    let visitor = ok(
        &mut w,
        "analytics_get_visitor_information_by_id",
        json!({"visitor_id": "0001"}),
    );
    assert_eq!(visitor[1]["user_engaged"], true);
    let path = ok(
        &mut w,
        "analytics_create_plot",
        json!({"time_min": "2023-11-01", "time_max": "2023-11-30", "value_to_plot": "total_visits", "plot_type": "bar"}),
    );
    assert_eq!(path, "plots/2023-11-01_2023-11-30_total_visits_bar.png");
    assert_eq!(w.plots.len(), 1);
    assert!(refused(
        &mut w,
        "analytics_create_plot",
        json!({"time_min": "a", "time_max": "b", "value_to_plot": "visits", "plot_type": "bar"})
    )
    .starts_with("Value to plot must be one of"));
}

#[test]
fn bad_calls_are_results_not_crashes() {
    let mut w = small();
    let text = |w: &mut Workplace, name: &str, args: &str| {
        let before = w.clone();
        let r = w.execute(&Call {
            name: name.into(),
            arguments: Arguments::Text(args.into()),
        });
        assert_eq!(*w, before);
        r.error.unwrap()
    };
    assert_eq!(
        text(&mut w, "email_launch_rocket", "{}"),
        "Error executing tool 'email_launch_rocket': no such tool"
    );
    assert!(text(&mut w, "email_delete_email", "{\"email_id\": ").contains("not valid JSON"));
    assert!(text(&mut w, "email_delete_email", "[1]").contains("must be a JSON object"));
    assert!(text(&mut w, "email_delete_email", r#"{"email_id": 2}"#)
        .contains("argument 'email_id' must be a string, found a number"));
    assert!(
        text(&mut w, "email_delete_email", r#"{"id": "2"}"#).contains("unexpected argument 'id'")
    );
    assert!(text(&mut w, "email_search_emails", r#"{"page": "2"}"#).contains("must be an integer"));
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(text(&mut w, "email_delete_email", &deep).contains("longer than"));
    let deep = format!("{{\"email_id\": {}{}}}", "[".repeat(1000), "]".repeat(1000));
    assert!(text(&mut w, "email_delete_email", &deep).contains("not valid JSON"));
    assert_eq!(
        text(&mut w, "email_delete_email", ""),
        "Email ID not provided."
    );
}

#[test]
fn states_compare_with_gyms_case_rules() {
    let reference = {
        let mut w = small();
        ok(
            &mut w,
            "customer_relationship_manager_update_customer",
            json!({"customer_id": "00000003", "field": "notes", "new_value": "Call back"}),
        );
        ok(
            &mut w,
            "project_management_update_task",
            json!({"task_id": "00000007", "field": "list_name", "new_value": "Completed"}),
        );
        w
    };
    let mut same = small();
    ok(
        &mut same,
        "project_management_update_task",
        json!({"task_id": "00000007", "field": "list_name", "new_value": "Completed"}),
    );
    ok(
        &mut same,
        "customer_relationship_manager_update_customer",
        json!({"customer_id": "00000003", "field": "notes", "new_value": "CALL BACK"}),
    );
    assert_eq!(
        first_difference(&same, &reference),
        None,
        "other order, other case in notes"
    );
    let mut status_case = small();
    ok(
        &mut status_case,
        "customer_relationship_manager_update_customer",
        json!({"customer_id": "00000003", "field": "notes", "new_value": "Call back"}),
    );
    ok(
        &mut status_case,
        "project_management_update_task",
        json!({"task_id": "00000007", "field": "list_name", "new_value": "In Review"}),
    );
    let diff = first_difference(&status_case, &reference).unwrap();
    assert_eq!((diff.table, diff.row), ("project_tasks", 0));
    assert_eq!(diff.predicted["list_name"], "In Review");
    assert_eq!(diff.expected["list_name"], "Completed");
    let mut extra = reference.clone();
    ok(
        &mut extra,
        "analytics_create_plot",
        json!({"time_min": "a", "time_max": "b", "value_to_plot": "total_visits", "plot_type": "line"}),
    );
    let diff = first_difference(&extra, &reference).unwrap();
    assert_eq!(
        (diff.table, diff.row, diff.expected.clone()),
        ("plots", 0, Value::Null)
    );
}

#[test]
fn seeded_workplace_is_deterministic_and_complete() {
    assert_eq!(seed::databases(3), seed::databases(3));
    assert_ne!(seed::databases(3), seed::databases(4));
    let w = seed::workplace(0);
    assert!(w.emails.len() >= 20 && w.calendar.len() >= 20 && w.customers.len() >= 10);
    assert_eq!(tool_schemas().len(), 27);
}
