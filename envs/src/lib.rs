//! # cascade-envs
//!
//! Domain environments: each turns a dataset row into a chat prompt and a model
//! response into a [`Reward`], using the pure checks of `cascade-verifiers` and, for
//! code, the sandbox of `cascade-sandboxes`. The [`Registry`] finds every environment
//! and verifier plugin linked into the binary by name.
//!
//! ```
//! use cascade_envs::Registry;
//! let registry = Registry::discover().unwrap();
//! assert!(registry.names().count() > 0);
//! ```
//!
//! Adding an environment is one file in `src/` (the type, its config and an
//! `inventory::submit!` of an [`EnvPlugin`]) plus its `mod` line below. Crates outside
//! this one register the same way, without editing it (see `examples/plugin-verifier`).
//! Users add verifiers without Rust: [`plugins`] loads Python, WASM and declarative
//! TOML plugins from files at run time ([`Registry::discover_with_plugins`]).
//!
//! ## What this crate may not do
//! - It never trains and never knows who consumes rewards (the CLI, a service, the
//!   trainer): it only produces them.
//! - It runs no untrusted code itself: model programs and plugins (Python, WASM) only
//!   ever run inside `cascade-sandboxes`.
//! - It never panics or aborts a batch on a bad sample: that sample gets reward 0 and
//!   `details.error` naming what was wrong. Consumers score through [`scoring`], which
//!   holds every environment (built-in or plugin) to that promise.

pub mod addition;
pub mod code;
pub mod config;
pub mod environment;
pub mod genrm;
pub mod group;
pub mod gym;
pub mod ifeval;
pub mod long_context;
pub mod lookup;
pub mod math;
pub mod mcqa;
pub mod multi_turn;
pub mod plugins;
pub mod registry;
pub mod rlhf;
pub mod score_error;
pub mod scoring;
pub mod structured_output;
pub mod swe;
pub mod tool_call;
pub mod verifier_env;
pub mod verl;
pub mod workplace;

pub use cascade_verifiers::{inventory, Reward, Sample};
pub use config::{ConfigError, EnvConfig, PathError, PathPolicy, SamplePaths};
pub use environment::{ChatMessage, Environment};
pub use group::GroupEnvironment;
pub use multi_turn::{MultiTurnEnvironment, Session, Turn};
pub use plugins::{PluginError, PluginKind};
pub use registry::{EnvPlugin, Listing, Registry, RegistryError};
pub use score_error::ScoreError;
pub use scoring::{
    guard, guard_finish, guard_group, guard_start, guard_step, score_guarded, Fault, Guarded,
    GuardedTurn, ResultLine, ScoringPool,
};
