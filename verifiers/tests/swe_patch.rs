//! The patch parser and applier on the cases SWE patches hit: offsets, fuzz, renames,
//! new and deleted files, missing final newlines, CRLF, malformed patches, partial
//! failures, path escapes and SEARCH/REPLACE blocks.

use std::collections::BTreeMap;

use cascade_verifiers::patch::{
    apply_changes, apply_edit_blocks, apply_patch, apply_response, parse_edit_blocks, parse_patch,
    ApplyError, ApplyOptions, BlockStatus, EditError, EditFormat, FileOp, HunkStatus, ParseError,
    PathError,
};

fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
        .collect()
}

/// Applies `diff` to `files` with default options; returns the new tree and the
/// hunk statuses.
fn apply(files: &[(&str, &str)], diff: &str) -> (BTreeMap<String, String>, Vec<HunkStatus>) {
    let mut t = tree(files);
    let patch = parse_patch(diff).expect("patch parses");
    let done = apply_patch(&patch, &t, &ApplyOptions::default()).expect("patch applies");
    apply_changes(&mut t, &done.changes);
    (t, done.hunks.iter().map(|h| h.status).collect())
}

const TEN: &str = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n";

#[test]
fn exact_hunk_applies() {
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n l4\n-l5\n+L5\n l6\n";
    let (t, st) = apply(&[("f.txt", TEN)], diff);
    assert_eq!(t["f.txt"], TEN.replace("l5\n", "L5\n"));
    assert_eq!(st, vec![HunkStatus::Exact]);
}

#[test]
fn hunk_found_at_an_offset() {
    let shifted = format!("new1\nnew2\nnew3\n{TEN}");
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n l4\n-l5\n+L5\n l6\n";
    let mut t = tree(&[("f.txt", &shifted)]);
    let patch = parse_patch(diff).unwrap();
    let done = apply_patch(&patch, &t, &ApplyOptions::default()).unwrap();
    assert_eq!(done.hunks[0].status, HunkStatus::Offset);
    assert_eq!(done.hunks[0].offset, 3);
    apply_changes(&mut t, &done.changes);
    assert_eq!(t["f.txt"], shifted.replace("l5\n", "L5\n"));
}

#[test]
fn later_hunks_follow_the_drift_of_earlier_ones() {
    let diff =
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-l1\n+L1\n l2\n@@ -9,2 +9,2 @@\n l9\n-l10\n+L10\n";
    let content = format!("x\n{TEN}");
    let (t, st) = apply(&[("f", &content)], diff);
    assert_eq!(t["f"], "x\nL1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nL10\n");
    // As GNU patch: the first hunk has less leading than trailing context and starts
    // at line 1, so it is anchored to the file start and needs fuzz 1 to move.
    assert_eq!(st, vec![HunkStatus::Fuzz, HunkStatus::Offset]);
}

#[test]
fn fuzz_ignores_a_changed_outer_context_line() {
    let changed = TEN.replace("l3\n", "l3 edited\n");
    let diff = "--- a/f\n+++ b/f\n@@ -3,5 +3,5 @@\n l3\n l4\n-l5\n+L5\n l6\n l7\n";
    let (t, st) = apply(&[("f", &changed)], diff);
    assert_eq!(t["f"], changed.replace("l5\n", "L5\n"));
    assert_eq!(st, vec![HunkStatus::Fuzz]);
}

#[test]
fn fuzz_zero_refuses_what_fuzz_accepts() {
    let changed = TEN.replace("l3\n", "l3 edited\n");
    let diff = "--- a/f\n+++ b/f\n@@ -3,5 +3,5 @@\n l3\n l4\n-l5\n+L5\n l6\n l7\n";
    let patch = parse_patch(diff).unwrap();
    let strict = ApplyOptions {
        max_fuzz: 0,
        whitespace_fallback: false,
        ..ApplyOptions::default()
    };
    let err = apply_patch(&patch, &tree(&[("f", &changed)]), &strict).unwrap_err();
    assert!(matches!(
        err.error,
        ApplyError::HunkFailed {
            hunk: 1,
            line: 3,
            ..
        }
    ));
    assert_eq!(err.hunks[0].status, HunkStatus::Failed);
}

