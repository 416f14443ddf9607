//! `cascade gen-long-context`: writes reproducible long-context tasks in NeMo Gym's row
//! layout, each prompt sized in tokens of a checkpoint's tokenizer (see
//! `cascade_datasets::long_context_gen`). Needs the `train` feature: the tokenizer
//! lives in the trainer.

use std::path::PathBuf;

use anyhow::Context;
use cascade_datasets::long_context_gen::{generate, Options};
use cascade_envs::ChatMessage;
use cascade_trainer::tokenizer::TextTokenizer;
use cascade_verifiers::long_context::Task;
use clap::Args;
use serde_json::Value;

use super::gen_ifeval::write_rows;
use super::Failure;

#[derive(Args)]
pub struct GenLongContextArgs {
    /// Number of tasks.
    #[arg(long)]
    pub count: usize,
    /// Seed; the same arguments and tokenizer give the same file, byte for byte.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Target prompt length, in tokens of `--tokenizer` (chat template included).
    #[arg(long)]
    pub tokens: usize,
    /// A checkpoint folder with `tokenizer.json` (and its chat template, if any).
    #[arg(long)]
    pub tokenizer: PathBuf,
    /// Task kinds to cycle through, comma-separated (`niah` = the four needle kinds,
    /// `graph` = both graph kinds); all eight when absent.
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Terse needle tasks for very small models (`q=37.` needles, `q=?`).
    #[arg(long)]
    pub terse: bool,
    /// Where to write the JSONL; stdout when absent.
    #[arg(long)]
    pub output: Option<PathBuf>,
}

/// The kinds named by `--tasks` (kind names or the `niah`/`graph` families).
fn parse_tasks(names: &[String]) -> Result<Vec<Task>, Failure> {
    let mut tasks = Vec::new();
    for name in names.iter().map(|n| n.trim()) {
        match name {
            "niah" => tasks.extend(&Task::ALL[..4]),
            "graph" => tasks.extend([Task::GraphParents, Task::GraphBfs]),
            _ => tasks.push(Task::parse(name).ok_or_else(|| {
                let known: Vec<&str> = Task::ALL.iter().map(|t| t.as_str()).collect();
                Failure::usage(anyhow::anyhow!(
                    "--tasks: unknown task {name:?} (known: niah, graph, {})",
                    known.join(", ")
                ))
            })?),
        }
    }
    Ok(tasks)
}

pub fn run(args: GenLongContextArgs) -> Result<(), Failure> {
    let tokenizer = TextTokenizer::load(&args.tokenizer)
        .with_context(|| format!("--tokenizer {}", args.tokenizer.display()))
        .map_err(Failure::usage)?;
    // The length the model sees: the messages rendered by the chat template.
    let count = |messages: &[Value]| -> Result<usize, String> {
        let messages: Vec<ChatMessage> =
            serde_json::from_value(Value::Array(messages.to_vec())).map_err(|e| e.to_string())?;
        let text = tokenizer
            .render_chat(&messages, None)
            .map_err(|e| e.to_string())?;
        tokenizer
            .encode(&text)
            .map(|ids| ids.len())
            .map_err(|e| e.to_string())
    };
    let options = Options {
        count: args.count,
        seed: args.seed,
        tokens: args.tokens,
        tasks: parse_tasks(&args.tasks)?,
        terse: args.terse,
    };
    let rows = generate(&options, &count).map_err(Failure::usage)?;
    write_rows(&rows, args.output.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("trainer/assets/tiny-chatml")
    }

    fn write(
        dir: &std::path::Path,
        name: &str,
        seed: u64,
        tasks: &[&str],
        tokens: usize,
    ) -> String {
        let path = dir.join(name);
        let args = GenLongContextArgs {
            count: 16,
            seed,
            tokens,
            tokenizer: tiny(),
            tasks: tasks.iter().map(|t| t.to_string()).collect(),
            terse: false,
            output: Some(path.clone()),
        };
        run(args).unwrap();
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn same_arguments_same_bytes_and_lengths_are_the_tokenizers() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(dir.path(), "a.jsonl", 3, &[], 1100);
        assert_eq!(a, write(dir.path(), "b.jsonl", 3, &[], 1100));
        assert_ne!(a, write(dir.path(), "c.jsonl", 4, &[], 1100));
        let tokenizer = TextTokenizer::load(&tiny()).unwrap();
        for line in a.lines() {
            let row: Value = serde_json::from_str(line).unwrap();
            let messages: Vec<ChatMessage> =
                serde_json::from_value(row["responses_create_params"]["input"].clone()).unwrap();
            let text = tokenizer.render_chat(&messages, None).unwrap();
            let length = tokenizer.encode(&text).unwrap().len() as u64;
            assert_eq!(row["token_length"].as_u64(), Some(length), "{}", row["id"]);
            assert!(length <= 1100 && length > 700, "{} {length}", row["task"]);
        }
    }

    #[test]
    fn tasks_are_chosen_by_kind_or_family_and_unknown_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let text = write(dir.path(), "g.jsonl", 1, &["graph", "mrcr"], 1000);
        let kinds: Vec<String> = text
            .lines()
            .take(3)
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["task"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(kinds, ["graph_parents", "graph_bfs", "mrcr"]);
        assert!(parse_tasks(&["needles".into()]).is_err());
        assert_eq!(parse_tasks(&["niah".into()]).unwrap().len(), 4);
    }
}
