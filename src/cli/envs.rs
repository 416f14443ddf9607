//! `cascade envs`: every environment and verifier linked into this binary, and every
//! plugin loaded at run time (with its kind, path and sha256).

use super::{Failure, Plugins};

pub fn run(plugins: &Plugins) -> Result<(), Failure> {
    let registry = plugins.registry(&[], None)?;
    let listings = registry.listings();
    let width = listings
        .iter()
        .map(|l| l.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "{:<width$}  {:<13}  {:<22}  description",
        "name", "kind", "from"
    );
    for l in listings {
        println!(
            "{:<width$}  {:<13}  {:<22}  {}",
            l.name, l.kind, l.origin, l.description
        );
        if let Some(sha) = &l.sha256 {
            println!("{:<width$}  {:<13}  sha256 {sha}", "", "");
        }
    }
    Ok(())
}
