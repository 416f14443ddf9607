//! Cascade 2's published RL data, in its layout (the bundled miniature,
//! `datasets/cascade2/`), through the stage runner: a MOPD stage on the mixed MOPD
//! file, each row routed by its `agent_ref.name` to its environment and to its
//! domain's teacher, as NeMo-RL routes it. And the refusals: a row whose agent the map
//! does not name stops the run before any step, naming the file and line.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use cascade_envs::Registry;
use cascade_trainer::recipe::Recipe;
use cascade_trainer::runner::{run, Resume, RunOptions};
use common::metrics;
use serde_json::Value;

/// A tiny random model: an IF-RL stage on the IF-RL file, a math stage, then MOPD on
/// the mixed MOPD file with a teacher per domain (two of them the earlier stages).
const RECIPE: &str = r#"
[run]
model = "../trainer/assets/tiny-chatml"
init = "random"
seed = 0
device = "cpu"
threads = 1
numerics = "portable"

[[stage]]
name = "if-rl"
algorithm = "grpo"
steps = 1
lr = 1e-4
prompts_per_step = 2
group_size = 2
max_new_tokens = 8
[[stage.env]]
name = "ifeval"
dataset = "../datasets/cascade2/IF-RL/train.jsonl"

[[stage]]
name = "math-rl"
algorithm = "grpo"
steps = 1
lr = 1e-4
prompts_per_step = 2
group_size = 2
max_new_tokens = 8
[[stage.env]]
name = "math"
dataset = "../datasets/math/arithmetic.train.jsonl"

[[stage]]
name = "mopd"
algorithm = "mopd"
steps = 3
lr = 1e-4
prompts_per_step = 6
group_size = 2
max_new_tokens = 8
max_turns = 2
[stage.teachers]
ifeval = "if-rl"
math = "math-rl"
mcqa = "base"
structured_output = "base"
workplace = "base"
[[stage.route]]
dataset = "../datasets/cascade2/MOPD/train.jsonl"
[stage.route.map]
instruction_following_simple_agent = "ifeval"
math_with_judge_simple_agent = "math"
mcqa_simple_agent = "mcqa"
structured_outputs_simple_agent = "structured_output"
workplace_assistant_simple_agent = "workplace"
"#;

fn recipe(text: &str) -> Recipe {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../recipes/cascade2-mini.toml");
    Recipe::parse(text, &path).expect("recipe parses")
}

#[test]
fn a_mopd_stage_routes_the_published_mixed_file_by_agent_to_each_domains_teacher() {
    common::pin();
    let recipe = recipe(RECIPE);
    let registry = Registry::discover().expect("registry");
    recipe.validate(&registry).expect("recipe validates");
    let out = tempfile::tempdir().expect("temp dir");
    let options = RunOptions {
        output: out.path().to_owned(),
        resume: Resume::Fresh,
    };
    run(&recipe, &registry, &options, &mut Vec::new()).expect("run");

    let lines = metrics(out.path());
    let mopd: Vec<&Value> = lines.iter().filter(|l| l["stage"] == "mopd").collect();
    assert_eq!(mopd.len(), 3, "three MOPD steps");
    let teachers: BTreeMap<String, String> =
        serde_json::from_value(mopd[0]["teachers"].clone()).expect("teachers");
    let expected: BTreeMap<String, String> = [
        ("ifeval", "if-rl"),
        ("math", "math-rl"),
        ("mcqa", "base"),
        ("structured_output", "base"),
        ("workplace", "base"),
    ]
    .into_iter()
    .map(|(d, t)| (d.to_owned(), t.to_owned()))
    .collect();
    assert_eq!(teachers, expected);
    // Rows of every kind were drawn, each scored against its own domain's teacher.
    let mut drawn = std::collections::BTreeSet::new();
    for line in &mopd {
        assert!(
            line["grad_norm"].as_f64().is_some_and(f64::is_finite),
            "{line}"
        );
        let by_domain = line["advantage_mean_by_domain"]
            .as_object()
            .expect("by domain");
        drawn.extend(by_domain.keys().cloned());
    }
    assert!(drawn.len() >= 3, "domains drawn: {drawn:?}");
    assert!(drawn.iter().all(|d| expected.contains_key(d)), "{drawn:?}");
}

#[test]
fn a_row_whose_agent_the_map_does_not_name_stops_the_run_with_its_line() {
    common::pin();
    let text = RECIPE.replace("mcqa_simple_agent = \"mcqa\"\n", "");
    let recipe = recipe(&text);
    let registry = Registry::discover().expect("registry");
    let out = tempfile::tempdir().expect("temp dir");
    let options = RunOptions {
        output: out.path().to_owned(),
        resume: Resume::Fresh,
    };
    let err = run(&recipe, &registry, &options, &mut Vec::new())
        .expect_err("an unmapped agent is refused")
        .to_string();
    let first_mcqa = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets/cascade2/MOPD/train.jsonl"),
    )
    .expect("MOPD rows")
    .lines()
    .position(|l| l.contains("\"mcqa_simple_agent\""))
    .expect("an mcqa row")
        + 1;
    assert!(
        err.contains(&format!("MOPD/train.jsonl:{first_mcqa}"))
            && err.contains("\"mcqa_simple_agent\"")
            && err.contains("stage[2].route[0].map does not name"),
        "{err}"
    );
    assert!(
        !out.path().join("metrics.jsonl").exists() || metrics(out.path()).is_empty(),
        "no step ran"
    );
}