#[test]
fn whitespace_fallback_tolerates_reindented_context() {
    let file = "def f():\n    x = 1\n    return x\n";
    let diff =
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n def f():\n-  x = 1\n+    x = 2\n   return x\n";
    let (t, st) = apply(&[("m.py", file)], diff);
    assert_eq!(t["m.py"], "def f():\n    x = 2\n    return x\n");
    assert_eq!(st, vec![HunkStatus::Whitespace]);
}

#[test]
fn rename_with_changes() {
    let diff = "diff --git a/old.py b/pkg/new.py\nsimilarity index 80%\nrename from old.py\nrename to pkg/new.py\nindex 1..2 100644\n--- a/old.py\n+++ b/pkg/new.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n";
    let p = parse_patch(diff).unwrap();
    assert_eq!(p.files[0].op, FileOp::Rename);
    let (t, _) = apply(&[("old.py", "a\nb\n")], diff);
    assert_eq!(t.get("old.py"), None);
    assert_eq!(t["pkg/new.py"], "a\nc\n");
}

#[test]
fn pure_rename_has_no_hunks() {
    let diff =
        "diff --git a/x.txt b/y.txt\nsimilarity index 100%\nrename from x.txt\nrename to y.txt\n";
    let (t, st) = apply(&[("x.txt", "same\n")], diff);
    assert!(st.is_empty());
    assert_eq!(t.keys().collect::<Vec<_>>(), vec!["y.txt"]);
    assert_eq!(t["y.txt"], "same\n");
}

#[test]
fn new_and_deleted_files() {
    let diff = "\
diff --git a/gone.py b/gone.py
deleted file mode 100644
index e69de29..0000000
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-x = 1
-y = 2
diff --git a/made.py b/made.py
new file mode 100755
index 0000000..e69de29
--- /dev/null
+++ b/made.py
@@ -0,0 +1,2 @@
+#!/usr/bin/env python3
+print('hi')
";
    let p = parse_patch(diff).unwrap();
    assert_eq!(p.files[0].op, FileOp::Delete);
    assert_eq!(p.files[1].op, FileOp::Create);
    let t = tree(&[("gone.py", "x = 1\ny = 2\n"), ("keep.py", "k\n")]);
    let done = apply_patch(&p, &t, &ApplyOptions::default()).unwrap();
    let made = done.changes.iter().find(|c| c.path == "made.py").unwrap();
    assert_eq!(made.mode, Some(0o755));
    let mut t2 = t.clone();
    apply_changes(&mut t2, &done.changes);
    assert_eq!(t2.keys().collect::<Vec<_>>(), vec!["keep.py", "made.py"]);
    assert_eq!(t2["made.py"], "#!/usr/bin/env python3\nprint('hi')\n");
}

#[test]
fn creating_an_existing_file_is_refused() {
    let diff = "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+x\n";
    let p = parse_patch(diff).unwrap();
    let err = apply_patch(&p, &tree(&[("a.py", "y\n")]), &ApplyOptions::default()).unwrap_err();
    assert_eq!(
        err.error,
        ApplyError::Exists {
            path: "a.py".into()
        }
    );
}

#[test]
fn missing_final_newline_is_kept_added_and_removed() {
    // Change the last line of a file without a final newline; keep it without.
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
    let (t, _) = apply(&[("f", "a\nb")], diff);
    assert_eq!(t["f"], "a\nc");
    // Add the final newline.
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
    let (t, _) = apply(&[("f", "a\nb")], diff);
    assert_eq!(t["f"], "a\nb\n");
    // Remove it.
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n";
    let (t, _) = apply(&[("f", "a\nb\n")], diff);
    assert_eq!(t["f"], "a\nb");
    // Append after a last line that had no newline: it gains one.
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n";
    let (t, _) = apply(&[("f", "a\nb")], diff);
    assert_eq!(t["f"], "a\nb\nc\n");
}

