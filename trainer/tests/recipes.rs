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

/// cascade2.toml's model is the user's SFT checkpoint and smollm2.toml's is made by
/// `scripts/setup`; with the tiny model in its place, every stage must name registered
/// environments, valid env configs and bundled datasets.
#[test]
fn shipped_real_model_recipes_validate_against_the_registry() {
    let registry = Registry::discover().expect("registry");
    for shipped in ["cascade2.toml", "smollm2.toml"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../recipes")
            .join(shipped);
        let mut recipe = Recipe::load(&path).expect("parses");
        recipe.run.model = "../trainer/assets/tiny-chatml".into();
        recipe.run.init = cascade_trainer::recipe::Init::Random;
        recipe
            .validate(&registry)
            .unwrap_or_else(|e| panic!("{shipped} is not valid: {e}"));
    }
}

/// An eval set may set its own greedy length; the others keep the run's.
#[test]
fn an_eval_set_sets_its_own_answer_length() {
    let text = GOOD.replacen(
        "domain = \"addition\"\n",
        "domain = \"addition\"\nmax_new_tokens = 7\n",
        1,
    );
    check(&text).expect("valid");
    let recipe = Recipe::parse(&text, Path::new("r.toml")).expect("parses");
    assert_eq!(recipe.eval_max_new_tokens("addition"), 7);
    assert_eq!(
        recipe.eval_max_new_tokens("other"),
        recipe.run.eval_max_new_tokens
    );
    fails_with(
        &GOOD.replacen(
            "domain = \"addition\"\n",
            "domain = \"addition\"\nmax_new_tokens = 0\n",
            1,
        ),
        "eval[0].max_new_tokens",
    );
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
        &GOOD.replacen(
            "max_new_tokens = 4",
            "max_new_tokens = 4\nlogit_chunk_mb = 0",
            1,
        ),
        "stage[0].logit_chunk_mb",
    );
    fails_with(
        &GOOD.replacen(
            "max_new_tokens = 4",
            "max_new_tokens = 4\nactivations = \"all\"",
            1,
        ),
        "unknown variant `all`",
    );
    fails_with(
        &GOOD.replacen(
            "max_new_tokens = 4",
            "max_new_tokens = 4\nmicro_batch = 4\nmicro_batch_tokens = 4096",
            1,
        ),
        "stage[0].micro_batch_tokens",
    );
    check(&GOOD.replacen(
        "max_new_tokens = 4",
        "max_new_tokens = 4\nmicro_batch_tokens = 4096",
        1,
    ))
    .expect("a token budget alone");
    check(&GOOD.replacen(
        "device = \"cpu\"",
        "device = \"cpu\"\nprecision = \"bf16\"",
        1,
    ))
    .expect("bf16 on the CPU");
    fails_with(
        &GOOD.replacen(
            "device = \"cpu\"",
            "device = \"cpu\"\nprecision = \"fp16\"",
            1,
        ),
        "unknown variant `fp16`",
    );
    // MOPD reads student and teacher over the full tempered vocabulary.
    let mopd_top_p = GOOD.replacen(
        "group_size = 2\nmax_new_tokens = 4",
        "group_size = 2\nmax_new_tokens = 4\ntop_p = 0.9",
        1,
    );
    assert_ne!(mopd_top_p, GOOD, "the replacement applied");
    fails_with(&mopd_top_p, "stage[1].top_p");
    fails_with(
        &GOOD.replacen("steps = 2", "stepz = 2", 1),
        "unknown field `stepz`",
    );
}

