use serde_json::{json, Value};

use super::*;

fn env() -> WorkplaceEnv {
    WorkplaceEnv::from_config(&EnvConfig::default()).unwrap()
}

fn first_id(env: &WorkplaceEnv, table: &str) -> String {
    let t = match table {
        "emails" => &env.initial.emails,
        "tasks" => &env.initial.tasks,
        _ => &env.initial.customers,
    };
    t.rows()[0][0].clone()
}

fn gt(name: &str, args: Value) -> Value {
    json!({"name": name, "arguments": args.to_string()})
}

fn fc(name: &str, args: Value) -> Value {
    json!({"type": "function_call", "name": name, "arguments": args.to_string(), "call_id": "c"})
}

fn hermes(name: &str, args: Value) -> String {
    format!(
        "<tool_call>\n{}\n</tool_call>",
        json!({"name": name, "arguments": args})
    )
}

fn row(ground_truth: Value, extra: Value) -> Sample {
    let mut v = json!({"id": "t", "responses_create_params": {"input": "do it"}, "ground_truth": ground_truth});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    Sample::new(v)
}

fn status(id: &str, value: &str) -> Value {
    json!({"customer_id": id, "field": "status", "new_value": value})
}

const UPDATE: &str = "customer_relationship_manager_update_customer";

#[test]
fn responses_items_score_by_state() {
    let e = env();
    let id = first_id(&e, "customers");
    let truth = json!([gt(UPDATE, status(&id, "Won"))]);
    let r = e.score(&row(truth.clone(), json!({"response_output": [fc(UPDATE, status(&id, "Won")), {"type": "message", "content": []}]})));
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    assert_eq!(r.details["source"], "response_output");
    assert_eq!(r.details["calls_executed"], 1);
    assert_eq!(r.details["diff"], Value::Null);
    let r = e.score(&row(
        truth,
        json!({"response_output": [fc(UPDATE, status(&id, "Lost"))]}),
    ));
    assert_eq!(r.score, 0.0);
    assert_eq!(r.details["state_equal"], false);
    assert_eq!(
        r.details["diff"]["table"],
        "customer_relationship_manager_data"
    );
    assert_eq!(r.details["diff"]["predicted"]["status"], "Lost");
    assert_eq!(r.details["diff"]["expected"]["status"], "Won");
    let text_only = json!({"response_output": [{"type": "message"}], "response": hermes(UPDATE, status(&id, "Won"))});
    let r = e.score(&row(json!([gt(UPDATE, status(&id, "Won"))]), text_only));
    assert_eq!(
        (r.score, r.details["source"].clone()),
        (1.0, json!("response"))
    );
}

