//! `cascade gen-ifeval`: writes a reproducible IF-RL prompt set in IFEval's JSONL
//! layout (see `cascade_datasets::ifeval_gen`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::Failure;

#[derive(Args)]
pub struct GenIfevalArgs {
    /// Number of prompts.
    #[arg(long)]
    pub count: usize,
    /// Seed; the same count and seed give the same file, byte for byte.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to write the JSONL; stdout when absent.
    #[arg(long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: GenIfevalArgs) -> Result<(), Failure> {
    let rows = cascade_datasets::ifeval_gen::generate(args.count, args.seed);
    write_rows(&rows, args.output.as_deref())
}

/// Writes generated rows as JSONL to `output`, or to stdout when absent.
pub(super) fn write_rows(
    rows: &[serde_json::Value],
    output: Option<&std::path::Path>,
) -> Result<(), Failure> {
    let mut text = String::new();
    for row in rows {
        text.push_str(&row.to_string());
        text.push('\n');
    }
    match output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .context("cannot write to stdout")?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_count_and_seed_give_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, seed: u64| {
            let path = dir.path().join(name);
            let args = GenIfevalArgs {
                count: 25,
                seed,
                output: Some(path.clone()),
            };
            run(args).unwrap();
            std::fs::read_to_string(path).unwrap()
        };
        let a = write("a.jsonl", 5);
        assert_eq!(a, write("b.jsonl", 5));
        assert_ne!(a, write("c.jsonl", 6));
        assert_eq!(a.lines().count(), 25);
        for line in a.lines() {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(row["prompt"].is_string() && row["instruction_id_list"].is_array());
        }
    }
}
