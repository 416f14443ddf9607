//! The `genrm` env against a scripted HTTP judge on loopback (the transport, retries
//! and aggregation); `trainer/tests/genrm.rs` runs it against a real model served
//! by transformers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::*;

/// A judge answering `/v1/chat/completions` with `answer(request body)` as
/// `(status, content)`; every body it received is kept.
struct ScriptedJudge {
    url: String,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedJudge {
    fn start(answer: impl Fn(&Value, usize) -> (u16, String) + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let answer = Arc::new(answer);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let seen = Arc::clone(&seen);
                let answer = Arc::clone(&answer);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                            break;
                        }
                        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                            length = v.trim().parse().unwrap();
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let body: Value = serde_json::from_slice(&body).unwrap();
                    let n = {
                        let mut seen = seen.lock().unwrap();
                        seen.push(body.clone());
                        seen.len()
                    };
                    let (status, content) = answer(&body, n);
                    let reply = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
                        .to_string();
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                        reply.len()
                    );
                });
            }
        });
        Self { url, requests }
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

fn env(url: &str, extra: Value) -> GenRmEnv {
    let mut table = json!({"endpoint": url, "model": "judge", "retries": 1});
    table
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    GenRmEnv::new(serde_json::from_value(table).unwrap()).unwrap()
}

fn samples(responses: &[&str]) -> Vec<Sample> {
    responses
        .iter()
        .map(|r| Sample::new(json!({"prompt": "Say something good.", "response": r})))
        .collect()
}

/// The content of the message of `role` in a request.
fn content<'a>(body: &'a Value, role: &str) -> &'a str {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == role)
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
}

/// Scores 5 for a response containing "good", else 2; ranking 3.5 (no preference).
fn keyword_judge(body: &Value, _: usize) -> (u16, String) {
    let score = |role| {
        if content(body, role).contains("good") {
            5
        } else {
            2
        }
    };
    let verdict =
        json!({"score_1": score("response_1"), "score_2": score("response_2"), "ranking": 3.5});
    (200, format!("Analysis… {verdict}"))
}

#[test]
fn a_group_is_judged_in_circular_pairs_with_genrm_roles() {
    let judge = ScriptedJudge::start(keyword_judge);
    let env = env(&judge.url, json!({}));
    let rewards = env.score_group(&samples(&[
        "a good one",
        "meh",
        "<think>good?</think>bad",
        "good",
    ]));
    let scores: Vec<f64> = rewards
        .iter()
        .map(|r| r.details["genrm_score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores, vec![5.0, 2.0, 2.0, 5.0], "{rewards:?}");
    assert!(rewards[0].score > rewards[1].score);
    assert!(rewards.iter().all(|r| r.details["comparisons"] == 2));
    let requests = judge.requests();
    assert_eq!(requests.len(), 4);
    let body = &requests[0];
    assert_eq!(body["model"], "judge");
    assert_eq!(body["temperature"], 0.0);
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "response_1", "response_2"]);
    // The reasoning is not shown to the judge.
    assert!(requests.iter().any(|b| content(b, "response_2") == "bad"));
}

#[test]
fn a_response_cut_off_while_thinking_is_not_judged() {
    let judge = ScriptedJudge::start(keyword_judge);
    let env = env(&judge.url, json!({}));
    let rewards = env.score_group(&samples(&["good", "<think>good good", "meh"]));
    assert_eq!(rewards[1].score, 0.0);
    assert!(
        rewards[1].error_message().unwrap().contains("truncated"),
        "{rewards:?}"
    );
    assert!(rewards[0].score > rewards[2].score);
    assert!(judge
        .requests()
        .iter()
        .all(|b| !content(b, "response_1").contains("good good")
            && !content(b, "response_2").contains("good good")));
}

#[test]
fn user_prompt_messages_and_extra_body_reach_the_judge() {
    let judge = ScriptedJudge::start(|_, _| {
        (
            200,
            "{\"score_1\": 3, \"score_2\": 3, \"ranking\": 1}".into(),
        )
    });
    let env = env(
        &judge.url,
        json!({"messages": "user_prompt", "comparison": "all_pairs", "extra_body": {"structured_outputs": {"json": {}}}}),
    );
    let rewards = env.score_group(&samples(&["x", "y"]));
    // A tie broken by ranking 1: response 1 gets 3 + 2.5, response 2 gets 3 − 2.5.
    assert_eq!(rewards[0].details["genrm_score"], 5.5);
    assert_eq!(rewards[1].details["genrm_score"], 0.5);
    let body = &judge.requests()[0];
    assert_eq!(body["messages"].as_array().unwrap().len(), 1);
    let prompt = content(body, "user");
    assert!(
        prompt.contains("Say something good.") && prompt.contains("[Response 2]\ny"),
        "{prompt}"
    );
    assert!(body["structured_outputs"].is_object());
}

