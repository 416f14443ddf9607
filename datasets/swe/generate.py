"""SWE-smith-style task generator: real pure-Python projects, injected bugs.

    python3 generate.py inflection==0.5.1 --sha256 1a29730d...b417 --count 5 --out gen/tasks.jsonl

1. Downloads the project's source distribution from PyPI with pip into the cache
   ($CASCADE_CACHE, default ~/.cache/cascade, under swe/sdists), checks its sha256
   when given, and unpacks it (never committed to the repository).
2. Collects the test node ids and runs them on the clean source (both inside
   bubblewrap with cascade's own runner, as the `native` backend does).
3. Lists mutation sites in the project's functions (comparison, arithmetic and
   boolean operator swaps, integer constants off by one) and visits them in an order
   fixed by --seed. Each mutation changes one token of one function.
4. Runs the tests on the mutated copy. Tests that passed before and fail now are
   FAIL_TO_PASS; tests that pass in both are PASS_TO_PASS. A mutation no test
   notices is skipped.
5. Writes the buggy snapshot to the cache (swe/tasks/<project>-<n>/) and one row per
   task: `repo` (relative to the output file), the two test lists, and the reverse of
   the mutation as the gold `patch`, also given as `response` so that
   `cascade score --env swe --input OUT` must resolve every row.

Same project, version and seed give the same tasks on every machine.
"""

import argparse
import ast
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "envs", "src", "swe", "runner.py")
MARKER = "=== cascade-runner summary ==="
CACHE = os.path.join(os.environ.get("CASCADE_CACHE", os.path.expanduser("~/.cache/cascade")), "swe")

SWAPS = {
    ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="), ast.Add: ("+", "-"), ast.Sub: ("-", "+"),
    ast.Mult: ("*", "//"), ast.And: ("and", "or"), ast.Or: ("or", "and"),
}


def fetch(spec, sha256):
    sdists = os.path.join(CACHE, "sdists")
    os.makedirs(sdists, exist_ok=True)
    name, _, version = spec.partition("==")
    found = [f for f in os.listdir(sdists) if f.lower().startswith(f"{name.lower().replace('-', '_')}-{version}")
             or f.lower().startswith(f"{name.lower()}-{version}")]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        "-q", "-d", sdists, spec], check=True)
        found = [f for f in os.listdir(sdists) if version in f]
    if not found:
        sys.exit(f"no sdist for {spec} in {sdists}")
    path = os.path.join(sdists, sorted(found)[0])
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if sha256 and digest != sha256:
        sys.exit(f"{path}: sha256 {digest} does not match {sha256}")
    return path


def unpack(archive, dest):
    with tarfile.open(archive) as tar:
        top = os.path.commonpath(tar.getnames())
        tar.extractall(dest, filter="data")
    return os.path.join(dest, top)


def sandboxed(repo, args, timeout=600):
    """Runs the runner inside bubblewrap, as cascade's native backend does."""
    with tempfile.TemporaryDirectory() as scratch:
        shutil.copy(RUNNER, os.path.join(scratch, "runner.py"))
        extra = []
        if args and args[0] == "ids":
            with open(os.path.join(scratch, "ids.txt"), "w") as f:
                f.write("\n".join(args[1]))
            extra = ["/tmp/runner/ids.txt"]
        else:
            extra = ["--collect"] + args[1]
        cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
               "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", repo, "/tmp/repo",
               "--ro-bind", scratch, "/tmp/runner", "--chdir", "/tmp/repo", "--clearenv",
               "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
               "--setenv", "PYTHONHASHSEED", "0", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
               os.path.realpath(sys.executable), "/tmp/runner/runner.py"] + extra
        # Empty stdin: no nonce, so the runner writes the plain markers.
        out = subprocess.run(cmd, input="", capture_output=True, text=True, timeout=timeout).stdout
    return out.rpartition(MARKER)[2].split("\n")


def statuses(repo, ids):
    result = {}
    for line in sandboxed(repo, ("ids", ids)):
        word, _, node = line.partition(" ")
        if node:
            result[node] = word
    return result


def python_files(root):
    tests, sources = [], []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("docs", "build", "__pycache__")
                         and not d.endswith(".egg-info"))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, f), root)
            parts = rel.split(os.sep)
            if f.startswith("test_") or f.endswith("_test.py"):
                tests.append(rel)
            elif f not in ("setup.py", "conftest.py") and not any(p in ("tests", "test", "examples") for p in parts):
                sources.append(rel)
    return tests, sources