/// Greedy sampling is refused for both sampling algorithms, naming the stage's key.
#[test]
fn temperature_zero_is_refused_for_grpo_and_mopd() {
    let greedy_grpo = GOOD.replacen(
        "group_size = 4\nmax_new_tokens = 4",
        "group_size = 4\nmax_new_tokens = 4\ntemperature = 0.0",
        1,
    );
    assert_ne!(greedy_grpo, GOOD, "the replacement applied");
    fails_with(&greedy_grpo, "`stage[0].temperature`: must be > 0");
    let greedy_mopd = GOOD.replacen(
        "group_size = 2\nmax_new_tokens = 4",
        "group_size = 2\nmax_new_tokens = 4\ntemperature = 0",
        1,
    );
    assert_ne!(greedy_mopd, GOOD, "the replacement applied");
    fails_with(&greedy_mopd, "`stage[1].temperature`: must be > 0");
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

#[test]
fn stage_eval_sets_join_the_run_and_are_checked_by_key() {
    // A stage's own eval set for a new domain joins the run's list (scored after every
    // stage), and can pick a later MOPD stage's teacher.
    let staged = GOOD.replacen(
        "[[stage.env]]",
        "[[stage.eval]]\ndomain = \"sums\"\nenv = \"addition\"\ndataset = \"DATA\"\nlimit = 4\n[[stage.env]]",
        1,
    );
    check(&staged).expect("a stage eval set is fine");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("r.toml");
    let text = staged.replace("MODEL", "m").replace("DATA", "d.jsonl");
    let recipe = Recipe::parse(&text, &path).expect("parses");
    let keys: Vec<(String, String)> = recipe
        .eval_sets()
        .into_iter()
        .map(|(k, e)| (k, e.domain.clone()))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("eval[0]".to_owned(), "addition".to_owned()),
            ("stage[0].eval[0]".to_owned(), "sums".to_owned()),
        ]
    );
    // The same domain twice names both keys.
    fails_with(
        &staged.replace("domain = \"sums\"", "domain = \"addition\""),
        "stage[0].eval[0].domain",
    );
    fails_with(
        &staged.replace("domain = \"sums\"", "domain = \"addition\""),
        "already evaluated by `eval[0]`",
    );
    fails_with(
        &staged.replace("env = \"addition\"", "env = \"nope\""),
        "stage[0].eval[0].env",
    );
    fails_with(
        &staged.replace("limit = 4", "limit = 4\ndataset2 = 1"),
        "unknown field `dataset2`",
    );
    // A skipped stage's eval sets are not scored, so not checked either.
    let skipped = GOOD.replacen(
        "[[stage]]\nname = \"a\"",
        "[[stage]]\nname = \"x\"\nalgorithm = \"grpo\"\nskip = true\nsteps = 1\nlr = 1.0\nprompts_per_step = 1\ngroup_size = 2\nmax_new_tokens = 1\n[[stage.eval]]\ndomain = \"z\"\nenv = \"not-built\"\ndataset = \"/nonexistent\"\n[[stage.env]]\nname = \"not-built\"\ndataset = \"/nonexistent\"\n\n[[stage]]\nname = \"a\"",
        1,
    );
    check(&skipped).expect("skipped stage");
}

#[test]
fn sft_stages_need_a_target_and_take_no_sampling_keys() {
    let sft = GOOD.replacen(
        "algorithm = \"grpo\"\nsteps = 2\nlr = 1e-4\nprompts_per_step = 2\ngroup_size = 4\nmax_new_tokens = 4\n[[stage.env]]\nname = \"addition\"\ndataset = \"DATA\"",
        "algorithm = \"sft\"\nsteps = 2\nlr = 1e-4\nprompts_per_step = 2\n[[stage.env]]\nname = \"addition\"\ndataset = \"DATA\"\ntarget = \"answer\"",
        1,
    );
    assert_ne!(sft, GOOD, "the replacement applied");
    check(&sft).expect("an sft stage with a target is fine");
    fails_with(
        &sft.replacen("target = \"answer\"", "", 1),
        "stage[0].env[0].target",
    );
    fails_with(
        &sft.replacen(
            "prompts_per_step = 2\n[[stage.env]]",
            "prompts_per_step = 2\ngroup_size = 4\n[[stage.env]]",
            1,
        ),
        "stage[0].group_size",
    );
    fails_with(
        &sft.replacen(
            "prompts_per_step = 2\n[[stage.env]]",
            "prompts_per_step = 2\nmax_new_tokens = 4\n[[stage.env]]",
            1,
        ),
        "stage[0].max_new_tokens",
    );
    // A GRPO stage reading a reference response is a mistake, not a silent no-op.
    fails_with(
        &GOOD.replacen(
            "dataset = \"DATA\"\n\n[[stage]]\nname = \"m\"",
            "dataset = \"DATA\"\ntarget = \"answer\"\n\n[[stage]]\nname = \"m\"",
            1,
        ),
        "stage[0].env[0].target",
    );
    // GRPO and MOPD still need their sampling keys.
    fails_with(
        &GOOD.replacen("max_new_tokens = 4\n", "", 1),
        "stage[0].max_new_tokens",
    );
}

