//! Truncated patches (a response cut off inside its last hunk) are refused whole, as
//! `git apply` refuses a corrupt patch; miscounted headers whose body is complete are
//! still recounted.

use std::collections::BTreeMap;

use cascade_verifiers::patch::{
    apply_patch, apply_response, parse_patch, ApplyOptions, ParseError,
};

const TEN: &str = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n";

/// Two hunks on `f`, each with three lines of context on both sides.
const WHOLE: &str = "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n l1\n-l2\n+L2\n+L2b\n l3\n l4\n@@ -6,4 +7,4 @@\n l6\n l7\n-l8\n+L8\n l9\n";

fn files() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("f".to_owned(), TEN.to_owned()),
        ("g".to_owned(), "g\n".to_owned()),
    ])
}

#[test]
fn the_whole_patch_applies() {
    let out = apply_response(WHOLE, &files(), &ApplyOptions::default());
    assert!(out.applied, "{:?}", out.error);
}

#[test]
fn a_patch_cut_after_its_added_lines_is_refused() {
    // The last hunk promises 4 old lines; the response ends after 3 of them.
    let cut = WHOLE.strip_suffix(" l9\n").unwrap();
    let err = parse_patch(cut).unwrap_err();
    assert_eq!(
        err,
        ParseError::TruncatedHunk {
            line: 10,
            old_count: 4,
            new_count: 4,
            old_seen: 3,
            new_seen: 3,
        }
    );
    assert!(err.to_string().contains("truncated"), "{err}");
    let out = apply_response(cut, &files(), &ApplyOptions::default());
    assert!(!out.applied);
    assert!(out.changes.is_empty());
    assert!(out.error.unwrap().contains("truncated"));
}

/// Byte offsets after the first hunk header where `WHOLE` may be cut, but not the
/// one between the two hunks: a cut there leaves a shorter but complete patch, which
/// no parser can tell from an intended one.
fn cuts_inside_hunks() -> impl Iterator<Item = usize> {
    let first_body = WHOLE.find("@@ -1,4").unwrap() + "@@ -1,4 +1,5 @@\n".len();
    let between = WHOLE.find("@@ -6,4").unwrap();
    (first_body..WHOLE.len()).filter(move |&end| end != between)
}

#[test]
fn every_line_cut_inside_a_hunk_refuses_the_whole_patch() {
    let line_ends = cuts_inside_hunks().filter(|&end| WHOLE.as_bytes()[end - 1] == b'\n');
    for end in line_ends {
        let cut = &WHOLE[..end];
        let out = apply_response(cut, &files(), &ApplyOptions::default());
        assert!(!out.applied, "cut at byte {end} applied:\n{cut}");
        assert!(out.changes.is_empty());
    }
}

#[test]
fn every_byte_cut_inside_a_fenced_hunk_refuses_the_whole_patch() {
    // Mid-line too: the open fence shows the response ended there. (A bare diff cut
    // mid-line in its last line meets its counts and cannot be told from a diff
    // whose final newline was stripped.)
    for end in cuts_inside_hunks() {
        let response = format!("Fix:\n```diff\n{}", &WHOLE[..end]);
        let out = apply_response(&response, &files(), &ApplyOptions::default());
        assert!(!out.applied, "cut at byte {end} applied:\n{response}");
        assert!(out.changes.is_empty());
    }
}

#[test]
fn a_response_cut_inside_an_unclosed_fence_is_refused() {
    let response = format!(
        "Here is the fix:\n\n```diff\n{}",
        WHOLE.strip_suffix("+L8\n l9\n").unwrap()
    );
    let out = apply_response(&response, &files(), &ApplyOptions::default());
    assert!(!out.applied);
    assert!(out.error.unwrap().contains("truncated"));
}

#[test]
fn a_response_cut_mid_line_inside_an_unclosed_fence_is_refused() {
    // The counts are met, but the last added line was cut: `+L8` became `+L`. Only an
    // unclosed fence tells: the response ended there, so its last line is partial.
    let diff = "--- a/f\n+++ b/f\n@@ -8,1 +8,1 @@\n-l8\n+L";
    let response = format!("The fix:\n```diff\n{diff}");
    let out = apply_response(&response, &files(), &ApplyOptions::default());
    assert!(!out.applied);
    assert!(out.error.unwrap().contains("truncated"));
    // The same diff, closed, applies (what it says is what it does).
    let closed = format!("The fix:\n```diff\n{diff}\n```\n");
    assert!(apply_response(&closed, &files(), &ApplyOptions::default()).applied);
}

#[test]
fn a_short_last_hunk_in_a_closed_fence_is_recounted() {
    // The response closed its fence after the diff: the body is whole, the header
    // (4 old lines for 3) is a miscount, as in the bundled `calc-sloppy-diff` task.
    let diff = "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n l1\n-l2\n+L2\n l3\n";
    let closed = format!("Fix:\n```diff\n{diff}```\nThat should do it.\n");
    let out = apply_response(&closed, &files(), &ApplyOptions::default());
    assert!(out.applied, "{:?}", out.error);
    // The same diff bare, or in a fence left open, may have been cut off.
    assert!(!apply_response(diff, &files(), &ApplyOptions::default()).applied);
    let open = format!("Fix:\n```diff\n{diff}");
    assert!(!apply_response(&open, &files(), &ApplyOptions::default()).applied);
}

#[test]
fn a_complete_first_file_is_not_written_when_the_second_is_truncated() {
    let diff =
        "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-g\n+G\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n l1\n-l2\n";
    let out = apply_response(diff, &files(), &ApplyOptions::default());
    assert!(!out.applied);
    assert!(out.changes.is_empty());
}

#[test]
fn a_miscounted_hunk_followed_by_another_is_recounted() {
    // The first header promises 9 old lines but the next `@@` follows after 3: the
    // body is complete, the counts are a model's slip.
    let diff =
        "--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n l1\n-l2\n+L2\n l3\n@@ -8,2 +8,2 @@\n-l8\n+L8\n l9\n";
    let patch = parse_patch(diff).unwrap();
    assert!(patch.files[0].hunks[0].recounted);
    assert!(!patch.files[0].hunks[1].recounted);
    let done = apply_patch(&patch, &files(), &ApplyOptions::default()).unwrap();
    assert_eq!(
        done.changes[0].content.as_deref(),
        Some(TEN.replace("l2\n", "L2\n").replace("l8\n", "L8\n").as_str())
    );
}

#[test]
fn a_miscounted_hunk_before_the_next_file_is_recounted() {
    let diff =
        "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-g\n+G\n";
    let patch = parse_patch(diff).unwrap();
    assert!(patch.files[0].hunks[0].recounted);
    let out = apply_response(diff, &files(), &ApplyOptions::default());
    assert!(out.applied, "{:?}", out.error);
}

#[test]
fn a_body_longer_than_its_counts_is_recounted() {
    let diff = "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n l1\n-l2\n+L2\n l3\n";
    let patch = parse_patch(diff).unwrap();
    assert!(patch.files[0].hunks[0].recounted);
    let done = apply_patch(&patch, &files(), &ApplyOptions::default()).unwrap();
    assert_eq!(
        done.changes[0].content.as_deref(),
        Some(TEN.replace("l2\n", "L2\n").as_str())
    );
}

#[test]
fn a_header_with_no_body_at_the_end_is_truncated() {
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n";
    assert!(matches!(
        parse_patch(diff).unwrap_err(),
        ParseError::TruncatedHunk {
            old_seen: 0,
            new_seen: 0,
            ..
        }
    ));
}
