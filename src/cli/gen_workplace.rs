//! `cascade gen-workplace`: writes reproducible workplace tool-use tasks in NeMo Gym's
//! row layout (see `cascade_datasets::workplace_gen`).

use std::path::PathBuf;

use clap::Args;

use super::gen_ifeval::write_rows;
use super::Failure;

#[derive(Args)]
pub struct GenWorkplaceArgs {
    /// Number of tasks.
    #[arg(long)]
    pub count: usize,
    /// Seed; the same count and seed give the same file, byte for byte.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to write the JSONL; stdout when absent.
    #[arg(long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: GenWorkplaceArgs) -> Result<(), Failure> {
    let rows = cascade_datasets::workplace_gen::generate(args.count, args.seed);
    write_rows(&rows, args.output.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_count_and_seed_give_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, seed: u64| {
            let path = dir.path().join(name);
            let args = GenWorkplaceArgs {
                count: 20,
                seed,
                output: Some(path.clone()),
            };
            run(args).unwrap();
            std::fs::read(path).unwrap()
        };
        let a = write("a.jsonl", 3);
        assert_eq!(a, write("b.jsonl", 3));
        assert_ne!(a, write("c.jsonl", 4));
        let text = String::from_utf8(a).unwrap();
        assert_eq!(text.lines().count(), 20);
        for line in text.lines() {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(row["ground_truth"].is_array());
            assert_eq!(
                row["responses_create_params"]["tools"]
                    .as_array()
                    .unwrap()
                    .len(),
                27
            );
        }
    }
}
