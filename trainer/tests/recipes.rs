//! Bad recipes fail before any work, naming the key: negative learning rate, group
//! size 1, a missing checkpoint file, an unknown environment, a missing dataset, no
//! stages, and a MOPD stage with no earlier checkpoint and no named teacher.

use std::path::Path;

use cascade_envs::Registry;
use cascade_trainer::recipe::Recipe;

const GOOD: &str = r#"
[run]
model = "MODEL"
init = "random"
device = "cpu"

[[eval]]
domain = "addition"
dataset = "DATA"

[[stage]]
name = "a"
algorithm = "grpo"
steps = 2
lr = 1e-4
prompts_per_step = 2
group_size = 4
max_new_tokens = 4
[[stage.env]]
name = "addition"
dataset = "DATA"

[[stage]]
name = "m"
algorithm = "mopd"
steps = 2
lr = 1e-4
prompts_per_step = 2
group_size = 2
max_new_tokens = 4
[[stage.env]]
name = "addition"
dataset = "DATA"
"#;

fn assets() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

fn check(text: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = text
        .replace("MODEL", &assets().join("toy-qwen2").display().to_string())
        .replace(
            "DATA",
            &assets().join("addition/train.jsonl").display().to_string(),
        );
    let path = dir.path().join("r.toml");
    std::fs::write(&path, text).expect("write");
    let registry = Registry::discover().expect("registry");
    let recipe = Recipe::load(&path).map_err(|e| e.to_string())?;
    recipe.validate(&registry).map_err(|e| e.to_string())
}

fn fails_with(text: &str, needle: &str) {
    let err = check(text).expect_err("must be rejected");
    assert!(
        err.contains(needle),
        "error `{err}` does not mention `{needle}`"
    );
}

#[test]
fn the_good_recipe_and_the_shipped_toy_recipe_validate() {
    check(GOOD).expect("good recipe");
    let toy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/toy.toml");
    let registry = Registry::discover().expect("registry");
    Recipe::load(&toy)
        .expect("toy.toml parses")
        .validate(&registry)
        .expect("toy.toml is valid");
    for shipped in ["tiny.toml", "cascade2.toml"] {
        Recipe::load(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../recipes")
                .join(shipped),
        )
        .expect("parses");
    }
}

#[test]
fn bad_values_name_their_key() {
    fails_with(&GOOD.replacen("lr = 1e-4", "lr = -1e-4", 1), "stage[0].lr");
    fails_with(
        &GOOD.replacen("group_size = 4", "group_size = 1", 1),
        "stage[0].group_size",
    );
    fails_with(
        &GOOD.replacen("max_new_tokens = 4", "max_new_tokens = 4\ntop_p = 1.5", 1),
        "stage[0].top_p",
    );
    fails_with(
        &GOOD.replacen("steps = 2", "stepz = 2", 1),
        "unknown field `stepz`",
    );
}

#[test]
fn missing_files_and_unknown_envs_are_named() {
    fails_with(
        &GOOD.replace("init = \"random\"", "init = \"checkpoint\""),
        "missing checkpoint file",
    );
    fails_with(
        &GOOD.replacen("name = \"addition\"", "name = \"no-such-env\"", 1),
        "stage[0].env[0].name",
    );
    let missing = GOOD.replacen(
        "dataset = \"DATA\"\n\n[[stage]]",
        "dataset = \"/nonexistent/x.jsonl\"\n\n[[stage]]",
        1,
    );
    fails_with(&missing, "eval[0].dataset");
}

#[test]
fn empty_stages_and_teacherless_mopd_fail() {
    let no_stages = GOOD
        .split("[[stage]]")
        .next()
        .unwrap_or_default()
        .to_owned();
    fails_with(&no_stages, "no stages");
    let mopd_first = GOOD.replacen("algorithm = \"grpo\"", "algorithm = \"mopd\"", 1);
    fails_with(&mopd_first, "no earlier checkpoint and no teacher named");
    check(&mopd_first.replacen(
        "[[stage.env]]",
        "teachers = { addition = \"base\" }\n[[stage.env]]",
        1,
    ))
    .expect("a named teacher is fine");
}
