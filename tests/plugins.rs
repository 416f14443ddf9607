//! Verifier plugins loaded at run time, end to end on the real binary: the examples
//! (Python, WASM from C, TOML) through `envs`, `score`, `check` and a recipe stage;
//! load failures (exit 2, file and line); failures while scoring (reward 0 with the
//! reason, nothing lost or reordered); and untrusted plugins kept in the sandbox.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn cascade(args: &[&str]) -> Output {
    cascade_with(args, &[])
}

fn cascade_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cascade"));
    command.args(args).env_remove("CASCADE_PLUGINS");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("run cascade")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lines(out: &[u8]) -> Vec<Value> {
    text(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/plugins")
}

/// The example plugins copied into `dir/plugins`, with `concise.c` built to WASM.
fn example_plugins(dir: &Path) -> PathBuf {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("wasm") {
            std::fs::copy(&path, plugins.join(path.file_name().unwrap())).unwrap();
        }
    }
    let source = plugins.join("concise.c");
    let built = cascade(&["build-plugin", source.to_str().unwrap()]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    plugins
}

fn score(plugins: &Path, env: &str, input: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "score",
        "--plugins",
        plugins.to_str().unwrap(),
        "--env",
        env,
    ];
    args.extend(["--input", input.to_str().unwrap()]);
    args.extend(extra);
    cascade(&args)
}

#[test]
fn the_examples_work_through_envs_score_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = example_plugins(dir.path());
    let listed = cascade(&["envs", "--plugins", plugins.to_str().unwrap()]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listing = text(&listed.stdout);
    for (name, kind, file) in [
        ("math_brevity", "python plugin", "math_brevity.py"),
        ("concise", "wasm plugin", "concise.wasm"),
        ("final_number", "toml plugin", "final_number.toml"),
    ] {
        let row = listing
            .lines()
            .position(|l| l.starts_with(&format!("{name} ")))
            .unwrap();
        let (line, sha) = (
            listing.lines().nth(row).unwrap(),
            listing.lines().nth(row + 1).unwrap(),
        );
        assert!(line.contains(kind) && line.contains(file), "{line}");
        let sha = sha.trim().strip_prefix("sha256 ").expect("a sha256 line");
        assert_eq!(sha.len(), 64, "{sha}");

        let input = plugins.join("samples.jsonl");
        let out = score(&plugins, name, &input, &["--jobs", "2"]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let results = lines(&out.stdout);
        let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            ["a", "b", "c", "d", "e"],
            "{name}: every line, in order"
        );
        assert!(results.iter().all(|r| r["details"]["plugin_sha256"] == sha));
        assert_eq!(results[0]["reward"], 1.0, "{name}: {}", results[0]);
        assert!(results[4]["details"]["error"]
            .as_str()
            .unwrap()
            .contains("response"));
        assert!(
            text(&out.stderr).contains(&format!("sha256 {sha}")),
            "{}",
            text(&out.stderr)
        );
        // The same bytes on one thread, and `check` agrees.
        let again = score(&plugins, name, &input, &["--jobs", "1"]);
        assert_eq!(again.stdout, out.stdout, "{name}: deterministic");
        let expected = dir.path().join(format!("{name}.expected.jsonl"));
        std::fs::write(&expected, &out.stdout).unwrap();
        let check = cascade(&[
            "check",
            "--plugins",
            plugins.to_str().unwrap(),
            "--env",
            name,
            "--input",
            input.to_str().unwrap(),
            "--expected",
            expected.to_str().unwrap(),
        ]);
        assert!(check.status.success(), "{name}: {}", text(&check.stderr));
    }
    let components = lines(
        &score(
            &plugins,
            "final_number",
            &plugins.join("samples.jsonl"),
            &[],
        )
        .stdout,
    );
    assert_eq!(components[1]["reward"], 0.1);
    assert_eq!(components[1]["details"]["reward_components"]["answer"], 0.0);
    assert_eq!(components[1]["details"]["reward_components"]["short"], 1.0);
}

