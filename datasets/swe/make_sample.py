"""Regenerates sample.jsonl: the bundled `swe` tasks with model-like responses.

Each task pairs a repository under repos/ (with its bug) with a response: the gold
fix, fenced or bare or as SEARCH/REPLACE blocks, and responses that must not
resolve (empty, prose, breaks a PASS_TO_PASS test, malformed, escaping paths,
tampering with the tests). Diffs come from `git diff --no-index`, so they are real
git output. Run from this folder: python3 make_sample.py
Then refresh the scores: cascade score --env swe --input sample.jsonl --output sample.expected.jsonl
"""

import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    with open(path, newline="") as f:
        return f.read()


def diff(repo, edits):
    """git diff of repos/<repo> after applying edits {path: (old, new)} (or
    {path: new_text} for a new file)."""
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "a")
        b = os.path.join(tmp, "b")
        shutil.copytree(os.path.join(HERE, "repos", repo), a)
        shutil.copytree(a, b)
        for path, change in edits.items():
            full = os.path.join(b, path)
            if isinstance(change, tuple):
                old, new = change
                text = read(full)
                assert text.count(old) == 1, (path, old)
                text = text.replace(old, new)
            else:
                text = change
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", newline="") as f:
                f.write(text)
        out = subprocess.run(
            ["git", "diff", "--no-index", "--no-color", "a", "b"],
            cwd=tmp, capture_output=True)
        return out.stdout.decode("utf-8").replace("a/a/", "a/").replace("b/b/", "b/").replace(
            "diff --git a/a/", "diff --git a/").replace(" b/b/", " b/")


CALC_FIX = {"calc/ops.py": ('"""Return a - b."""\n    return a + b', '"""Return a - b."""\n    return a - b')}
CALC_F2P = [f"tests/test_ops.py::test_subtract[{p}]" for p in ("5-3-2", "0-4--4", "1.5-0.5-1.0")]
CALC_P2P = ["tests/test_ops.py::test_add", "tests/test_ops.py::TestMean::test_simple",
            "tests/test_ops.py::TestMean::test_empty", "tests/test_ops.py::test_clamp"]

TEXT_FIX = {"textkit/case.py": ('words = text.split(" ")', "words = text.split()")}
TEXT_F2P = ["tests/test_case.py::SlugifyTest::test_whitespace_runs"]
TEXT_P2P = ["tests/test_case.py::SlugifyTest::test_single_spaces",
            "tests/test_case.py::TitleCaseTest::test_words"]

SHELF_FIX = {"shelf/stock.py": ("self._counts[item] = have - n", "self._counts[item] = max(0, have - n)")}
SHELF_TEST = {"tests/test_stock.py": (
    "        stock.add(\"apple\", -1)\n",
    "        stock.add(\"apple\", -1)\n\n\ndef test_remove_clamps_at_zero(stock):\n"
    "    stock.remove(\"apple\", 5)\n    assert stock.count(\"apple\") == 0\n")}
SHELF_F2P = ["tests/test_stock.py::test_remove_clamps_at_zero"]
SHELF_P2P = ["tests/test_stock.py::test_add_and_count", "tests/test_stock.py::test_negative_add_rejected"]

# ledger needs real pytest (a pyproject.toml pytest section with --strict-markers, a
# conftest hook, caplog): `runner=auto` picks it.
LEDGER_FIX = {"ledger/__init__.py": ("if amount >= balance:", "if amount > balance:")}
LEDGER_F2P = ["tests/test_ledger.py::test_withdraw[100-0]"]
LEDGER_P2P = ["tests/test_ledger.py::test_withdraw[30-70]",
              "tests/test_ledger.py::test_overdraft_is_refused_and_logged",
              "tests/test_ledger.py::test_deposit_must_be_positive"]