def sites(root, rel):
    """(rel, line, col, old, new) for every mutable token inside a function."""
    text = open(os.path.join(root, rel), encoding="utf-8").read()
    tree = ast.parse(text)
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    found = []

    def op_token(start, end, spelling):
        for tok in tokens:
            if start <= tok.start and tok.end <= end and tok.string == spelling:
                return tok.start
        return None

    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            pairs = []
            if isinstance(node, ast.Compare):
                left = node.left
                for op, right in zip(node.ops, node.comparators):
                    pairs.append((left, op, right))
                    left = right
            elif isinstance(node, ast.BinOp):
                pairs.append((node.left, node.op, node.right))
            elif isinstance(node, ast.BoolOp):
                pairs.extend((a, node.op, b) for a, b in zip(node.values, node.values[1:]))
            elif isinstance(node, ast.Constant) and type(node.value) is int and node.value < 1000:
                found.append((rel, node.lineno, node.col_offset, str(node.value), str(node.value + 1)))
            for a, op, b in pairs:
                if type(op) not in SWAPS:
                    continue
                old, new = SWAPS[type(op)]
                at = op_token((a.end_lineno, a.end_col_offset), (b.lineno, b.col_offset), old)
                if at:
                    found.append((rel, at[0], at[1], old, new))
    return sorted(set(found))


def mutate(root, site):
    rel, line, col, old, new = site
    path = os.path.join(root, rel)
    lines = open(path, encoding="utf-8").read().split("\n")
    text = lines[line - 1]
    assert text[col:col + len(old)] == old, (site, text)
    lines[line - 1] = text[:col] + new + text[col + len(old):]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def git_diff(a, b):
    """git diff between two sibling folders, with repository-relative a/ b/ paths."""
    na, nb = os.path.basename(a), os.path.basename(b)
    out = subprocess.run(["git", "diff", "--no-index", "--no-color", na, nb], capture_output=True,
                         cwd=os.path.dirname(a)).stdout.decode("utf-8")
    return out.replace(f"a/{na}/", "a/").replace(f"b/{nb}/", "b/")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", help="PROJECT==VERSION on PyPI")
    ap.add_argument("--sha256", default=None)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-tries", type=int, default=40)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    archive = fetch(args.spec, args.sha256)
    name = args.spec.replace("==", "-")
    work = tempfile.mkdtemp(prefix="cascade-swe-gen-")
    try:
        clean = unpack(archive, work)
        tests, sources = python_files(clean)
        ids = [i for i in sandboxed(clean, ("collect", tests)) if "::" in i]
        before = statuses(clean, ids)
        passing = [i for i in ids if before.get(i) in ("PASSED", "XFAIL")]
        print(f"{args.spec}: {len(ids)} tests, {len(passing)} pass on the clean source", file=sys.stderr)
        candidates = [s for rel in sources for s in sites(clean, rel)]
        random.Random(args.seed).shuffle(candidates)
        out_dir = os.path.dirname(os.path.abspath(args.out))
        os.makedirs(out_dir, exist_ok=True)
        rows = []
        for site in candidates[:args.max_tries]:
            if len(rows) >= args.count:
                break
            buggy = os.path.join(work, "buggy")
            shutil.rmtree(buggy, ignore_errors=True)
            shutil.copytree(clean, buggy)
            mutate(buggy, site)
            after = statuses(buggy, passing)
            f2p = [i for i in passing if after.get(i) not in ("PASSED", "XFAIL")]
            p2p = [i for i in passing if after.get(i) in ("PASSED", "XFAIL")]
            if not f2p:
                continue
            task_id = f"{name}-{len(rows)}"
            dest = os.path.join(CACHE, "tasks", task_id)
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copytree(buggy, dest)
            gold = git_diff(buggy, clean)
            rows.append(dict(
                id=task_id, repo=os.path.relpath(dest, out_dir), fail_to_pass=f2p, pass_to_pass=p2p,
                patch=gold, response=gold,
                problem_statement=f"{len(f2p)} test(s) fail, e.g. {f2p[0]}; the bug is in {site[0]}.",
            ))
            print(f"  {task_id}: {site[0]}:{site[1]} {site[3]!r} -> {site[4]!r}, "
                  f"{len(f2p)} fail_to_pass, {len(p2p)} pass_to_pass", file=sys.stderr)
        with open(args.out, "w") as f:
            for row in rows:
                f.write(json.dumps(row, sort_keys=True) + "\n")
        print(f"wrote {len(rows)} tasks to {args.out}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
