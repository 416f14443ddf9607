//! The plugin reaches the registry without any edit to cascade's crates.

use cascade_envs::{EnvConfig, Registry, Sample};

// Linking the plugin crate is what registers it.
use cascade_plugin_example as _;

#[test]
fn plugin_is_discovered_and_scores() {
    let registry = Registry::discover().unwrap();
    let listing = registry
        .listings()
        .into_iter()
        .find(|l| l.name == "exact_match_nocase")
        .expect("plugin registered");
    assert_eq!(listing.origin, "cascade-plugin-example");
    assert_eq!(listing.kind, "verifier");

    let env = registry.create("exact_match_nocase", &EnvConfig::default()).unwrap();
    let good = Sample::new(serde_json::json!({"id": "1", "response": " Paris ", "answer": "paris"}));
    let bad = Sample::new(serde_json::json!({"id": "2", "response": "Lyon", "answer": "paris"}));
    let broken = Sample::new(serde_json::json!({"id": "3", "response": "Lyon"}));
    assert_eq!(env.score(&good).score, 1.0);
    assert_eq!(env.score(&bad).score, 0.0);
    assert_eq!(env.score(&broken).error_message(), Some("missing field `answer`"));
}
