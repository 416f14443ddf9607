//! The plugin reaches the registry without any edit to cascade's crates.

use cascade_envs::{EnvConfig, Registry, Sample};
use serde_json::json;

// Linking the plugin crate is what registers it.
use cascade_plugin_example as _;

#[test]
fn plugin_is_discovered_and_scores() {
    let registry = Registry::discover().unwrap();
    let listing = registry
        .listings()
        .into_iter()
        .find(|l| l.name == "word_budget")
        .expect("plugin registered");
    assert_eq!(listing.origin, "cascade-plugin-example");
    assert_eq!(listing.kind, "verifier");

    let env = registry
        .create("word_budget", &EnvConfig::default())
        .unwrap();
    let short = Sample::new(json!({"id": "1", "response": "two words", "max_words": 3}));
    let long = Sample::new(json!({"id": "2", "response": "one two three four", "max_words": 3}));
    let broken = Sample::new(json!({"id": "3", "response": "x", "max_words": "3"}));
    assert_eq!(env.score(&short).score, 1.0);
    assert_eq!(env.score(&long).score, 0.0);
    assert_eq!(
        env.score(&broken).error_message(),
        Some("field `max_words` must be a whole number")
    );
}