#[test]
fn crlf_files_keep_crlf() {
    let file = "a\r\nb\r\nc\r\n";
    // As git writes it: the \r is part of each body line.
    let diff = "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n";
    let (t, st) = apply(&[("w.txt", file)], diff);
    assert_eq!(t["w.txt"], "a\r\nB\r\nc\r\n");
    assert_eq!(st, vec![HunkStatus::Exact]);
    // A diff whose CRs were lost (copied through a chat) still applies, in CRLF.
    let diff = "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    let (t, _) = apply(&[("w.txt", file)], diff);
    assert_eq!(t["w.txt"], "a\r\nB\r\nc\r\n");
    // A whole patch in CRLF (headers too) applies to an LF file.
    let diff = "--- a/u.txt\r\n+++ b/u.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n";
    let (t, _) = apply(&[("u.txt", "a\nb\n")], diff);
    assert_eq!(t["u.txt"], "a\nB\n");
}

#[test]
fn missing_hunk_counts_mean_one() {
    let diff = "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n";
    let (t, st) = apply(&[("f", "a\nb\nc\n")], diff);
    assert_eq!(t["f"], "a\nB\nc\n");
    assert_eq!(st, vec![HunkStatus::Exact]);
    let p = parse_patch(diff).unwrap();
    assert!(!p.files[0].hunks[0].recounted);
}

#[test]
fn wrong_counts_are_recounted_at_a_clean_boundary() {
    let diff = "--- a/f\n+++ b/f\n@@ -1,7 +1,9 @@\n a\n-b\n+B\n c\n@@ -4 +4 @@\n-d\n+D\n";
    let p = parse_patch(diff).unwrap();
    assert!(p.files[0].hunks[0].recounted);
    let (t, _) = apply(&[("f", "a\nb\nc\nd\n")], diff);
    assert_eq!(t["f"], "a\nB\nc\nD\n");
    // The same short body at the end of the patch is a truncation, refused whole.
    let cut = "--- a/f\n+++ b/f\n@@ -1,7 +1,9 @@\n a\n-b\n+B\n c\n";
    assert!(matches!(
        parse_patch(cut).unwrap_err(),
        ParseError::TruncatedHunk { line: 3, .. }
    ));
}

#[test]
fn empty_context_lines_from_stripping_editors() {
    let diff = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n";
    let (t, _) = apply(&[("f", "a\n\nc\n")], diff);
    assert_eq!(t["f"], "a\n\nC\n");
}

#[test]
fn strip_levels_explicit_and_guessed() {
    let diff = "--- src/m.py\n+++ src/m.py\n@@ -1 +1 @@\n-x\n+y\n";
    let (t, _) = apply(&[("src/m.py", "x\n")], diff);
    assert_eq!(t["src/m.py"], "y\n");
    let diff = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x\n+y\n";
    let p = parse_patch(diff).unwrap();
    let t = tree(&[("a/m.py", "x\n")]);
    let done = apply_patch(&p, &t, &ApplyOptions::default()).unwrap();
    assert_eq!((done.strip, done.changes[0].path.as_str()), (0, "a/m.py"));
    let p2 = ApplyOptions {
        strip: Some(2),
        ..ApplyOptions::default()
    };
    let diff = "--- x/y/m.py\n+++ x/y/m.py\n@@ -1 +1 @@\n-x\n+y\n";
    let done = apply_patch(&parse_patch(diff).unwrap(), &tree(&[("m.py", "x\n")]), &p2).unwrap();
    assert_eq!(done.changes[0].path, "m.py");
}

