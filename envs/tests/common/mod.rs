//! Helpers shared by this crate's integration tests.

use std::sync::OnceLock;

use cascade_envs::{EnvConfig, Environment, Registry};

/// The registry's `code` env with its default config, made once per test binary.
pub fn code_env() -> &'static dyn Environment {
    static ENV: OnceLock<Box<dyn Environment>> = OnceLock::new();
    ENV.get_or_init(|| {
        Registry::discover()
            .expect("registry")
            .create("code", &EnvConfig::new(serde_json::Map::new()))
            .expect("code env")
    })
    .as_ref()
}
