//! `cascade train --recipe R [--output DIR] [--resume] [--from STAGE]`: runs a Cascade
//! recipe stage by stage (see `cascade_trainer::runner`). A bad recipe is exit 2 with
//! the bad key named, before any training; a failure during training is exit 1.

use std::path::PathBuf;

use cascade_trainer::recipe::Recipe;
use cascade_trainer::runner::{self, Resume, RunError, RunOptions};

use super::{Failure, Plugins};

#[derive(clap::Args)]
pub struct TrainArgs {
    /// The recipe (TOML).
    #[arg(long)]
    recipe: PathBuf,
    /// Output folder; default: the recipe's `run.output`, else `runs/<recipe name>`.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Continue an interrupted run after its last completed stage.
    #[arg(long)]
    resume: bool,
    /// Redo this stage and every later one (implies --resume).
    #[arg(long, value_name = "STAGE")]
    from: Option<String>,
}

pub fn run(args: TrainArgs, plugins: &Plugins) -> Result<(), Failure> {
    let recipe = Recipe::load(&args.recipe).map_err(Failure::usage)?;
    let recipe_plugins: Vec<PathBuf> = recipe
        .run
        .plugins
        .iter()
        .map(|p| recipe.resolve(p))
        .collect();
    let registry = plugins.registry(&recipe_plugins, recipe.run.plugin_limits.as_ref())?;
    let output = match (&args.output, &recipe.run.output) {
        (Some(o), _) => o.clone(),
        (None, Some(o)) => recipe.resolve(o),
        (None, None) => {
            let stem = args
                .recipe
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into());
            PathBuf::from("runs").join(stem)
        }
    };
    let resume = match (args.from, args.resume) {
        (Some(stage), _) => Resume::From(stage),
        (None, true) => Resume::Last,
        (None, false) => Resume::Fresh,
    };
    let opts = RunOptions {
        output: output.clone(),
        resume,
    };
    let mut stdout = std::io::stdout();
    match runner::run(&recipe, &registry, &opts, &mut stdout) {
        Ok(_) => {
            eprintln!("run written to {}", output.display());
            Ok(())
        }
        Err(
            e @ (RunError::Recipe(_)
            | RunError::Dataset { .. }
            | RunError::Env { .. }
            | RunError::Resume(_)
            | RunError::Teacher(_)),
        ) => Err(Failure::usage(
            anyhow::Error::new(e).context(format!("recipe {}", args.recipe.display())),
        )),
        Err(e) => Err(Failure::Other(
            anyhow::Error::new(e).context(format!("training into {}", output.display())),
        )),
    }
}
