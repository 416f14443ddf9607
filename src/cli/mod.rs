//! Argument parsing and dispatch. Each subcommand lives in its own module; they share
//! the JSONL reader and the batch scorer. The training commands exist only with the
//! `train` feature (the default), so the reward side builds without torch.

mod batch;
#[cfg(feature = "train")]
mod bench_grpo;
#[cfg(feature = "train")]
mod bench_model;
mod bench_serve;
mod check;
mod envs;
mod exit;
mod gen_ifeval;
mod gen_workplace;
mod jsonl;
mod score;
mod serve;
mod summary;
#[cfg(feature = "train")]
mod train;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use exit::Failure;

#[derive(Parser)]
#[command(
    name = "cascade",
    version,
    about = "Verifiable-reward environments and the Cascade RL loop"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score every line of a JSONL file; one result line per input line, same order.
    Score(score::ScoreArgs),
    /// Re-score and compare with stored scores; exit 1 with a diff on any mismatch.
    Check(check::CheckArgs),
    /// List every environment and verifier plugin, with where it came from.
    Envs,
    /// Write a reproducible IF-RL prompt set (IFEval JSONL layout).
    GenIfeval(gen_ifeval::GenIfevalArgs),
    /// Write reproducible workplace tool-use tasks (NeMo Gym's row layout).
    GenWorkplace(gen_workplace::GenWorkplaceArgs),
    /// Serve every environment over HTTP: batch, NeMo Gym and OpenRLHF protocols.
    Serve(serve::ServeArgs),
    /// Load-test `cascade serve` on loopback against `cascade score` on the same samples.
    BenchServe(bench_serve::BenchServeArgs),
    /// Run a Cascade recipe stage by stage: checkpoints, evals, plots.
    #[cfg(feature = "train")]
    Train(train::TrainArgs),
    /// The TRL-comparable GRPO toy benchmark: steps/s and the reward curve.
    #[cfg(feature = "train")]
    BenchGrpo(bench_grpo::BenchGrpoArgs),
    /// Sampling/training tokens/s and MFU of a random model of a given shape.
    #[cfg(feature = "train")]
    BenchModel(bench_model::BenchModelArgs),
}

/// Parses the command line, runs the command and maps failures to exit codes:
/// 0 success, 1 a check failed, 2 unusable arguments or input.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Score(args) => score::run(args),
        Command::Check(args) => check::run(args),
        Command::Envs => envs::run(),
        Command::GenIfeval(args) => gen_ifeval::run(args),
        Command::GenWorkplace(args) => gen_workplace::run(args),
        Command::Serve(args) => serve::run(args),
        Command::BenchServe(args) => bench_serve::run(args),
        #[cfg(feature = "train")]
        Command::Train(args) => train::run(args),
        #[cfg(feature = "train")]
        Command::BenchGrpo(args) => bench_grpo::run(args),
        #[cfg(feature = "train")]
        Command::BenchModel(args) => bench_model::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
