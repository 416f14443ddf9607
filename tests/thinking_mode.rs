//! Every environment grades the final answer only (SPEC: the text after the last
//! `</think>`), checked on every bundled sample whose response is text, through
//! `cascade score`:
//! - **closed thinking** full of candidates of every kind (a boxed number, an answer
//!   line, a fenced program, a diff, a tool call, JSON) scores exactly as the bare
//!   response does;
//! - **the response inside the thinking** and another final answer after it scores
//!   exactly as that final answer alone does: no candidate is taken from the thinking;
//! - **unclosed thinking** (cut off) has no final answer: reward 0 and `details.error`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Candidates a careless extractor would take from the thinking.
const DECOYS: &str = "Maybe the answer is 42, so \\boxed{42}. Answer: B\n\
```python\nprint(42)\n```\n\
```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```\n\
<tool_call>{\"name\": \"get\", \"arguments\": {\"key\": \"a\"}}</tool_call>\n\
{\"name\": \"Ann\", \"age\": 3}\nFinal Answer: [1, 2]";

/// A final answer that follows thinking which held the real response.
const OTHER_FINAL: &str = "I am not sure.";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn score(env: &str, dir: &Path, rows: &[Value]) -> Vec<Value> {
    let input = dir.join("variants.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&input, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
        .args(["score", "--env", env, "--jobs", "2", "--input"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{env}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        rows.len(),
        "{env}: one result line per input line"
    );
    lines
}

fn with_response(row: &Value, response: String) -> Value {
    let mut row = row.clone();
    row["response"] = Value::String(response);
    row
}

/// The bundled rows of `env` whose response is text, with four variants each:
/// bare, closed thinking of decoys, the response inside thinking then
/// [`OTHER_FINAL`], [`OTHER_FINAL`] bare, and unclosed thinking.
fn variants(env_dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(env_dir.join("sample.jsonl")).unwrap();
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).unwrap();
        let Some(response) = row.get("response").and_then(Value::as_str) else {
            continue;
        };
        rows.push(with_response(&row, response.to_owned()));
        rows.push(with_response(
            &row,
            format!("<think>\n{DECOYS}\n</think>\n\n{response}"),
        ));
        rows.push(with_response(
            &row,
            format!("<think>\n{response}\n</think>\n\n{OTHER_FINAL}"),
        ));
        rows.push(with_response(&row, OTHER_FINAL.to_owned()));
        let cut_off = response.replace("</think>", "");
        rows.push(with_response(&row, format!("<think>\n{cut_off}")));
    }
    rows
}

fn reward(line: &Value) -> Option<f64> {
    line["reward"].as_f64()
}

fn check_env(env: &str, lines: &[Value]) {
    for five in lines.chunks(5) {
        let [bare, closed, inside, other, unclosed] = five else {
            unreachable!()
        };
        let id = &bare["id"];
        // Calls read from output items (not the text) are graded without the text.
        if bare["details"]["source"]
            .as_str()
            .is_some_and(|s| s != "response")
        {
            continue;
        }
        assert_eq!(
            reward(closed),
            reward(bare),
            "{env} {id}: closed thinking of decoys"
        );
        assert_eq!(
            closed["details"], bare["details"],
            "{env} {id}: closed thinking changes the details"
        );
        assert_eq!(
            reward(inside),
            reward(other),
            "{env} {id}: answer inside thinking"
        );
        assert_eq!(reward(unclosed), Some(0.0), "{env} {id}: unclosed thinking");
        // A malformed row keeps its own error; any other names the cut-off thinking.
        let error = unclosed["details"]["error"].as_str().unwrap_or_default();
        let row_error = bare["details"]["error"].is_string();
        assert!(
            error.contains("think") || (row_error && !error.is_empty()),
            "{env} {id}: unclosed error: {unclosed}"
        );
    }
}

#[test]
fn every_environment_grades_only_the_final_answer_after_thinking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets");
    let mut covered = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let env = entry.file_name().to_string_lossy().into_owned();
        if !entry.path().join("sample.expected.jsonl").exists() {
            continue;
        }
        let rows = variants(&entry.path());
        if rows.is_empty() {
            continue;
        }
        // A copy of the folder: rows may name files beside them (swe's repositories).
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&entry.path(), dir.path());
        check_env(&env, &score(&env, dir.path(), &rows));
        covered.push(env);
    }
    eprintln!("graded after thinking: {covered:?}");
    let expected = [
        "code",
        "ifeval",
        "math",
        "mcqa",
        "structured_output",
        "swe",
        "tool_call",
    ];
    for env in expected {
        assert!(
            covered.iter().any(|c| c == env),
            "{env} not covered: {covered:?}"
        );
    }
}
