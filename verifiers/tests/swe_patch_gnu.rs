//! Cross-check of the applier against GNU `patch` on a generated corpus.
//!
//! Each case: a random file, a random edit of it, the edit's diff from GNU
//! `diff -U N`, and a target that is the original file drifted (lines inserted far
//! from the edits, or a line near an edit changed). Both appliers apply the diff to
//! the target with fuzz 2 and no whitespace tolerance; they must agree on whether it
//! applies and, when it does, on the exact output.
//!
//! Known, intended differences, counted separately rather than asserted away:
//! - GNU `patch` anchors a hunk with less trailing than leading context to the end
//!   of the file; we do so only when the hunk claims to reach the end, so a hunk
//!   whose end moved away by drift still applies here at an offset.
//! - GNU `patch` lets fuzz discard every context line of a pure insertion and then
//!   inserts at the line number the header gives; we refuse, because such a hunk
//!   matches anywhere and the line number of a drifted file is a guess.
//!
//! The test asserts that at most 2% of cases disagree, and that no disagreement is
//! one where both applied but produced different files. Run with
//! `cargo test --test swe_patch_gnu -- --nocapture` to see the figures.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use cascade_verifiers::patch::{apply_patch, parse_patch, ApplyOptions};
use cascade_verifiers::seeded::SplitMix64;

const WORDS: [&str; 12] = [
    "return x", "pass", "x += 1", "if a:", "else:", "", "def f():", "y = g(x)", "# note",
    "print(y)", "i = 0", "break",
];

fn random_line(rng: &mut SplitMix64) -> String {
    // Few distinct lines, so context is often ambiguous and offsets matter.
    if rng.below(3) == 0 {
        WORDS[rng.below(WORDS.len())].to_owned()
    } else {
        format!("line {}", rng.below(400))
    }
}

fn edit(rng: &mut SplitMix64, lines: &[String]) -> Vec<String> {
    let mut out = lines.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(3) {
            0 => out.insert(at, random_line(rng)),
            1 if at < out.len() => {
                out.remove(at);
            }
            _ if at < out.len() => out[at] = random_line(rng),
            _ => out.push(random_line(rng)),
        }
    }
    out
}

fn drift(rng: &mut SplitMix64, lines: &[String]) -> Vec<String> {
    let mut out = lines.to_vec();
    match rng.below(4) {
        0 => {}
        1 => {
            for _ in 0..1 + rng.below(5) {
                out.insert(0, format!("prelude {}", rng.below(1000)));
            }
        }
        2 => {
            let at = rng.below(out.len() + 1);
            for _ in 0..1 + rng.below(3) {
                out.insert(at, format!("inserted {}", rng.below(1000)));
            }
        }
        _ => {
            if !out.is_empty() {
                let at = rng.below(out.len());
                out[at] = format!("changed {}", rng.below(1000));
            }
        }
    }
    out
}

fn text(lines: &[String], final_newline: bool) -> String {
    let mut t = lines.join("\n");
    if final_newline && !lines.is_empty() {
        t.push('\n');
    }
    t
}

fn gnu_apply(dir: &Path, target: &str, diff: &str) -> Option<String> {
    std::fs::write(dir.join("target.txt"), target).unwrap();
    std::fs::write(dir.join("fix.patch"), diff).unwrap();
    let _ = std::fs::remove_file(dir.join("out.txt"));
    let status = Command::new("patch")
        .current_dir(dir)
        .args([
            "--batch",
            "--forward",
            "--fuzz=2",
            "--silent",
            "-r",
            "/dev/null",
        ])
        .args(["-o", "out.txt", "target.txt", "fix.patch"])
        .output()
        .expect("GNU patch is installed (scripts/setup.d/swe.sh)");
    status
        .status
        .success()
        .then(|| std::fs::read_to_string(dir.join("out.txt")).unwrap())
}

#[test]
fn applier_agrees_with_gnu_patch() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(20_240_611);
    let cases = 300;
    let (mut both_ok, mut both_fail, mut only_ours, mut only_gnu, mut differ) = (0, 0, 0, 0, 0);
    let mut samples = Vec::new();
    for case in 0..cases {
        let base: Vec<String> = (0..8 + rng.below(60))
            .map(|_| random_line(&mut rng))
            .collect();
        let newline = rng.below(8) != 0;
        let new = edit(&mut rng, &base);
        let context = [3, 3, 1, 2, 0][rng.below(5)];
        std::fs::write(dir.path().join("a.txt"), text(&base, newline)).unwrap();
        std::fs::write(dir.path().join("b.txt"), text(&new, newline)).unwrap();
        let out = Command::new("diff")
            .current_dir(dir.path())
            .args([format!("-U{context}").as_str(), "a.txt", "b.txt"])
            .output()
            .expect("GNU diff is installed");
        let diff = String::from_utf8(out.stdout).unwrap();
        if diff.is_empty() {
            continue;
        }
        let target = text(&drift(&mut rng, &base), newline);
        let gnu = gnu_apply(dir.path(), &target, &diff);
        let tree = BTreeMap::from([("a.txt".to_owned(), target.clone())]);
        let options = ApplyOptions {
            strip: Some(0),
            max_fuzz: 2,
            whitespace_fallback: false,
        };
        let ours = parse_patch(&diff)
            .ok()
            .and_then(|p| apply_patch(&p, &tree, &options).ok())
            .and_then(|a| a.changes.into_iter().next())
            .and_then(|c| c.content);
        match (&ours, &gnu) {
            (Some(a), Some(b)) if a == b => both_ok += 1,
            (Some(_), Some(_)) => {
                differ += 1;
                samples.push(format!("case {case}: outputs differ\n{diff}"));
            }
            (None, None) => both_fail += 1,
            (Some(_), None) => only_ours += 1,
            (None, Some(_)) => {
                only_gnu += 1;
                samples.push(format!("case {case}: only GNU applied\n{diff}"));
            }
        }
    }
    let total = both_ok + both_fail + only_ours + only_gnu + differ;
    println!(
        "gnu cross-check: {total} cases, {both_ok} both applied identically, {both_fail} both refused, \
         {only_ours} only ours applied, {only_gnu} only GNU applied, {differ} different output"
    );
    for s in samples.iter().take(3) {
        println!("{s}");
    }
    assert_eq!(differ, 0, "outputs differ: {samples:?}");
    assert!(
        (only_ours + only_gnu) * 50 <= total,
        "too many disagreements: {only_ours} only ours, {only_gnu} only GNU of {total}"
    );
}
