//! The workplace task generator: reproducible rows in NeMo Gym's layout
//! (`responses_create_params` with the system and user messages and the 27 tools,
//! `ground_truth` calls with JSON-string arguments, `category`, `environment_name`, plus
//! the `id` cascade scores by) over the workplace cascade generates from seed 0 (the
//! `workplace` environment's default state).
//!
//! Tasks: send an email to a colleague, move a task to another board or list, delete a
//! task, schedule a meeting, look up a customer and change their status or owner, and
//! a two-step one (close a deal and thank the customer by email). Every reference call
//! succeeds on that state and changes it. Same `(count, seed)`, same bytes.

mod tasks;

use serde_json::{json, Value};

use cascade_verifiers::seeded::SplitMix64;
use cascade_verifiers::workplace::{seed, tool_schemas};

/// The system message of every row: the fixed "now" the tools use.
pub const SYSTEM: &str = "Today is Thursday, 2023-11-30, and the time is 23:59:00. Use the tools to carry out the request. Meetings start at 9:00 or later and end by 18:00.";

/// The seed of the workplace state the rows are written against.
pub const STATE_SEED: u64 = 0;

/// `count` rows from `seed`.
pub fn generate(count: usize, seed: u64) -> Vec<Value> {
    let state = seed::workplace(STATE_SEED);
    let tools = Value::Array(tool_schemas());
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|i| {
            let task = tasks::draw(&mut rng, &state);
            let ground_truth: Vec<Value> = task
                .calls
                .iter()
                .map(|(name, args)| json!({"name": name, "arguments": args.to_string()}))
                .collect();
            json!({
                "id": format!("workplace-{seed}-{i}"),
                "responses_create_params": {
                    "input": [
                        {"role": "system", "content": SYSTEM},
                        {"role": "user", "content": task.prompt},
                    ],
                    "tools": tools,
                    "parallel_tool_calls": false,
                },
                "ground_truth": ground_truth,
                "category": format!("workplace_{}", task.kind),
                "environment_name": "workplace",
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cascade_verifiers::workplace::{first_difference, Arguments, Call};

    #[test]
    fn same_seed_same_rows_and_every_reference_call_works() {
        let rows = generate(120, 7);
        assert_eq!(rows, generate(120, 7));
        assert_ne!(rows, generate(120, 8));
        let initial = seed::workplace(STATE_SEED);
        let mut kinds = std::collections::BTreeSet::new();
        for row in &rows {
            kinds.insert(row["category"].as_str().unwrap().to_owned());
            let mut state = initial.clone();
            for call in row["ground_truth"].as_array().unwrap() {
                let call = Call {
                    name: call["name"].as_str().unwrap().to_owned(),
                    arguments: Arguments::Text(call["arguments"].as_str().unwrap().to_owned()),
                };
                let result = state.execute(&call);
                assert_eq!(result.error, None, "{row}");
            }
            assert!(first_difference(&state, &initial).is_some(), "{row}");
        }
        assert_eq!(kinds.len(), tasks::KINDS, "{kinds:?}");
    }
}
