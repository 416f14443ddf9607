//! `cascade_rewards._native`: the Rust half of the `cascade-rewards` Python package.
//!
//! It is a thin binding over cascade's one scoring path: environments come from
//! [`Registry::discover`], samples are scored through [`ScoringPool`] (which calls
//! `score_guarded` on every sample) and each result is a [`ResultLine`], so a result is
//! the exact bytes `cascade score` prints for the same line. The Python half
//! (`cascade_rewards/__init__.py`) turns those lines into dicts and adds the TRL and
//! verl adapters.
//!
//! Scoring runs with the GIL released ([`Python::detach`]): Python threads keep
//! running while a batch is scored, and several threads can score at once.

mod convert;
mod env;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use cascade_envs::Registry;

use crate::env::{registry, NativeEnv};

/// Every environment and verifier plugin linked into the package, as `cascade envs`
/// lists them: `{name: {"kind", "origin", "description"}}`, sorted by name.
#[pyfunction]
fn envs(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let registry: &Registry = registry()?;
    let out = PyDict::new(py);
    for listing in registry.listings() {
        let entry = PyDict::new(py);
        entry.set_item("kind", listing.kind)?;
        entry.set_item("origin", &listing.origin)?;
        entry.set_item("description", &listing.description)?;
        out.set_item(&listing.name, entry)?;
    }
    Ok(out)
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(envs, m)?)?;
    m.add_class::<NativeEnv>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