def main():
    gold = diff("calc", CALC_FIX)
    calc = dict(repo="repos/calc", fail_to_pass=CALC_F2P, pass_to_pass=CALC_P2P,
                problem_statement="subtract(5, 3) returns 8 instead of 2.")
    breaks_p2p = diff("calc", {"calc/ops.py": (
        'return a + b\n\n\ndef mean(values):\n    """Arithmetic mean of a non-empty sequence."""\n'
        '    if not values:\n        raise ValueError("mean of an empty sequence")\n'
        '    return sum(values) / len(values)',
        'return a - b\n\n\ndef mean(values):\n    """Arithmetic mean of a non-empty sequence."""\n'
        '    return sum(values) / max(len(values), 1)')})
    malformed = gold.replace("@@ -", "@@ garbled -", 1)
    escape_parent = gold + (
        "diff --git a/../../etc/passwd b/../../etc/passwd\n--- a/../../etc/passwd\n"
        "+++ b/../../etc/passwd\n@@ -1 +1 @@\n-root:x:0:0:root:/root:/bin/bash\n+owned\n")
    escape_absolute = gold + "--- /dev/null\n+++ /tmp/cascade-owned.txt\n@@ -0,0 +1 @@\n+owned\n"
    edit_block = ("The subtraction adds. Fix:\n\n```python\n### calc/ops.py\n<<<<<<< SEARCH\n"
                  "def subtract(a, b):\n    \"\"\"Return a - b.\"\"\"\n    return a + b\n=======\n"
                  "def subtract(a, b):\n    \"\"\"Return a - b.\"\"\"\n    return a - b\n"
                  ">>>>>>> REPLACE\n```\n")
    # Hand-written: wrong line numbers and counts, context written without indentation.
    sloppy = ("```diff\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -20,4 +20,4 @@\n"
              " def subtract(a, b):\n-    return a + b\n+    return a - b\n```\n")
    sloppy = sloppy.replace(" def subtract(a, b):\n", " def subtract(a, b):\n     \"\"\"Return a - b.\"\"\"\n")
    second_fails = gold + ("@@ -20,2 +20,2 @@ def clamp(x, low, high):\n     if low > high:\n"
                           "-        raise ValueError(\"not in this file\")\n+        pass\n")

    rows = [
        dict(id="calc-gold-fenced", response=f"The bug is in `subtract`.\n\n```diff\n{gold}```\n", **calc),
        dict(id="calc-gold-bare", response=gold, **calc),
        dict(id="calc-empty", response="", **calc),
        dict(id="calc-prose-only", response="The subtract function adds instead of subtracting.", **calc),
        dict(id="calc-breaks-pass-to-pass", response=breaks_p2p, **calc),
        dict(id="calc-malformed-header", response=malformed, **calc),
        dict(id="calc-escape-parent-dir", response=escape_parent, **calc),
        dict(id="calc-escape-absolute", response=escape_absolute, **calc),
        dict(id="calc-edit-block", response=edit_block, **calc),
        dict(id="calc-sloppy-diff", response=sloppy, **calc),
        dict(id="calc-second-hunk-fails", response=second_fails, **calc),
    ]
    text = dict(repo="repos/textkit", fail_to_pass=TEXT_F2P, pass_to_pass=TEXT_P2P,
                problem_statement="slugify keeps empty words for runs of whitespace.")
    rows += [
        dict(id="textkit-gold-crlf", response=diff("textkit", TEXT_FIX), **text),
        dict(id="textkit-subtest-still-fails", response=diff("textkit", {"textkit/case.py": (
            'words = text.split(" ")', 'words = text.strip().split(" ")')}), **text),
    ]
    test_patch = diff("shelf", SHELF_TEST)
    shelf = dict(repo="repos/shelf", fail_to_pass=json.dumps(SHELF_F2P), pass_to_pass=SHELF_P2P,
                 test_patch=test_patch, problem_statement="Stock.remove can make counts negative.")
    tamper = diff("shelf", {"tests/test_stock.py": (
        "        stock.add(\"apple\", -1)\n",
        "        stock.add(\"apple\", -1)\n\n\ndef test_remove_clamps_at_zero():\n    pass\n")})
    rows += [
        dict(id="shelf-gold-with-test-patch", response=diff("shelf", SHELF_FIX), **shelf),
        dict(id="shelf-tampers-with-tests", response=tamper, **shelf),
    ]
    ledger = dict(repo="repos/ledger", fail_to_pass=LEDGER_F2P, pass_to_pass=LEDGER_P2P,
                  problem_statement="Withdrawing the whole balance is refused as an overdraft.")
    rows += [
        dict(id="ledger-gold-real-pytest", response=diff("ledger", LEDGER_FIX), **ledger),
        dict(id="ledger-empty", response="", **ledger),
        dict(id="ledger-breaks-overdraft", response=diff("ledger", {"ledger/__init__.py": (
            "if amount >= balance:", "if amount > balance + 1:")}), **ledger),
    ]
    with open(os.path.join(HERE, "sample.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