#[test]
fn quoted_git_paths_and_spaces() {
    let diff = "diff --git \"a/dir/sp ace\\303\\251.txt\" \"b/dir/sp ace\\303\\251.txt\"\n--- \"a/dir/sp ace\\303\\251.txt\"\n+++ \"b/dir/sp ace\\303\\251.txt\"\n@@ -1 +1 @@\n-x\n+y\n";
    let (t, _) = apply(&[("dir/sp aceé.txt", "x\n")], diff);
    assert_eq!(t["dir/sp aceé.txt"], "y\n");
    let diff = "diff --git a/my file.txt b/my file.txt\nnew file mode 100644\n";
    let p = parse_patch(diff).unwrap();
    assert_eq!(p.files[0].new_path.as_deref(), Some("b/my file.txt"));
}

#[test]
fn multi_file_patch_with_commit_message_preamble() {
    let diff = "From abc Mon Sep 17 00:00:00 2001\nSubject: fix\n\n---\n x | 2 +-\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-1\n+2\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-3\n+4\n-- \n2.40.0\n";
    let (t, st) = apply(&[("x", "1\n"), ("y", "3\n")], diff);
    assert_eq!((t["x"].as_str(), t["y"].as_str()), ("2\n", "4\n"));
    assert_eq!(st.len(), 2);
}

#[test]
fn malformed_patches_name_the_line_and_touch_nothing() {
    let garbled = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @ broken\n a\n-b\n+c\n";
    assert_eq!(
        parse_patch(garbled).unwrap_err(),
        ParseError::BadHunkHeader {
            line: 3,
            text: "@@ -1,2 +1,2 @ broken".into()
        }
    );
    let foreign = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\nthis is prose\n-b\n+c\n";
    let err = parse_patch(foreign).unwrap_err();
    assert!(
        matches!(err, ParseError::BadHunkLine { line: 5, .. }),
        "{err}"
    );
    assert!(err.to_string().starts_with("line 5:"));
    // GNU patch exits 0 on a header without hunks and changes nothing; we refuse.
    let headless = "--- a/f\n+++ b/f\n a\n-b\n+c\n";
    assert!(matches!(
        parse_patch(headless).unwrap_err(),
        ParseError::NoHunks { line: 1, .. }
    ));
    assert_eq!(parse_patch("just prose\n").unwrap_err(), ParseError::NoDiff);
    let outside = "@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(
        parse_patch(outside).unwrap_err(),
        ParseError::HunkOutsideFile { line: 1 }
    );
    let t = tree(&[("f", "a\nb\n")]);
    for bad in [garbled, foreign, headless] {
        let out = apply_response(bad, &t, &ApplyOptions::default());
        assert!(!out.applied);
        assert!(out.changes.is_empty());
        assert!(out.error.is_some());
    }
}

#[test]
fn a_failing_second_hunk_applies_nothing() {
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-l1\n+L1\n l2\n@@ -8,3 +8,3 @@\n l8\n-NOT THERE\n+x\n l10\n";
    let p = parse_patch(diff).unwrap();
    let rej = apply_patch(&p, &tree(&[("f", TEN)]), &ApplyOptions::default()).unwrap_err();
    assert_eq!(
        rej.hunks.iter().map(|h| h.status).collect::<Vec<_>>(),
        vec![HunkStatus::Exact, HunkStatus::Failed]
    );
    assert!(matches!(
        rej.error,
        ApplyError::HunkFailed {
            hunk: 2,
            line: 7,
            ..
        }
    ));
    // Same across files: a good first file is not written either.
    let two = "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-g\n+G\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-zzz\n+y\n";
    let out = apply_response(
        two,
        &tree(&[("f", TEN), ("g", "g\n")]),
        &ApplyOptions::default(),
    );
    assert!(!out.applied);
    assert!(out.changes.is_empty());
}

