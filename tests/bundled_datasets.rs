//! Every bundled sample (`datasets/<env>/sample.jsonl`) reproduces its stored scores
//! (`sample.expected.jsonl`) byte for byte through `cascade check`, as a user's CI would.

use std::path::Path;
use std::process::Command;

#[test]
fn bundled_samples_reproduce_their_stored_scores() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets");
    let mut checked = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&root).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let dir = entry.path();
        let (input, expected) = (dir.join("sample.jsonl"), dir.join("sample.expected.jsonl"));
        if !input.exists() || !expected.exists() {
            continue;
        }
        let env = entry.file_name().to_string_lossy().into_owned();
        let out = Command::new(env!("CARGO_BIN_EXE_cascade"))
            .args(["check", "--env", &env, "--jobs", "2"])
            .arg("--input")
            .arg(&input)
            .arg("--expected")
            .arg(&expected)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{env}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        checked.push(env);
    }
    eprintln!("checked bundled samples of: {checked:?}");
}
