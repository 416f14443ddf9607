//! Plugins at the library level: discovery and manifests, every declarative check,
//! and a WASM module that imports more than the interface grants.

use std::path::Path;

use cascade_envs::plugins::{self, PluginKind, PluginLimits};
use cascade_envs::{EnvConfig, Registry, Sample};
use serde_json::{json, Value};

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn discovery_reads_manifests_skips_helpers_and_hashes_the_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "scorer.py", "def verify(s):\n    return 1\n");
    write(
        dir.path(),
        "scorer.toml",
        "name = \"renamed\"\npython = \"scorer.py\"\n",
    );
    write(dir.path(), "_helpers.py", "X = 1\n");
    write(dir.path(), "notes.txt", "not a plugin");
    let found = plugins::find(&[dir.path().to_owned()], &PluginLimits::default()).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].name, "renamed");
    assert_eq!(found[0].kind, PluginKind::Python);
    assert!(found[0].path.ends_with("scorer.py"));
    let before = found[0].sha256.clone();
    write(dir.path(), "scorer.py", "def verify(s):\n    return 0\n");
    let after = plugins::find(&[dir.path().to_owned()], &PluginLimits::default()).unwrap()[0]
        .sha256
        .clone();
    assert_ne!(before, after, "the sha256 covers the code file");
}

/// Scores `sample` with a declarative plugin made of `components`.
fn declarative(components: &str, sample: Value) -> Value {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.toml", components);
    let registry =
        Registry::discover_with_plugins(&[dir.path().to_owned()], &PluginLimits::default())
            .unwrap();
    let env = registry.create("p", &EnvConfig::default()).unwrap();
    let reward = env.score(&Sample::new(sample));
    json!({ "reward": reward.score, "details": reward.details })
}

#[test]
fn each_declarative_check_scores_as_documented() {
    let exact = "[[component]]\nname = \"e\"\ncheck = \"exact\"\nfield = \"answer\"\nnormalize = \"casefold\"\n";
    let r = declarative(
        exact,
        json!({"id": "1", "response": "  Paris \n", "answer": ["paris", "x"]}),
    );
    assert_eq!(r["reward"], 1.0, "{r}");
    let numeric =
        "[[component]]\nname = \"n\"\ncheck = \"numeric\"\nfield = \"answer\"\nrelative = 0.01\n";
    let r = declarative(
        numeric,
        json!({"id": "1", "response": "$1,005", "answer": 1000}),
    );
    assert_eq!(r["reward"], 1.0, "{r}");
    let r = declarative(
        numeric,
        json!({"id": "1", "response": "1020", "answer": 1000}),
    );
    assert_eq!(r["reward"], 0.0, "{r}");
    let schema =
        "[[component]]\nname = \"s\"\ncheck = \"json_schema\"\nschema_field = \"schema\"\n";
    let row = |response: &str| {
        json!({"id": "1", "response": response,
               "schema": "{\"type\": \"object\", \"required\": [\"a\"]}"})
    };
    assert_eq!(declarative(schema, row("{\"a\": 1}"))["reward"], 1.0);
    assert_eq!(declarative(schema, row("{\"b\": 1}"))["reward"], 0.0);
    let inline =
        "[[component]]\nname = \"s\"\ncheck = \"json_schema\"\nschema = { type = \"array\" }\n";
    assert_eq!(declarative(inline, row("[1, 2]"))["reward"], 1.0);
    let math = "[[component]]\nname = \"m\"\ncheck = \"math\"\nfield = \"answer\"\n";
    let r = declarative(
        math,
        json!({"id": "1", "response": "so \\boxed{\\frac{1}{2}}", "answer": "0.5"}),
    );
    assert_eq!(r["reward"], 1.0, "{r}");
    let verifier =
        "[[component]]\nname = \"v\"\ncheck = \"verifier\"\nverifier = \"exact_match\"\n";
    let r = declarative(verifier, json!({"id": "1", "response": "x", "answer": "x"}));
    assert_eq!(r["reward"], 1.0, "{r}");
}