#[test]
fn check_names_a_changed_plugin_as_the_cause_of_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = example_plugins(dir.path());
    let input = plugins.join("samples.jsonl");
    let before = score(&plugins, "math_brevity", &input, &[]);
    let expected = dir.path().join("expected.jsonl");
    std::fs::write(&expected, &before.stdout).unwrap();
    let code = plugins.join("math_brevity.py");
    let changed = std::fs::read_to_string(&code)
        .unwrap()
        .replace("0.9 + 0.1", "0.5 + 0.5");
    std::fs::write(&code, changed).unwrap();
    let check = cascade(&[
        "check",
        "--plugins",
        plugins.to_str().unwrap(),
        "--env",
        "math_brevity",
        "--input",
        input.to_str().unwrap(),
        "--expected",
        expected.to_str().unwrap(),
    ]);
    assert_eq!(check.status.code(), Some(1));
    let err = text(&check.stderr);
    assert!(err.contains("plugin `math_brevity` changed"), "{err}");
}

#[test]
fn plugins_are_found_through_the_environment_variable() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    std::fs::create_dir(&one).unwrap();
    std::fs::write(
        one.join("always.py"),
        "def verify(sample):\n    return True\n",
    )
    .unwrap();
    let paths = format!("{}:{}", one.display(), examples().display());
    let out = cascade_with(&["envs"], &[("CASCADE_PLUGINS", &paths)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    assert!(
        listing.contains("always ") && listing.contains("final_number "),
        "{listing}"
    );
}

/// `cascade envs` with `files` written into a fresh plugin folder.
fn load(files: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    for (name, body) in files {
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    cascade(&["envs", "--plugins", dir.path().to_str().unwrap()])
}

fn refused(files: &[(&str, &str)]) -> String {
    let out = load(files);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    text(&out.stderr)
}

#[test]
fn a_plugin_that_fails_to_load_is_exit_2_naming_the_file_and_line() {
    let err = refused(&[("bad.py", "import json\n\ndef verify(s)\n    return 1\n")]);
    assert!(
        err.contains("bad.py:3") && err.contains("SyntaxError"),
        "{err}"
    );
    let err = refused(&[("boom.py", "x = 1\nraise RuntimeError('no')\n")]);
    assert!(
        err.contains("boom.py:2") && err.contains("RuntimeError: no"),
        "{err}"
    );
    let err = refused(&[("empty.py", "def check(s):\n    return 1\n")]);
    assert!(
        err.contains("empty.py") && err.contains("no function `verify"),
        "{err}"
    );
    let err = refused(&[("imp.py", "import not_a_module\n")]);
    assert!(
        err.contains("imp.py:1") && err.contains("ModuleNotFoundError"),
        "{err}"
    );
    let toml = "[[component]]\nname = \"a\"\ncheck = \"regex\"\npattern = \"x\"\npatern = \"y\"\n";
    let err = refused(&[("typo.toml", toml)]);
    assert!(
        err.contains("typo.toml:5") && err.contains("patern"),
        "{err}"
    );
    let toml = "[[component]]\nname = \"a\"\ncheck = \"regex\"\npattern = \"x\"\ntolerance = 1\n";
    let err = refused(&[("wrong.toml", toml)]);
    assert!(
        err.contains("`tolerance` does not apply to a `regex` check"),
        "{err}"
    );
    let toml = "[[component]]\nname = \"a\"\ncheck = \"verifier\"\nverifier = \"nope\"\n";
    let err = refused(&[("ref.toml", toml)]);
    assert!(err.contains("unknown verifier `nope`"), "{err}");
    let slow = "python = \"slow.py\"\n[limits]\nload_time_s = 0.2\n";
    let err = refused(&[("slow.toml", slow), ("slow.py", "while True:\n    pass\n")]);
    assert!(
        err.contains("loading") && err.contains("time limit (0.2 s)"),
        "{err}"
    );
    let err = refused(&[
        ("limits.toml", "python = \"x.py\"\n[limits]\ntime = 1\n"),
        ("x.py", ""),
    ]);
    assert!(
        err.contains("limits.toml:3") && err.contains("time"),
        "{err}"
    );
}

#[test]
fn a_name_that_clashes_is_refused_naming_both() {
    let err = refused(&[("math.py", "def verify(s):\n    return 1\n")]);
    assert!(
        err.contains("`math`") && err.contains("cascade-envs") && err.contains("math.py"),
        "{err}"
    );
    let toml = "[[component]]\nname = \"a\"\ncheck = \"length\"\nmax_words = 3\n";
    let err = refused(&[
        ("twin.py", "def verify(s):\n    return 1\n"),
        ("twin.toml", toml),
    ]);
    assert!(
        err.contains("twin.toml") && err.contains("twin.py"),
        "{err}"
    );
}

/// A plugin that fails in a different way for each sample id.
const FAILING: &str = r#"
import os, sys
def verify(sample):
    kind = sample["id"]
    if kind == "raise":
        return {}["missing"]
    if kind == "spin":
        while True:
            pass
    if kind == "memory":
        blocks = []
        while True:
            blocks.append(bytearray(16 << 20))
    if kind == "string":
        return "1.0"
    if kind == "nan":
        return float("nan")
    if kind == "none":
        return None
    if kind == "key":
        return {"reward": 1, "score": 1}
    if kind == "exit":
        os._exit(3)
    if kind == "print":
        print("x" * 100_000_000)
    if kind == "object":
        return object()
    if kind == "files":
        held = [open(__file__) for _ in range(100_000)]
    if kind == "recurse":
        sys.setrecursionlimit(10**8)
        def down(n):
            return down(n + 1) + 1
        return down(0)
    return len(sample["response"]) / 10
"#;

#[test]
fn failures_while_scoring_are_reward_zero_with_the_reason_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    std::fs::write(plugins.join("failing.py"), FAILING).unwrap();
    let manifest =
        "python = \"failing.py\"\n[limits]\ntime_s = 0.3\nmemory_mb = 128\nworkers = 2\n";
    std::fs::write(plugins.join("failing.toml"), manifest).unwrap();
    let kinds = [
        "ok", "raise", "ok", "spin", "ok", "memory", "string", "nan", "none", "key", "exit",
        "print", "object", "files", "recurse", "ok",
    ];
    let input: String = kinds
        .iter()
        .map(|k| format!("{{\"id\": \"{k}\", \"response\": \"abcde\"}}\n"))
        .collect();
    let input_path = dir.path().join("in.jsonl");
    std::fs::write(&input_path, input + "{\"id\": \"no-response\"}\n").unwrap();
    let out = score(&plugins, "failing", &input_path, &["--jobs", "2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results = lines(&out.stdout);
    assert_eq!(results.len(), kinds.len() + 1, "one line per input line");
    let error = |i: usize| {
        results[i]["details"]["error"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    for (i, kind) in kinds.iter().enumerate() {
        assert_eq!(results[i]["id"], *kind, "in order");
        if *kind == "ok" {
            assert_eq!(results[i]["reward"], 0.5, "{}", results[i]);
        } else {
            // A model's own fault is a 0; the plugin's (a crash, a limit) is no
            // verdict at all: `reward: null` with `details.failed`.
            let failed = results[i]["details"]["failed"] == true;
            let want = if failed {
                Value::Null
            } else {
                serde_json::json!(0.0)
            };
            assert_eq!(results[i]["reward"], want, "{}", results[i]);
            assert!(!error(i).is_empty(), "{kind}: {}", results[i]);
        }
    }
    assert!(
        error(1).contains("KeyError") && error(1).contains("line 6"),
        "{}",
        error(1)
    );
    assert!(error(3).contains("time limit"), "{}", error(3));
    assert!(
        error(5).contains("memory") || error(5).contains("MemoryError"),
        "{}",
        error(5)
    );
    assert!(error(6).contains("string"), "{}", error(6));
    assert!(error(7).contains("NaN"), "{}", error(7));
    assert!(error(8).contains("None"), "{}", error(8));
    assert!(error(9).contains("unknown key `score`"), "{}", error(9));
    assert!(error(10).contains("exited with code 3"), "{}", error(10));
    assert!(error(12).contains("object"), "{}", error(12));
    assert!(error(13).contains("open-files"), "{}", error(13));
    // Deep recursion ends in whichever limit it meets first: the stack, or the fuel.
    let recursion = error(14);
    let limits = ["crashed", "Recursion", "time limit", "memory"];
    assert!(limits.iter().any(|w| recursion.contains(w)), "{recursion}");
    assert!(
        results[kinds.len()]["details"]["error"].is_string(),
        "the malformed sample"
    );
}

/// Each probe tries to reach the host and reports what it got.
const PROBES: &str = r#"
import os, sys, time, random

def attempt(action):
    try:
        return "reached: " + repr(action())[:80]
    except BaseException as e:
        return "refused: " + type(e).__name__

def write_own_folder():
    with open("/plugin/written.txt", "w") as f:
        f.write("x")

def spawn():
    import subprocess
    return subprocess.run(["ls"])

def connect():
    import socket
    s = socket.socket()
    s.connect(("127.0.0.1", 22))

def use_ctypes():
    import ctypes
    return ctypes.CDLL(None)

def verify(sample):
    probes = {
        "passwd": attempt(lambda: open("/etc/passwd").read()),
        "root": attempt(lambda: os.listdir("/")),
        "traversal": attempt(lambda: open("/plugin/../../etc/hostname").read()),
        "write_own_folder": attempt(write_own_folder),
        "spawn": attempt(spawn),
        "connect": attempt(connect),
        "ctypes": attempt(use_ctypes),
        "host_env": sorted(k for k in os.environ if k in ("HOME", "PATH", "USER", "CARGO_HOME")),
        "clock": time.time(),
        "random": random.random(),
    }
    return {"reward": 1, "details": probes}
"#;

#[test]
fn plugins_are_untrusted_and_stay_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    std::fs::write(plugins.join("probe.py"), PROBES).unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"1\", \"response\": \"x\"}\n{\"id\": \"2\", \"response\": \"x\"}\n",
    )
    .unwrap();
    let out = score(&plugins, "probe", &input, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results = lines(&out.stdout);
    let probes = &results[0]["details"];
    for key in [
        "passwd",
        "traversal",
        "write_own_folder",
        "spawn",
        "connect",
        "ctypes",
    ] {
        let got = probes[key].as_str().unwrap();
        assert!(got.starts_with("refused"), "{key}: {got}");
    }
    let root = probes["root"].as_str().unwrap();
    assert!(!root.contains("etc") && !root.contains("home"), "{root}");
    assert_eq!(probes["host_env"], serde_json::json!([]));
    assert!(!plugins.join("written.txt").exists());
    // Every call sees the same seeded random source.
    assert_eq!(
        results[0]["details"]["random"],
        results[1]["details"]["random"]
    );
    let again = score(&plugins, "probe", &input, &[]);
    assert_eq!(again.stdout, out.stdout, "the same bytes on a rerun");
}

#[test]
fn numpy_the_host_api_and_async_verify_work_in_a_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let plugin = r#"
import asyncio
import numpy as np
import cascade_plugin

async def verify(sample):
    await asyncio.sleep(0)
    ifeval = cascade_plugin.ifeval(sample["response"], ["change_case:english_lowercase"])
    schema = cascade_plugin.json_schema({"a": 1}, {"type": "object", "required": ["a"]})
    same = cascade_plugin.math_equal("0.5", "\\frac{1}{2}")
    built_in = cascade_plugin.score("exact_match", {"id": "i", "response": "x", "answer": "x"})
    parts = np.array([ifeval["strict"][0], schema["valid"], same, built_in["reward"] == 1.0])
    return {"reward": float(parts.mean()), "reward_components": {"numpy": float(np.sqrt(4.0))}}
"#;
    std::fs::write(plugins.join("composite.py"), plugin).unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"1\", \"response\": \"all lower case\"}\n",
    )
    .unwrap();
    let out = score(&plugins, "composite", &input, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = &lines(&out.stdout)[0];
    assert_eq!(result["reward"], 1.0, "{result}");
    assert_eq!(result["details"]["reward_components"]["numpy"], 2.0);
}

#[test]
fn a_recipe_stage_trains_on_the_three_example_plugins() {
    let dir = tempfile::tempdir().unwrap();
    example_plugins(dir.path());
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("trainer/assets");
    let data = assets.join("addition/train.jsonl");
    let envs: String = ["math_brevity", "final_number", "concise"]
        .iter()
        .map(|name| {
            format!(
                "[[stage.env]]\nname = \"{name}\"\ndataset = \"{}\"\n",
                data.display()
            )
        })
        .collect();
    let recipe = format!(
        "[run]\nmodel = \"{}\"\nseed = 0\ndevice = \"cpu\"\nthreads = 1\nnumerics = \"portable\"\n\
         eval_max_new_tokens = 4\nplugins = [\"plugins\"]\n\n\
         [[eval]]\ndomain = \"final_number\"\ndataset = \"{}\"\n\n\
         [[stage]]\nname = \"plugins\"\nalgorithm = \"grpo\"\nsteps = 2\nlr = 1e-4\n\
         prompts_per_step = 6\ngroup_size = 4\nmax_new_tokens = 4\n{envs}",
        assets.join("toy-qwen2-warm").display(),
        assets.join("addition/eval.jsonl").display(),
    );
    let recipe_path = dir.path().join("recipe.toml");
    std::fs::write(&recipe_path, recipe).unwrap();
    let out_dir = dir.path().join("run");
    let out = cascade(&[
        "train",
        "--recipe",
        recipe_path.to_str().unwrap(),
        "--output",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let metrics = std::fs::read_to_string(out_dir.join("metrics.jsonl")).unwrap();
    let steps: Vec<Value> = metrics
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|m: &Value| m.get("reward_mean").is_some())
        .collect();
    assert_eq!(steps.len(), 2, "{metrics}");
    for step in &steps {
        let reward = step["reward_mean"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&reward), "{step}");
    }
    // The toy model answers sums: the plugins score them well above zero.
    assert!(steps[0]["reward_mean"].as_f64().unwrap() > 0.2, "{metrics}");
}

/// A plugin that loops on heavy host calls is stopped at its own time limit: each call
/// is charged to it (1 ms plus its request bytes), and the host's time on its calls may
/// not pass the limit. Before, such a loop ran ~27 s against a 2 s limit.
#[test]
fn a_plugin_looping_on_heavy_host_calls_stops_at_its_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let plugin = r#"
import cascade_plugin

ITEMS = ", ".join(["1"] * 1000)
HEAVY = "base: &b [" + ITEMS + "]\nrefs:\n" + "  - *b\n" * 2000

def verify(sample):
    row = {"id": "h", "response": HEAVY, "schema_type": "yaml",
           "schema_str": "{\"type\": \"object\"}"}
    while True:
        cascade_plugin.score("structured_output", row)
"#;
    std::fs::write(plugins.join("host_loop.py"), plugin).unwrap();
    let manifest = "python = \"host_loop.py\"\n[limits]\ntime_s = 0.5\n";
    std::fs::write(plugins.join("host_loop.toml"), manifest).unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, "{\"id\": \"1\", \"response\": \"x\"}\n").unwrap();
    let started = std::time::Instant::now();
    let out = score(&plugins, "host_loop", &input, &[]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = &lines(&out.stdout)[0];
    let error = result["details"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("time limit"), "{result}");
    assert_eq!(
        result["reward"],
        Value::Null,
        "the plugin's limit is a failure: {result}"
    );
    // A bound on a hang, not a speed target: the loop ran 27 s before, and the
    // wall-clock backstop alone would allow 10 x 0.5 s + 5 s.
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
}