#[test]
fn escapes_refuse_the_whole_patch() {
    let t = tree(&[("ok.py", "x\n")]);
    let good = "--- a/ok.py\n+++ b/ok.py\n@@ -1 +1 @@\n-x\n+y\n";
    let cases = [
        (
            "--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root\n+evil\n",
            "ParentDir",
        ),
        (
            "--- /dev/null\n+++ /etc/cron.d/x\n@@ -0,0 +1 @@\n+evil\n",
            "Absolute",
        ),
        (
            "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+evil\n",
            "GitDir",
        ),
        (
            "diff --git a/x b/x\nrename from ok.py\nrename to ../outside.py\n",
            "ParentDir",
        ),
    ];
    for (evil, kind) in cases {
        let both = format!("{good}{evil}");
        let out = apply_response(&both, &t, &ApplyOptions::default());
        assert!(!out.applied, "{kind}: {both}");
        assert!(out.changes.is_empty());
        let p = parse_patch(&both).unwrap();
        let err = apply_patch(&p, &t, &ApplyOptions::default())
            .unwrap_err()
            .error;
        let ApplyError::Path(path_err) = err else {
            panic!("{kind}: not a path error: {err}")
        };
        let name = match path_err {
            PathError::ParentDir(_) => "ParentDir",
            PathError::Absolute(_) => "Absolute",
            PathError::GitDir(_) => "GitDir",
            _ => "other",
        };
        assert_eq!(name, kind);
    }
}

#[test]
fn symlink_modes_and_binary_patches_are_refused() {
    let t = tree(&[]);
    let link = "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n\\ No newline at end of file\n";
    let err = apply_patch(&parse_patch(link).unwrap(), &t, &ApplyOptions::default()).unwrap_err();
    assert!(matches!(err.error, ApplyError::SymlinkMode { .. }));
    let bin = "diff --git a/b.png b/b.png\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral 5\nMcmZ?wbN\n\nliteral 0\nKcmV+b0RR6000031\n";
    let err = apply_patch(&parse_patch(bin).unwrap(), &t, &ApplyOptions::default()).unwrap_err();
    assert!(matches!(err.error, ApplyError::Binary { .. }));
}

#[test]
fn fenced_diffs_in_prose_responses() {
    let t = tree(&[("a.py", "1\n"), ("b.py", "2\n")]);
    let response = "I'll fix both files.\n\n```diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-1\n+one\n```\n\nand\n\n```diff\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-2\n+two\n```\nDone.\n";
    let out = apply_response(response, &t, &ApplyOptions::default());
    assert!(out.applied, "{:?}", out.error);
    assert_eq!(out.format, EditFormat::Diff);
    assert_eq!(out.changes.len(), 2);
    // A draft then a final version of the same file: only the final one applies.
    let drafts = "```diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-1\n+draft\n```\nBetter:\n```diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-1\n+final\n```\n";
    let out = apply_response(drafts, &t, &ApplyOptions::default());
    assert_eq!(out.changes[0].content.as_deref(), Some("final\n"));
    let none = apply_response("I could not find the bug.", &t, &ApplyOptions::default());
    assert_eq!((none.applied, none.format), (false, EditFormat::None));
    let empty = apply_response("", &t, &ApplyOptions::default());
    assert!(!empty.applied);
}

const CODE: &str = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";

#[test]
fn edit_blocks_exact_and_ambiguous() {
    let t = tree(&[("calc.py", CODE)]);
    let ambiguous =
        "calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n";
    let blocks = parse_edit_blocks(ambiguous).unwrap();
    assert_eq!(
        apply_edit_blocks(&blocks, &t).unwrap_err(),
        EditError::Ambiguous {
            block: 1,
            path: "calc.py".into(),
            count: 2
        }
    );
    let precise = "```python\n### calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a + b\n>>>>>>> REPLACE\n```\n";
    let out = apply_response(precise, &t, &ApplyOptions::default());
    assert_eq!(out.format, EditFormat::EditBlocks);
    assert_eq!(
        out.changes[0].content.as_deref(),
        Some(CODE.replacen("a - b", "a + b", 1).as_str())
    );
    let missing = "calc.py\n<<<<<<< SEARCH\nnot in file\n=======\nx\n>>>>>>> REPLACE\n";
    let err = apply_edit_blocks(&parse_edit_blocks(missing).unwrap(), &t).unwrap_err();
    assert!(matches!(err, EditError::NotFound { block: 1, .. }));
}

