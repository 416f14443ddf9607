//! The IF-RL prompt generator: a reproducible training set of any size in IFEval's
//! JSONL layout (`key`, `prompt`, `instruction_id_list`, `kwargs`, plus `id`).
//!
//! Each prompt is a base writing task (a bundled list written for cascade) with
//! 1–3 compatible instructions appended, their arguments drawn from the seed.
//! Pairs IFEval marks as conflicting (lowercase with capital words, JSON with a
//! title, …) are never drawn together. Same `(count, seed)`, same bytes.

mod instructions;
mod tasks;

use serde_json::{json, Value};

use cascade_verifiers::seeded::SplitMix64;
pub use instructions::{conflicts, IDS};
pub use tasks::BASE_TASKS;

/// One generated row, in IFEval's layout plus the `id` cascade scores by.
fn generate_row(rng: &mut SplitMix64, index: usize, seed: u64) -> Value {
    let task = *rng.pick(BASE_TASKS);
    let wanted = rng.range(1, 3) as usize;
    let mut ids: Vec<&str> = Vec::with_capacity(wanted);
    // Draw in a shuffled order and keep each id compatible with those kept.
    let mut pool: Vec<&str> = IDS.to_vec();
    while ids.len() < wanted && !pool.is_empty() {
        let id = pool.swap_remove(rng.below(pool.len()));
        if ids.iter().all(|kept| !conflicts(kept, id)) {
            ids.push(id);
        }
    }
    let mut prompt = task.to_owned();
    let mut kwargs = Vec::with_capacity(ids.len());
    for id in &ids {
        let (args, description) = instructions::draw(id, rng, task);
        prompt.push(' ');
        prompt.push_str(&description);
        kwargs.push(args);
    }
    json!({
        "key": index,
        "id": format!("ifrl-{seed}-{index}"),
        "prompt": prompt,
        "instruction_id_list": ids,
        "kwargs": kwargs,
    })
}

/// `count` rows from `seed`.
pub fn generate(count: usize, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|i| generate_row(&mut rng, i, seed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_rows_and_no_conflicts() {
        let a = generate(200, 42);
        assert_eq!(a, generate(200, 42));
        assert_ne!(a, generate(200, 43));
        for row in &a {
            let ids: Vec<&str> = row["instruction_id_list"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert!((1..=3).contains(&ids.len()));
            for (i, x) in ids.iter().enumerate() {
                for y in &ids[i + 1..] {
                    assert!(!conflicts(x, y), "{x} with {y}");
                }
            }
            assert_eq!(row["kwargs"].as_array().unwrap().len(), ids.len());
        }
    }

    #[test]
    fn every_row_is_accepted_by_the_verifier() {
        for row in generate(500, 7) {
            let ids = row["instruction_id_list"].as_array().unwrap();
            let kwargs = row["kwargs"].as_array().unwrap();
            if let Err(e) = cascade_verifiers::ifeval::parse_list(ids, kwargs) {
                panic!("{row}: {e}");
            }
        }
    }
}
