#!/usr/bin/env python3
"""Scores the labelled math corpus with HuggingFace Math-Verify and prints its accuracy
and throughput, in the same layout as `cargo bench -p cascade-verifiers --bench math`.

    python math_verify_compare.py CORPUS.jsonl [--json] [--json-out FILE] [--config default|reward]

Gold answers are wrapped in `$…$` before `parse`, and responses are parsed whole, as a
reward function would. `--config reward` uses the settings Math-Verify's README advises
for rewards (boxed answers first, no malformed-operator or nits normalisation).
Single-threaded: Math-Verify's timeouts use `signal.alarm`, which only works on the main
thread.
"""
import argparse
import json
import sys
import time

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

try:
    from latex2sympy2_extended import NormalizationConfig
except ImportError:  # older layouts
    from math_verify.parser import NormalizationConfig  # type: ignore


def pred_config(kind):
    if kind == "default":
        return None
    return [
        LatexExtractionConfig(
            boxed_match_priority=0,
            normalization_config=NormalizationConfig(
                basic_latex=True, units=True, malformed_operators=False, nits=False,
                boxed="all",
            ),
        ),
        ExprExtractionConfig(),
    ]


def check(gold, response, config):
    try:
        g = parse(f"${gold}$")
        p = parse(response) if config is None else parse(response, extraction_config=config)
        return bool(verify(g, p))
    except Exception:  # Math-Verify raises on some inputs; count as a reject
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--json", action="store_true", help="print only a JSON summary")
    ap.add_argument("--json-out", help="also write the JSON summary to this file")
    ap.add_argument("--config", choices=["default", "reward"], default="default")
    ap.add_argument("--max-listed", type=int, default=40, help="mismatches to list")
    args = ap.parse_args()
    rows = [json.loads(l) for l in open(args.corpus, encoding="utf-8") if l.strip()]
    config = pred_config(args.config)
    latencies = []
    right = fa = fr = 0
    wrong_by_cat = {}
    errors = []
    start = time.perf_counter()
    for r in rows:
        t = time.perf_counter()
        ok = check(r["answer"], r["response"], config)
        latencies.append(time.perf_counter() - t)
        if ok == r["label"]:
            right += 1
        else:
            if ok:
                fa += 1
            else:
                fr += 1
            wrong_by_cat[r["category"]] = wrong_by_cat.get(r["category"], 0) + 1
            errors.append(f"  {r['id']} [{r['category']}] gold {r['answer']!r}: got {ok}")
    total = time.perf_counter() - start
    n = len(rows)
    latencies.sort()
    pct = lambda p: latencies[min(n - 1, round((n - 1) * p))] * 1e6
    small = [l for l, r in zip(latencies, rows) if len(r["response"]) <= 65536]
    out = {
        "tool": f"math-verify ({args.config})", "pairs": n, "accuracy": right / n,
        "false_accepts": fa, "false_rejects": fr, "checks_per_s_1": n / total,
        "p50_us": pct(0.5), "p99_us": pct(0.99), "max_us": max(small) * 1e6 if small else 0.0,
        "wrong_by_category": wrong_by_cat,
    }
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            f.write(json.dumps(out) + "\n")
    if args.json:
        print(json.dumps(out))
    else:
        print(f"math-verify ({args.config}) on {args.corpus}")
        print(f"  pairs               {n}")
        print(f"  accuracy            {100 * right / n:.2f}% ({right}/{n}; {fa} false accepts, {fr} false rejects)")
        print(f"  checks/s, 1 thread  {n / total:.0f}")
        print(f"  latency p50 / p99 / max  {pct(0.5):.1f} / {pct(0.99):.1f} / {latencies[-1] * 1e6:.1f} µs")
        print(f"  mismatches by category: {wrong_by_cat}")
        for e in errors[: args.max_listed]:
            print(e)


if __name__ == "__main__":
    sys.exit(main())
