"""Throughput of `cr.score` against `cascade score` on the same samples, same run.

    python python/bench/bench_score.py --cascade target/release/cascade \
        [--input datasets/math/bench_corpus.jsonl] [--env math] [--jobs 2] [--repeats 3]

Prints samples/s (best of --repeats) for: the CLI (whole process: start, read, score,
write), `Env.score_lines` (JSON lines in, result text out), `Env.score` (dicts in,
dicts out) and `cr.score` (builds the environment per call). Scores are checked equal
to the CLI's first.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import cascade_rewards as cr

REPO = Path(__file__).resolve().parents[2]


def best_rate(n: int, repeats: int, run) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return n / best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cascade", required=True, help="the cascade binary")
    ap.add_argument("--input", default=str(REPO / "datasets/math/bench_corpus.jsonl"))
    ap.add_argument("--env", default="math")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    path = Path(args.input)
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    dicts = [json.loads(line) for line in lines]
    cli = [args.cascade, "score", "--env", args.env, "--input", str(path), "--jobs", str(args.jobs)]
    expected = subprocess.run(cli, capture_output=True, text=True, check=True).stdout.splitlines()
    env = cr.Env(args.env, base_dir=path.parent)
    assert env.score_lines(lines, args.jobs) == expected, "cr.score differs from cascade score"

    n = len(lines)
    rates = {
        "cascade score (CLI process)": best_rate(
            n, args.repeats, lambda: subprocess.run(cli, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        ),
        "Env.score_lines (JSON lines)": best_rate(n, args.repeats, lambda: env.score_lines(lines, args.jobs)),
        "Env.score (dicts)": best_rate(n, args.repeats, lambda: env.score(dicts, args.jobs)),
        "cr.score (dicts, env built per call)": best_rate(
            n, args.repeats, lambda: cr.score(args.env, dicts, jobs=args.jobs, base_dir=path.parent)
        ),
    }
    print(f"{n} {args.env} samples from {path.name}, --jobs {args.jobs}, best of {args.repeats}")
    for name, rate in rates.items():
        print(f"  {name:<40} {rate:10.0f} samples/s")


if __name__ == "__main__":
    main()
