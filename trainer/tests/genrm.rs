//! The `genrm` judge against a real model served over HTTP on loopback: a random
//! tiny Qwen2 in transformers behind an OpenAI-compatible endpoint
//! (`fixtures/judge_server.py`). Its verdicts are the model's own comparison of the
//! pair (the likelier response wins), so they depend on the responses shown, and the
//! env's pairs, aggregation and reproducibility are checked against what the server
//! logged. Then a GRPO stage trains against the judge, and its responses beat the
//! base model's in the judge's eyes.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use cascade_envs::{EnvConfig, Registry, Sample};
use cascade_trainer::recipe::Recipe;
use serde_json::{json, Value};

/// The judge server, killed when dropped.
struct Judge {
    child: Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Judge {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("requests.jsonl");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut child = Command::new(common::python())
            .arg(fixtures.join("judge_server.py"))
            .arg("--model")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tiny-chatml"))
            .args([
                "--random-init",
                "--seed",
                "3",
                "--likelihood-verdicts",
                "--log",
            ])
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run {:?} (run scripts/setup): {e}", common::python())
            });
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the judge's first line");
        let port = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("judge_server.py said {line:?}"));
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/v1"),
            log,
            _dir: dir,
        }
    }

    /// Every request the judge answered, with its answer.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect()
    }
}

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn judge_config(url: &str) -> Value {
    json!({"endpoint": url, "model": "tiny-judge", "retries": 0})
}

fn group(responses: &[&str]) -> Vec<Sample> {
    responses
        .iter()
        .map(|r| Sample::new(json!({"prompt": "Say bird.", "response": r})))
        .collect()
}

fn content<'a>(request: &'a Value, role: &str) -> &'a str {
    request["request"]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == role)
        .and_then(|m| m["content"].as_str())
        .expect("role present")
}

#[test]
fn a_real_judge_scores_groups_as_its_verdicts_say_and_reproducibly() {
    let judge = Judge::start();
    let registry = Registry::discover().expect("registry");
    let config = EnvConfig::new(judge_config(&judge.url).as_object().unwrap().clone());
    let env = registry.create("genrm", &config).expect("genrm env");
    let group_env = env.group().expect("genrm scores groups");
    let responses = ["The bird is here.", "I like the sun.", "bird bird", "No."];
    let first = group_env.score_group(&group(&responses));
    let again = group_env.score_group(&group(&responses));
    assert_eq!(
        first, again,
        "the same group scores the same, byte for byte"
    );

    // Circular pairs (0,1), (1,2), (2,3), (3,0), each shown as response_1 then 2
    // (requests run concurrently, so the log is in the order they were answered).
    let requests = judge.requests();
    assert_eq!(requests.len(), 8);
    let index = |text: &str| {
        responses
            .iter()
            .position(|r| *r == text)
            .expect("a response")
    };
    let mut shown: Vec<(usize, usize)> = requests[..4]
        .iter()
        .map(|r| {
            (
                index(content(r, "response_1")),
                index(content(r, "response_2")),
            )
        })
        .collect();
    shown.sort();
    assert_eq!(shown, [(0, 1), (1, 2), (2, 3), (3, 0)]);
    let mut sums = [0.0; 4];
    for request in &requests[..4] {
        let (i, j) = (
            index(content(request, "response_1")),
            index(content(request, "response_2")),
        );
        assert_eq!(content(request, "user"), "Say bird.");
        let verdict: Value = serde_json::from_str(request["content"].as_str().unwrap()).unwrap();
        let (mut s1, mut s2) = (
            verdict["score_1"].as_f64().unwrap(),
            verdict["score_2"].as_f64().unwrap(),
        );
        if s1 == s2 {
            let adjustment = 3.5 - verdict["ranking"].as_f64().unwrap();
            s1 += adjustment;
            s2 -= adjustment;
        }
        sums[i] += s1;
        sums[j] += s2;
    }
    for (k, reward) in first.iter().enumerate() {
        assert_eq!(
            reward.details["genrm_score"].as_f64().unwrap(),
            sums[k] / 2.0,
            "{first:?}"
        );
        assert_eq!(reward.details["judge_failures"], 0);
        assert!((0.0..=1.0).contains(&reward.score));
    }
    let distinct: std::collections::BTreeSet<String> = requests
        .iter()
        .map(|r| r["content"].as_str().unwrap().to_owned())
        .collect();
    println!(
        "verdicts: {distinct:?}; rewards: {:?}",
        first.iter().map(|r| r.score).collect::<Vec<_>>()
    );

    // Asked in one user message, the random model writes free text without a
    // verdict: the comparisons fail, are counted and explained, and every response
    // is a scoring failure (no verdict on the model, left out by GRPO), not a score.
    let mut free = judge_config(&judge.url);
    free["messages"] = json!("user_prompt");
    free["max_tokens"] = json!(8);
    let env = registry
        .create("genrm", &EnvConfig::new(free.as_object().unwrap().clone()))
        .expect("genrm env");
    let rewards = env.group().unwrap().score_group(&group(&responses[..2]));
    for reward in &rewards {
        assert_eq!(reward.details["judge_failures"], 1, "{reward:?}");
        assert!(reward.is_failed(), "{reward:?}");
        assert!(reward.details["error"]
            .as_str()
            .unwrap()
            .contains("no verdict"));
        assert!(reward.details.get("genrm_score").is_none(), "{reward:?}");
    }
}