#[test]
fn equivalent_sequences_and_fixed_errors_count() {
    let e = env();
    let id = first_id(&e, "customers");
    let task = first_id(&e, "tasks");
    let move_task = json!({"task_id": task, "field": "board", "new_value": "Design"});
    let truth = json!([
        gt(UPDATE, status(&id, "Won")),
        gt("project_management_update_task", move_task.clone())
    ]);
    let text = [
        hermes("project_management_update_task", move_task.clone()),
        hermes("analytics_total_visits_count", json!({})),
        hermes(UPDATE, status(&id, "Lead")),
        hermes(UPDATE, status(&id, "won")),
        hermes(UPDATE, status(&id, "Won")),
        hermes("crm_make_coffee", json!({})),
    ]
    .join("\n");
    let cut = e.score(&row(
        truth.clone(),
        json!({"response": format!("<think>{text}")}),
    ));
    assert_eq!(cut.score, 0.0);
    assert!(
        cut.error_message().unwrap().contains("truncated"),
        "{cut:?}"
    );
    let r = e.score(&row(truth, json!({"response": format!("<think>{}</think>{text}", hermes(UPDATE, status(&id, "Lost")))})));
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    assert_eq!(
        r.details["calls_executed"], 6,
        "the call inside <think> is not run"
    );
    let errors = r.details["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0]["call"], 3);
    assert!(errors[0]["error"]
        .as_str()
        .unwrap()
        .starts_with("Status not valid."));
    assert_eq!(
        errors[1]["error"],
        "Error executing tool 'crm_make_coffee': no such tool"
    );
}

#[test]
fn transcripts_replay_like_the_multi_turn_loop() {
    let e = env();
    let email = first_id(&e, "emails");
    let truth = json!([gt(
        "email_reply_email",
        json!({"email_id": email, "body": "Thanks!"})
    )]);
    let turns = [
        hermes(
            "email_get_email_information_by_id",
            json!({"email_id": email, "field": "subject"}),
        ),
        hermes(
            "email_reply_email",
            json!({"email_id": email, "body": "THANKS!"}),
        ),
        "Done: I replied.".to_owned(),
    ];
    let sample = row(truth.clone(), json!({}));
    let mut session = e.start(&sample).unwrap();
    assert_eq!(session.messages, vec![ChatMessage::user("do it")]);
    let mut transcript = vec![json!({"role": "user", "content": "do it"})];
    let mut last = None;
    for turn in &turns {
        transcript.push(json!({"role": "assistant", "content": turn}));
        match e.step(&mut session, turn) {
            Turn::ToolResults(results) => {
                assert_eq!(results.len(), 1);
                assert_eq!(results[0].role, "tool");
                let output: Value = serde_json::from_str(&results[0].content).unwrap();
                assert!(output.get("output").is_some());
                transcript.push(json!({"role": "tool", "content": results[0].content}));
            }
            Turn::Done(reward) => last = Some(reward),
        }
    }
    assert_eq!(session.turns, 3);
    assert_eq!(session.messages.len(), 6);
    let live = last.unwrap();
    assert_eq!(live.score, 1.0, "{:?}", live.details);
    let replay = e.score(&row(truth.clone(), json!({"transcript": transcript})));
    assert_eq!(replay.details["source"], "transcript");
    assert_eq!(replay.score, live.score);
    assert_eq!(replay.details["diff"], live.details["diff"]);
    let chat = json!([{"role": "assistant", "content": null, "tool_calls": [{"type": "function", "function": {"name": "email_reply_email", "arguments": json!({"email_id": email, "body": "Thanks!"}).to_string()}}]}]);
    assert_eq!(e.score(&row(truth, json!({"messages": chat}))).score, 1.0);
}

#[test]
fn limits_end_a_session() {
    let e = WorkplaceEnv::new(seed::workplace(0), 2);
    let mut session = e.start(&row(json!([]), json!({}))).unwrap();
    let call = hermes("analytics_total_visits_count", json!({}));
    assert!(matches!(e.step(&mut session, &call), Turn::ToolResults(_)));
    match e.step(&mut session, &format!("{call}{call}")) {
        Turn::Done(r) => {
            assert_eq!(r.score, 0.0);
            assert!(r.error_message().unwrap().contains("max_calls"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_rows_name_the_problem() {
    let e = env();
    let cases = [
        (json!({"id": "a", "response": "x"}), "missing field `ground_truth`"),
        (json!({"id": "a", "response": "x", "ground_truth": 3}), "field `ground_truth` must be a list of calls, found a number"),
        (json!({"id": "a", "response": "x", "ground_truth": "[oops"}), "field `ground_truth` must be a list of calls or a JSON string holding one, found a string that is not JSON"),
        (json!({"id": "a", "response": "x", "ground_truth": [{"arguments": "{}"}]}), "missing field `ground_truth[0].name`"),
        (json!({"id": "a", "ground_truth": []}), "missing field `response`"),
        (json!({"id": "a", "ground_truth": [], "response_output": {}}), "field `response_output` must be an array, found an object"),
    ];
    for (line, message) in cases {
        let r = e.score(&Sample::new(line));
        assert_eq!((r.score, r.error_message()), (0.0, Some(message)));
    }
    let r = e.score(&Sample::new(json!([1])));
    assert!(r.error_message().is_some());
    let ok = e.score(&row(json!("[]"), json!({"response": "Nothing to do."})));
    assert_eq!(
        ok.score, 1.0,
        "a JSON-string ground_truth; no calls, no change"
    );
}

#[test]
fn huge_and_hostile_responses_are_bounded() {
    let e = env();
    let truth = json!([gt(
        "analytics_create_plot",
        json!({"time_min": "2023-11-01", "time_max": "2023-11-30", "value_to_plot": "total_visits", "plot_type": "bar"})
    )]);
    let big = "word ".repeat(2_000_000);
    let r = e.score(&row(truth.clone(), json!({"response": big})));
    assert_eq!(
        (r.score, r.details["calls_executed"].clone()),
        (0.0, json!(1)),
        "one unreadable turn"
    );
    assert!(r.details["errors"][0]["error"]
        .as_str()
        .unwrap()
        .contains("over the limit"));
    let nested = format!("<tool_call>{}</tool_call>", "[".repeat(100_000));
    let r = e.score(&row(truth.clone(), json!({"response": nested})));
    assert_eq!(r.score, 0.0);
    assert!(r.details["errors"][0]["error"]
        .as_str()
        .unwrap()
        .contains("invalid JSON"));
    let deep_args = format!(
        "<tool_call>{{\"name\": \"email_send_email\", \"arguments\": {}1{}}}</tool_call>",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert_eq!(
        e.score(&row(truth.clone(), json!({"response": deep_args})))
            .score,
        0.0
    );
    let many = hermes("analytics_total_visits_count", json!({})).repeat(10_000);
    let r = e.score(&row(truth.clone(), json!({"response": many})));
    assert_eq!(r.score, 0.0);
    assert_eq!(
        r.error_message(),
        Some("more than 64 tool calls (the max_calls limit)")
    );
    assert_eq!(r.details["calls_found"], 65);
    let items: Vec<Value> = (0..10_000)
        .map(|_| fc("analytics_total_visits_count", json!({})))
        .collect();
    let r = e.score(&row(truth, json!({"response_output": items})));
    assert_eq!(r.details["calls_found"], 65);
}

#[test]
fn loads_gym_layout_csvs_relative_to_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("csv_data");
    std::fs::create_dir_all(data.join("processed")).unwrap();
    std::fs::create_dir_all(data.join("raw")).unwrap();
    let files = [
        ("processed/emails.csv", "email_id,inbox/outbox,sender/recipient,subject,sent_datetime,body\n00000001,inbox,a@x.test,Hi,2023-11-01 09:00:00,\"Hello, there\"\n"),
        ("processed/calendar_events.csv", "event_id,event_name,participant_email,event_start,duration\n"),
        ("processed/analytics_data.csv", "date_of_visit,visitor_id,page_views,session_duration_seconds,traffic_source,user_engaged\n"),
        ("processed/project_tasks.csv", "task_id,task_name,assigned_to_email,list_name,due_date,board\n"),
        ("processed/customer_relationship_manager_data.csv", "customer_id,assigned_to_email,customer_name,customer_email,customer_phone,last_contact_date,product_interest,status,follow_up_by,notes\n"),
        ("raw/email_addresses.csv", "a@x.test\nb@x.test\n"),
    ];
    for (name, text) in files {
        std::fs::write(data.join(name), text).unwrap();
    }
    let config = EnvConfig::from_pairs(["data_dir=csv_data"])
        .unwrap()
        .with_base_dir(dir.path());
    let e = WorkplaceEnv::from_config(&config).unwrap();
    assert_eq!(e.initial.emails.rows()[0][5], "Hello, there");
    let truth = json!([gt(
        "calendar_create_event",
        json!({"event_name": "Kickoff", "participant_email": "b@x.test", "event_start": "2023-12-01 10:00:00", "duration": "30"})
    )]);
    let r = e.score(&row(truth, json!({"response_output": [fc("calendar_create_event", json!({"event_name": "kickoff", "participant_email": "B@X.test", "event_start": "2023-12-01 10:00:00", "duration": "30"}))]})));
    assert_eq!(r.score, 1.0, "{:?}", r.details);
    std::fs::remove_file(data.join("processed/project_tasks.csv")).unwrap();
    let err = WorkplaceEnv::from_config(&config).unwrap_err().to_string();
    assert!(err.contains("no project_tasks.csv"), "{err}");
    let bad = EnvConfig::from_pairs(["max_turns=3"]).unwrap();
    assert!(WorkplaceEnv::from_config(&bad).is_err());
}

mod property {
    use super::*;
    use proptest::prelude::*;

    fn turn() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec![
            "email_send_email",
            "email_delete_email",
            UPDATE,
            "calendar_create_event",
            "nope",
            "",
        ]);
        let args = prop_oneof![
            Just("{}".to_owned()),
            "[a-z\"{}:, 0-9\\[\\]]{0,40}",
            Just(r#"{"recipient": "a@b.test", "subject": "s", "body": "b"}"#.to_owned()),
        ];
        let call = (name, args).prop_map(|(n, a)| {
            format!("<tool_call>{{\"name\": \"{n}\", \"arguments\": {a}}}</tool_call>")
        });
        prop_oneof![call, "\\PC{0,60}"]
    }

    proptest! {
        #[test]
        fn never_panics_and_is_deterministic(turns in prop::collection::vec(turn(), 0..6), truth in "\\PC{0,30}") {
            let e = env();
            let response = turns.join("\n");
            let truth = serde_json::from_str::<Value>(&truth).unwrap_or(Value::String(truth));
            let s = row(json!([{"name": "email_send_email", "arguments": truth}]), json!({"response": response}));
            let a = serde_json::to_string(&e.score(&s)).unwrap();
            let b = serde_json::to_string(&e.score(&s)).unwrap();
            prop_assert_eq!(&a, &b);
            let r = e.score(&s);
            prop_assert!(r.score == 0.0 || r.score == 1.0);
            let mut session = e.start(&row(json!([]), json!({}))).unwrap();
            for t in &turns {
                if let Turn::Done(_) = e.step(&mut session, t) { break; }
            }
        }
    }
}

/// vLLM without a tool parser sends the calls in the text and `tool_calls: []`.
#[test]
fn text_calls_are_read_when_tool_calls_is_empty() {
    let e = env();
    let id = first_id(&e, "customers");
    let truth = json!([gt(UPDATE, status(&id, "Won"))]);
    let chat = json!([{"role": "assistant", "content": hermes(UPDATE, status(&id, "Won")), "tool_calls": []}]);
    let r = e.score(&row(truth, json!({"messages": chat})));
    assert_eq!(r.score, 1.0, "{:?}", r.details);
}

/// A row whose reference calls fail against the state (records it lacks) is refused
/// by id: a do-nothing answer must not score 1.
#[test]
fn rows_whose_reference_fails_are_refused_by_id() {
    let e = env();
    let truth = json!([gt(UPDATE, status("99999999", "Won"))]);
    let r = e.score(&row(truth.clone(), json!({"id": 41, "response": "Done."})));
    assert_eq!(r.score, 0.0);
    assert_eq!(r.details["refused"], true);
    let message = r.error_message().unwrap();
    assert!(
        message.starts_with("row 41: its reference calls fail"),
        "{message}"
    );
    assert!(
        e.start(&row(truth, json!({}))).is_err(),
        "no session either"
    );
}

/// Gym's rows (environment_name workplace_assistant, or an agent_ref) start from Gym's
/// state, read from the folder `scripts/setup` fills; cascade's rows from the seed.
#[test]
fn gym_rows_start_from_gyms_state() {
    let dir = tempfile::tempdir().unwrap();
    let e = env().with_gym_state(dir.path().join("absent"));
    let id = first_id(&e, "customers");
    let truth = json!([gt(UPDATE, status(&id, "Won"))]);
    let ours = row(
        truth.clone(),
        json!({"response_output": [fc(UPDATE, status(&id, "Won"))]}),
    );
    assert_eq!(e.score(&ours).score, 1.0);
    for marker in [
        json!({"environment_name": "workplace_assistant"}),
        json!({"agent_ref": {"name": "workplace_assistant_simple_agent"}}),
    ] {
        let mut gym = ours.value().clone();
        for (k, v) in marker.as_object().unwrap() {
            gym[k] = v.clone();
        }
        let r = e.score(&Sample::new(gym));
        assert_eq!(r.score, 0.0);
        assert!(
            r.error_message().unwrap().contains("run scripts/setup"),
            "{:?}",
            r.details
        );
    }
    // With Gym's CSVs installed (scripts/setup), Gym's example rows score by them.
    let installed = gym_data_dir();
    if installed.join("processed/emails.csv").is_file() {
        let e = env();
        let gym = json!({"id": 0, "environment_name": "workplace_assistant",
            "responses_create_params": {"input": "Reply."},
            "ground_truth": [{"name": "email_reply_email", "arguments": "{\"email_id\": \"00000057\", \"body\": \"Thanks\"}"}]});
        let mut sample = Sample::new(gym.clone());
        assert_eq!(
            e.score(&sample.with_field("response", json!("Done.")))
                .score,
            0.0
        );
        sample = sample.with_field(
            "response_output",
            json!([fc(
                "email_reply_email",
                json!({"email_id": "00000057", "body": "Thanks"})
            )]),
        );
        assert_eq!(e.score(&sample).score, 1.0);
    }
}
