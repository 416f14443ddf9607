//! `cascade envs`: every environment and verifier plugin linked into this binary.

use cascade_envs::Registry;

use super::Failure;

pub fn run() -> Result<(), Failure> {
    let registry = Registry::discover().map_err(Failure::usage)?;
    let listings = registry.listings();
    let width = listings
        .iter()
        .map(|l| l.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    println!(
        "{:<width$}  {:<11}  {:<22}  description",
        "name", "kind", "from"
    );
    for l in listings {
        println!(
            "{:<width$}  {:<11}  {:<22}  {}",
            l.name, l.kind, l.origin, l.description
        );
    }
    Ok(())
}
