//! Needle retrieval (RULER's NIAH family) and variable tracking (RULER's `vt`): the
//! needles are sentences woven into filler at depths drawn from the seed; the answer
//! is the set of values (or variable names) the question asks for.

use serde_json::{json, Value};

use cascade_verifiers::long_context::Task;
use cascade_verifiers::seeded::SplitMix64;

use super::text::{self, CAPITALS, LOWERCASE};
use super::Built;

/// How many keys, values and distractors a needle task has.
struct Layout {
    asked_keys: usize,
    values_per_key: usize,
    distractors: usize,
}

fn layout(task: Task, rng: &mut SplitMix64) -> Layout {
    let (asked_keys, values_per_key, distractors) = match task {
        Task::NiahMultikey => (1, 1, rng.range(2, 4) as usize),
        Task::NiahMultivalue => (1, rng.range(2, 4) as usize, 0),
        Task::NiahMultiquery => (rng.range(2, 3) as usize, 1, rng.range(1, 2) as usize),
        _ => (1, 1, 0),
    };
    Layout {
        asked_keys,
        values_per_key,
        distractors,
    }
}

/// A needle task with `size` filler sentences. Full: RULER-like wording, keys such as
/// `golden-harbor` and 7-digit values. Terse (small models): `q=37. ` needles with a
/// one-letter key and a 1–2 digit value, and `q=?` as the whole question.
pub(super) fn needles(task: Task, size: usize, rng: &mut SplitMix64, terse: bool) -> Built {
    let layout = layout(task, rng);
    let mut keys: Vec<String> = Vec::new();
    let (mut values, mut expected): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for _ in 0..layout.asked_keys + layout.distractors {
        let key = if terse {
            text::distinct(rng, LOWERCASE, 1, &keys)
        } else {
            text::key(rng, &keys)
        };
        keys.push(key);
    }
    for (k, key) in keys.iter().enumerate() {
        let per_key = if k < layout.asked_keys {
            layout.values_per_key
        } else {
            1
        };
        for _ in 0..per_key {
            let value = if terse {
                text::number(rng, 1, 2, &values)
            } else {
                text::number(rng, 7, 7, &values)
            };
            let needle = if terse {
                format!("{key}={value}. ")
            } else {
                format!("One of the special magic numbers for {key} is: {value}. ")
            };
            inserts.push((rng.below(size + 1), needle));
            if k < layout.asked_keys {
                expected.push(value.clone());
            }
            values.push(value);
        }
    }
    let filler = text::sentences(rng, size, terse);
    let haystack = text::weave(&filler, inserts);
    let asked = &keys[..layout.asked_keys];
    let content = if terse {
        format!("{haystack}\n{}=?", asked.join(","))
    } else {
        format!(
            "Some special magic numbers are hidden within the following text. Make sure to memorize them: I will quiz you about them afterwards.\n\n{haystack}\n\nWhat are all the special magic numbers for {} mentioned in the text above? Answer with the numbers only.",
            list(asked)
        )
    };
    Built::user(content).with("expected_answer", json!(expected))
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Variable tracking with `size` filler sentences: one asked chain `VAR A = v`,
/// `VAR B = VAR A`, … and 1–2 distractor chains with other values, each chain's
/// statements in order; the answer is every variable of the asked chain.
pub(super) fn variables(size: usize, rng: &mut SplitMix64) -> Built {
    let chains = rng.range(2, 3) as usize;
    let (mut names, mut values, mut expected): (Vec<String>, Vec<String>, Vec<String>) =
        (Vec::new(), Vec::new(), Vec::new());
    let mut statements: Vec<(usize, String)> = Vec::new();
    for chain in 0..chains {
        let value = text::number(rng, 5, 5, &values);
        values.push(value.clone());
        let mut source = value;
        for hop in 0..rng.range(2, 4) {
            let name = text::distinct(rng, CAPITALS, 5, &names);
            names.push(name.clone());
            let rhs = if hop == 0 {
                source.clone()
            } else {
                format!("VAR {source}")
            };
            statements.push((chain, format!("VAR {name} = {rhs}. ")));
            if chain == 0 {
                expected.push(name.clone());
            }
            source = name;
        }
    }
    // Each chain keeps its order: sorted positions, dealt to chains in a shuffled
    // order of their statements.
    let mut positions: Vec<usize> = (0..statements.len()).map(|_| rng.below(size + 1)).collect();
    positions.sort_unstable();
    let order = interleave(&statements, rng);
    let inserts: Vec<(usize, String)> = order
        .into_iter()
        .zip(positions)
        .map(|(s, at)| (at, statements[s].1.clone()))
        .collect();
    let filler = text::sentences(rng, size, false);
    let haystack = text::weave(&filler, inserts);
    let content = format!(
        "Memorize and track the chains of variable assignments hidden in the following text.\n\n{haystack}\n\nQuestion: find all variables that are assigned the value {} in the text above. Answer with the variable names only.",
        values[0]
    );
    Built::user(content).with("expected_answer", Value::from(expected))
}

/// Indices of `statements` in a random interleaving that keeps each chain's order.
fn interleave(statements: &[(usize, String)], rng: &mut SplitMix64) -> Vec<usize> {
    let mut queues: Vec<Vec<usize>> = Vec::new();
    for (i, (chain, _)) in statements.iter().enumerate() {
        if queues.len() <= *chain {
            queues.resize(chain + 1, Vec::new());
        }
        queues[*chain].push(i);
    }
    queues.iter_mut().for_each(|q| q.reverse());
    let mut order = Vec::with_capacity(statements.len());
    while order.len() < statements.len() {
        let live: Vec<usize> = (0..queues.len())
            .filter(|&q| !queues[q].is_empty())
            .collect();
        let q = *rng.pick(&live);
        order.extend(queues[q].pop());
    }
    order
}