#[test]
fn edit_blocks_whitespace_normalised_and_reindented() {
    // The SEARCH lost its indentation and has trailing blanks; the REPLACE is
    // shifted by the same missing indentation.
    let t = tree(&[("k.py", "class K:\n    def f(self):\n        return 1\n")]);
    let block = "k.py\n<<<<<<< SEARCH\ndef f(self):  \n    return 1\n=======\ndef f(self):\n    return 2\n>>>>>>> REPLACE\n";
    let done = apply_edit_blocks(&parse_edit_blocks(block).unwrap(), &t).unwrap();
    assert_eq!(done.blocks[0].status, BlockStatus::Whitespace);
    assert_eq!(
        done.changes[0].content.as_deref(),
        Some("class K:\n    def f(self):\n        return 2\n")
    );
}

#[test]
fn edit_blocks_all_or_nothing_and_paths() {
    let t = tree(&[("calc.py", CODE)]);
    let second_bad = "calc.py\n<<<<<<< SEARCH\ndef add(a, b):\n=======\ndef plus(a, b):\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nnope\n=======\nx\n>>>>>>> REPLACE\n";
    let out = apply_response(second_bad, &t, &ApplyOptions::default());
    assert!(!out.applied && out.changes.is_empty());
    let escape = "../../etc/passwd\n<<<<<<< SEARCH\n=======\nevil\n>>>>>>> REPLACE\n";
    let out = apply_response(escape, &t, &ApplyOptions::default());
    assert!(!out.applied);
    assert!(out.error.unwrap().contains("climbs out"));
    let create = "new_mod.py\n<<<<<<< SEARCH\n=======\nX = 1\n>>>>>>> REPLACE\n";
    let out = apply_response(create, &t, &ApplyOptions::default());
    assert_eq!(out.changes[0].content.as_deref(), Some("X = 1\n"));
    let unterminated = "calc.py\n<<<<<<< SEARCH\nx\n=======\ny\n";
    assert_eq!(
        parse_edit_blocks(unterminated).unwrap_err(),
        EditError::Unterminated { line: 2 }
    );
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Lines that look like pieces of diffs and edit blocks, to reach deep paths.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("--- a/f".to_owned()),
            Just("+++ b/f".to_owned()),
            Just("diff --git a/f b/f".to_owned()),
            Just("rename from f".to_owned()),
            Just("rename to g".to_owned()),
            Just("new file mode 100644".to_owned()),
            Just("\\ No newline at end of file".to_owned()),
            Just("<<<<<<< SEARCH".to_owned()),
            Just("=======".to_owned()),
            Just(">>>>>>> REPLACE".to_owned()),
            Just("```diff".to_owned()),
            Just("```".to_owned()),
            (0usize..5, 0usize..4, 0usize..5, 0usize..4)
                .prop_map(|(a, b, c, d)| format!("@@ -{a},{b} +{c},{d} @@")),
            "[ +-][a-c]{0,3}\r?",
            ".{0,12}",
        ]
    }

    proptest! {
        // A fixed seed: the same cases on every run, so CI never flakes.
        #![proptest_config(ProptestConfig {
            cases: 400,
            rng_seed: proptest::test_runner::RngSeed::Fixed(6),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]
        #[test]
        fn parse_and_apply_never_panic(lines in proptest::collection::vec(piece(), 0..24)) {
            let text = lines.join("\n");
            let t = tree(&[("f", "a\nb\nc\n"), ("g", "x")]);
            let _ = parse_patch(&text);
            let out = apply_response(&text, &t, &ApplyOptions::default());
            prop_assert!(out.applied || out.changes.is_empty());
        }
    }
}