#[test]
fn keys_of_another_algorithm_are_refused_naming_key_and_stage() {
    // A GRPO key on the MOPD stage, a MOPD key on the GRPO stage.
    let refill = GOOD.replacen("group_size = 2", "group_size = 2\nrefill = true", 1);
    assert_ne!(refill, GOOD, "the replacement applied");
    fails_with(&refill, "stage[1].refill");
    fails_with(
        &refill,
        "unknown field `refill` for a `mopd` stage (stage `m`)",
    );
    fails_with(
        &GOOD.replacen(
            "group_size = 4",
            "group_size = 4\nteachers = { addition = \"base\" }",
            1,
        ),
        "stage[0].teachers",
    );
    fails_with(
        &GOOD.replacen("algorithm = \"grpo\"", "algorithm = \"ppo\"", 1),
        "unknown variant `ppo`",
    );
    // Keys are refused while parsing, before any file is looked at.
    let dir = tempfile::tempdir().expect("temp dir");
    let err = Recipe::parse(&refill, &dir.path().join("r.toml")).unwrap_err();
    assert!(err.to_string().contains("stage[1].refill"), "{err}");
}

#[test]
fn a_genrm_eval_set_names_a_bad_baseline_or_endpoint() {
    let judged = |config: &str| {
        GOOD.replacen(
            "[[stage]]",
            &format!("[[eval]]\ndomain = \"judged\"\nenv = \"genrm\"\ndataset = \"DATA\"\nconfig = {config}\n\n[[stage]]"),
            1,
        )
    };
    check(&judged(
        r#"{ endpoint = "http://127.0.0.1:9/v1", model = "j", baseline = "a" }"#,
    ))
    .expect("a policy stage as the baseline");
    fails_with(
        &judged(r#"{ endpoint = "http://127.0.0.1:9/v1", model = "j", baseline = "nope" }"#),
        "eval[1].config.baseline",
    );
    fails_with(
        &judged(r#"{ endpoint = "https://judge/v1", model = "j" }"#),
        "http:// URL",
    );
}

/// `importance_correction` on GRPO and MOPD stages: each kind parses with NeMo-RL's
/// default bounds, MOPD keeps Cascade's gate when the key is absent, and a bad kind,
/// key or bound is refused by name.
#[test]
fn the_importance_correction_key_parses_and_refuses_bad_values() {
    use cascade_trainer::grpo::ImportanceCorrection;
    use cascade_trainer::recipe::StageSpec;
    let on_grpo = |value: &str| {
        GOOD.replacen(
            "group_size = 4\nmax_new_tokens = 4",
            &format!("group_size = 4\nmax_new_tokens = 4\nimportance_correction = {value}"),
            1,
        )
    };
    let parsed = |text: &str| {
        let recipe = Recipe::parse(text, Path::new("r.toml")).expect("parses");
        let grpo = match &recipe.stages[0] {
            StageSpec::Grpo(g) => g.importance_correction,
            other => panic!("{other:?}"),
        };
        let mopd = match &recipe.stages[1] {
            StageSpec::Mopd(m) => m.importance_correction,
            other => panic!("{other:?}"),
        };
        (grpo, mopd)
    };
    assert_eq!(
        parsed(GOOD),
        (
            ImportanceCorrection::Off,
            ImportanceCorrection::CASCADE_MOPD
        )
    );
    let text = on_grpo("{ kind = \"seq-mask-tis\" }");
    check(&text).expect("valid");
    assert_eq!(
        parsed(&text).0,
        ImportanceCorrection::SeqMaskTis {
            min: 0.999,
            max: 1.002
        }
    );
    let text = on_grpo("{ kind = \"tis\", max = 3 }");
    assert_eq!(
        parsed(&text).0,
        ImportanceCorrection::Tis { min: 0.0, max: 3.0 }
    );
    let mopd_off = GOOD.replacen(
        "group_size = 2\nmax_new_tokens = 4",
        "group_size = 2\nmax_new_tokens = 4\nimportance_correction = { kind = \"off\" }",
        1,
    );
    assert_eq!(parsed(&mopd_off).1, ImportanceCorrection::Off);
    fails_with(&on_grpo("{ kind = \"tis2\" }"), "unknown variant `tis2`");
    fails_with(
        &on_grpo("{ kind = \"tis\", mx = 2.0 }"),
        "unknown field `mx`",
    );
    fails_with(
        &on_grpo("{ kind = \"icepop\", min = 3.0, max = 2.0 }"),
        "stage[0].importance_correction.min",
    );
    fails_with(
        &on_grpo("{ kind = \"tis\", max = -1.0 }"),
        "stage[0].importance_correction.max",
    );
    fails_with(
        &GOOD.replacen("steps = 2", "steps = 2\nimportance = \"tis\"", 1),
        "unknown field `importance`",
    );
}
