//! `cascade`: score samples against verifiable-reward environments, check stored
//! scores, and run Cascade RL recipes. The contract is `../shared/SPEC.md`; the
//! README has an example of every subcommand.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