#[test]
fn components_combine_by_weight_and_a_required_one_gates_the_reward() {
    let spec = "\
[[component]]\nname = \"format\"\ncheck = \"regex\"\npattern = '^Answer: '\nweight = 1\n\
[[component]]\nname = \"answer\"\ncheck = \"exact\"\nfield = \"answer\"\nextract = 'Answer: (\\w+)'\nweight = 3\n\
[[component]]\nname = \"short\"\ncheck = \"length\"\nmax_words = 3\nrequired = true\n";
    let r = declarative(
        spec,
        json!({"id": "1", "response": "Answer: yes", "answer": "no"}),
    );
    assert_eq!(r["reward"], 0.4, "(1 + 0 + 1) / 5: {r}");
    assert_eq!(
        r["details"]["reward_components"],
        json!({"format": 1.0, "answer": 0.0, "short": 1.0})
    );
    assert!(r["details"]["why"]["answer"].is_string());
    let r = declarative(
        spec,
        json!({"id": "1", "response": "Answer: no and more words", "answer": "no"}),
    );
    assert_eq!(r["reward"], 0.0, "the required length fails: {r}");
    let r = declarative(
        spec,
        json!({"id": "1", "response": "no answer", "answer": "no"}),
    );
    assert_eq!(
        r["details"]["reward_components"]["answer"], 0.0,
        "extract does not match"
    );
}

#[test]
fn a_wasm_plugin_may_import_wasi_only() {
    let dir = tempfile::tempdir().unwrap();
    let module = r#"(module
        (import "env" "secret" (func (result i32)))
        (memory (export "memory") 1)
        (func (export "_start")))"#;
    write(dir.path(), "sneaky.wasm", module);
    let err = Registry::discover_with_plugins(&[dir.path().to_owned()], &PluginLimits::default())
        .err()
        .expect("refused")
        .to_string();
    assert!(
        err.contains("sneaky.wasm") && err.contains("env::secret"),
        "{err}"
    );
    let reactor = r#"(module (memory (export "memory") 1) (func (export "run")))"#;
    write(dir.path(), "sneaky.wasm", reactor);
    let err = Registry::discover_with_plugins(&[dir.path().to_owned()], &PluginLimits::default())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("_start"), "{err}");
}

#[test]
fn a_plugin_takes_no_settings() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "p.toml",
        "[[component]]\nname = \"a\"\ncheck = \"length\"\nmax_chars = 3\n",
    );
    let registry =
        Registry::discover_with_plugins(&[dir.path().to_owned()], &PluginLimits::default())
            .unwrap();
    let config = EnvConfig::from_pairs(["x=1"]).unwrap();
    let err = registry.create("p", &config).err().unwrap().to_string();
    assert!(err.contains("takes no settings"), "{err}");
}

#[test]
fn a_plugin_that_uses_another_reports_a_digest_over_both() {
    let dir = tempfile::tempdir().unwrap();
    let uses = "[[component]]\nname = \"a\"\ncheck = \"verifier\"\nverifier = \"inner\"\n";
    write(dir.path(), "outer.toml", uses);
    write(
        dir.path(),
        "inner.toml",
        "[[component]]\nname = \"l\"\ncheck = \"length\"\nmax_chars = 3\n",
    );
    let digest = || {
        let registry =
            Registry::discover_with_plugins(&[dir.path().to_owned()], &PluginLimits::default())
                .unwrap();
        registry.listing("outer").unwrap().sha256.clone().unwrap()
    };
    let before = digest();
    write(
        dir.path(),
        "inner.toml",
        "[[component]]\nname = \"l\"\ncheck = \"length\"\nmax_chars = 4\n",
    );
    assert_ne!(
        digest(),
        before,
        "a change in the used plugin changes the user's digest"
    );
}

