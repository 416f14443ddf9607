//! `cascade build-plugin SOURCE.c [-o OUT.wasm]`: compiles a C or C++ verifier plugin to
//! a WASI command with the code sandbox's own confined clang, so a WASM plugin needs no
//! toolchain of its own.

use std::path::PathBuf;

use anyhow::Context;
use cascade_sandboxes::{CLanguage, Clang};
use clap::Args;

use super::Failure;

#[derive(Args)]
pub struct BuildPluginArgs {
    /// The plugin's source: `.c`, or `.cc`/`.cpp` for C++.
    pub source: PathBuf,
    /// The module to write; default: the source with `.wasm`.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: BuildPluginArgs) -> Result<(), Failure> {
    let language = match args.source.extension().and_then(|e| e.to_str()) {
        Some("c") => CLanguage::C,
        Some("cc" | "cpp" | "cxx") => CLanguage::Cpp,
        _ => {
            return Err(Failure::usage(anyhow::anyhow!(
                "{}: a plugin source is a .c, .cc or .cpp file",
                args.source.display()
            )))
        }
    };
    let source = std::fs::read_to_string(&args.source)
        .with_context(|| format!("cannot read {}", args.source.display()))
        .map_err(Failure::Usage)?;
    let clang = Clang::load().map_err(Failure::usage)?;
    let module = clang
        .compile_module(language, &source)
        .map_err(|e| Failure::Other(e.into()))?
        .map_err(|e| Failure::usage(anyhow::anyhow!("{}: {e}", args.source.display())))?;
    let output = args
        .output
        .unwrap_or_else(|| args.source.with_extension("wasm"));
    std::fs::write(&output, module)
        .with_context(|| format!("cannot write {}", output.display()))?;
    eprintln!("wrote {}", output.display());
    Ok(())
}