#[test]
fn server_errors_are_retried_and_refusals_are_not() {
    let flaky = ScriptedJudge::start(|body, n| {
        if n == 1 {
            (503, "busy".into())
        } else {
            keyword_judge(body, n)
        }
    });
    let rewards = env(&flaky.url, json!({})).score_group(&samples(&["good", "bad"]));
    assert_eq!(flaky.requests().len(), 2);
    assert_eq!(rewards[0].details["judge_failures"], 0);
    assert_eq!(rewards[0].details["genrm_score"], 5.0);

    let refusing = ScriptedJudge::start(|_, _| (400, "unknown role response_1".into()));
    let rewards = env(&refusing.url, json!({})).score_group(&samples(&["good", "bad"]));
    assert_eq!(refusing.requests().len(), 1, "a 400 is not retried");
    // No judge answered for either response: no verdict on the model, a failure.
    for r in &rewards {
        assert_eq!(r.details["judge_failures"], 1);
        assert!(r.is_failed(), "{r:?}");
        assert!(r.details.get("genrm_score").is_none(), "{r:?}");
        assert!(
            r.details["error"].as_str().unwrap().contains("HTTP 400"),
            "{r:?}"
        );
        assert_eq!(r.score, 0.0, "a failure's placeholder score");
    }
}

#[test]
fn answers_without_a_verdict_fail_only_their_comparisons() {
    // Comparisons that show "bad" as response 1 get prose without JSON.
    let judge = ScriptedJudge::start(|body, n| {
        if content(body, "response_1") == "bad" {
            (200, "I cannot decide.".into())
        } else {
            keyword_judge(body, n)
        }
    });
    let rewards = env(&judge.url, json!({})).score_group(&samples(&["good", "bad", "good too"]));
    // Pairs (0,1), (1,2) [fails twice: 1 retry], (2,0).
    assert_eq!(judge.requests().len(), 4);
    assert_eq!(rewards[1].details["judge_failures"], 1);
    assert!(rewards[1].details["judge_error"]
        .as_str()
        .unwrap()
        .contains("no verdict"));
    assert_eq!(rewards[1].details["comparisons"], 1);
    assert_eq!(rewards[1].details["genrm_score"], 2.0);
    assert_eq!(rewards[0].details["comparisons"], 2);
}

#[test]
fn samples_without_a_response_get_reward_zero_and_stay_out() {
    let judge = ScriptedJudge::start(keyword_judge);
    let mut group = samples(&["good", "bad"]);
    group.insert(1, Sample::new(json!({"prompt": "Say something good."})));
    let rewards = env(&judge.url, json!({})).score_group(&group);
    assert_eq!(rewards.len(), 3);
    assert!(
        rewards[1].error_message().unwrap().contains("response"),
        "{:?}",
        rewards[1]
    );
    assert_eq!(judge.requests().len(), 1);
    assert_eq!(rewards[2].details["genrm_score"], 2.0);
    // Alone, a sample cannot be judged.
    assert!(env(&judge.url, json!({}))
        .score(&group[0])
        .error_message()
        .unwrap()
        .contains("group"));
}

#[test]
fn bad_settings_are_refused_naming_them() {
    let make = |table: Value| {
        GenRmEnv::new(serde_json::from_value(table).unwrap())
            .unwrap_err()
            .to_string()
    };
    assert!(make(json!({"endpoint": "https://x/v1", "model": "m"})).contains("http://"));
    assert!(make(
        json!({"endpoint": "http://x/v1", "model": "m", "api_key_env": "CASCADE_NO_SUCH_KEY"})
    )
    .contains("CASCADE_NO_SUCH_KEY"));
    assert!(
        make(json!({"endpoint": "http://x/v1", "model": "m", "default_score": 9}))
            .contains("default_score")
    );
    let unknown = serde_json::from_value::<GenRmConfig>(
        json!({"endpoint": "http://x", "model": "m", "judges": 2}),
    );
    assert!(unknown.unwrap_err().to_string().contains("judges"));
}

#[test]
fn group_rewards_map_the_score_range_onto_zero_to_one() {
    assert_eq!(unit_reward(SCORE_RANGE.0), 0.0);
    assert_eq!(unit_reward(SCORE_RANGE.1), 1.0);
    assert_eq!(unit_reward(3.0), 0.5);
}