/// The operator's ceilings bound every manifest: a higher limit is lowered (and
/// reported), a lower one kept.
#[test]
fn a_manifest_may_only_lower_the_operators_limits() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "greedy.py", "def verify(s):\n    return 1\n");
    write(
        dir.path(),
        "greedy.toml",
        "python = \"greedy.py\"\n[limits]\ntime_s = 1e9\nmemory_mb = 100000\nworkers = 1000\n",
    );
    write(dir.path(), "modest.py", "def verify(s):\n    return 1\n");
    write(
        dir.path(),
        "modest.toml",
        "python = \"modest.py\"\n[limits]\ntime_s = 0.5\nmemory_mb = 64\n",
    );
    let ceiling = PluginLimits::parse_ceiling("time_s=3, memory_mb=256").unwrap();
    let found = plugins::find(&[dir.path().to_owned()], &ceiling).unwrap();
    let greedy = found.iter().find(|s| s.name == "greedy").unwrap();
    assert_eq!(greedy.manifest.limits.time_s, 3.0);
    assert_eq!(greedy.manifest.limits.memory_mb, 256);
    assert_eq!(
        greedy.manifest.limits.workers,
        plugins::manifest::MAX_DEFAULT_WORKERS
    );
    assert_eq!(
        greedy.lowered,
        [
            "time_s 1000000000 -> 3",
            "memory_mb 100000 -> 256",
            "workers 1000 -> 8"
        ]
    );
    let modest = found.iter().find(|s| s.name == "modest").unwrap();
    assert_eq!(modest.manifest.limits.time_s, 0.5);
    assert_eq!(modest.manifest.limits.memory_mb, 64);
    assert!(modest.lowered.is_empty());
    // The defaults are the ceiling when the operator sets none.
    let found = plugins::find(&[dir.path().to_owned()], &PluginLimits::default()).unwrap();
    assert_eq!(found[0].manifest.limits.time_s, 2.0);
    for bad in ["time_s=0", "time_s=-1", "colour=3", "time_s=nan"] {
        assert!(PluginLimits::parse_ceiling(bad).is_err(), "{bad}");
    }
}

/// `python = …` and `wasm = …` stay in the manifest's folder: no `..`, no absolute
/// path, no symlink out (that folder becomes the plugin's `/plugin`).
#[test]
fn manifest_paths_are_confined_to_the_plugin_folder() {
    let root = tempfile::tempdir().unwrap();
    let secret = root.path().join("secret_src");
    let plugins_dir = root.path().join("plugins");
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::create_dir_all(&plugins_dir).unwrap();
    write(&secret, "x.py", "def verify(s):\n    return 1\n");
    let outside = secret.join("x.py");
    let cases = [
        "python = \"../secret_src/x.py\"\n".to_owned(),
        format!("python = {:?}\n", outside.display().to_string()),
    ];
    for manifest in &cases {
        write(&plugins_dir, "p.toml", manifest);
        let err = plugins::find(std::slice::from_ref(&plugins_dir), &PluginLimits::default())
            .expect_err(manifest)
            .to_string();
        assert!(err.contains("inside the manifest's folder"), "{err}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, plugins_dir.join("link.py")).unwrap();
        write(&plugins_dir, "p.toml", "python = \"link.py\"\n");
        let err = plugins::find(std::slice::from_ref(&plugins_dir), &PluginLimits::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("leads out of the plugin folder"), "{err}");
        std::fs::remove_file(plugins_dir.join("p.toml")).unwrap();
        let err = plugins::find(std::slice::from_ref(&plugins_dir), &PluginLimits::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("leads out of the plugin folder"), "{err}");
    }
    std::fs::remove_file(plugins_dir.join("link.py")).ok();
    write(&plugins_dir, "inner.py", "def verify(s):\n    return 1\n");
    write(&plugins_dir, "p.toml", "python = \"./inner.py\"\n");
    assert_eq!(
        plugins::find(&[plugins_dir], &PluginLimits::default()).unwrap()[0].name,
        "p"
    );
}