const RECIPE: &str = r#"
[run]
model = "../trainer/assets/tiny-chatml"
init = "random"
seed = 0
device = "cpu"
threads = 1
eval_max_new_tokens = 12

[[eval]]
domain = "genrm"
dataset = "../datasets/rlhf/keyword.eval.jsonl"
limit = 8
config = JUDGE

[[stage]]
name = "rlhf"
algorithm = "grpo"
steps = 12
lr = 1e-3
prompts_per_step = 2
group_size = 4
max_new_tokens = 12
[[stage.env]]
name = "genrm"
dataset = "../datasets/rlhf/keyword.train.jsonl"
config = JUDGE
"#;

/// `value` as a TOML inline table.
fn toml_inline(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k} = {}", toml_inline(v)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_inline).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

#[test]
fn grpo_trains_against_the_judge_and_the_eval_is_its_win_rate() {
    let judge = Judge::start();
    let text = RECIPE.replace("JUDGE", &toml_inline(&judge_config(&judge.url)));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/genrm-test.toml");
    let recipe = Recipe::parse(&text, &path).expect("recipe");
    let out = tempfile::tempdir().expect("temp dir");
    let mut printed = Vec::new();
    let record = common::run_fresh(&recipe, out.path(), &mut printed);
    let printed = String::from_utf8_lossy(&printed);

    let lines: Vec<Value> = common::metrics(out.path())
        .into_iter()
        .filter(|l| l["stage"] == "rlhf")
        .collect();
    assert_eq!(lines.len(), 12);
    for line in &lines {
        let reward = line["reward_mean"].as_f64().expect("reward_mean");
        assert!((0.0..=1.0).contains(&reward), "{line}");
    }
    // 12 steps × 2 groups × 4 circular pairs, then at most 8 eval pairs after the
    // stage (the base model's responses are the baseline, and an unchanged response
    // is a tie the judge is not asked about).
    let requests = judge.requests();
    assert!(
        (96..=104).contains(&requests.len()),
        "{} requests\n{printed}",
        requests.len()
    );
    assert!(!requests
        .iter()
        .any(|r| r["content"].as_str().unwrap().is_empty()));
    assert_eq!(record.stages[0].scores["genrm"], 0.5, "{printed}");
    // The judge's comparisons are zero-sum (scores 3 ± k), so every group's mean
    // reward is 0.5 and the signal is in the spread; the stage learns what the
    // judge prefers, and its greedy responses beat the base model's.
    let win_rate = record.stages[1].scores["genrm"];
    assert!(win_rate >= 0.75, "win rate {win_rate}\n{printed}");
    println!("{printed}");
}
