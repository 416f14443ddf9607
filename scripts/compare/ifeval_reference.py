"""Runs IFEval's reference checks (lm-eval's copy of Google's code) on a JSONL
corpus and compares them with cascade's verdicts.

Usage: ifeval_reference.py CORPUS.jsonl OURS.jsonl
  CORPUS: rows with id, prompt, instruction_id_list, kwargs, response
  OURS:   `cascade score --env ifeval` output for CORPUS

Prints the agreement per instruction id (strict and loose), every disagreement,
and the reference's throughput (instructions checked per second, strict + loose,
one thread). langdetect is seeded (DetectorFactory.seed = 0) so runs repeat.
Rows whose kwargs hold 0, "" or [] are left out: lm-eval drops such values and
draws a random one instead; so are letter_frequency rows whose letter is not one
a-z letter (IFEval's own data has "#"), which lm-eval also redraws.
"""

import importlib.util
import json
import os
import sys
import time
import types


def load_reference():
    spec = importlib.util.find_spec("lm_eval")
    base = os.path.join(os.path.dirname(spec.origin), "tasks")
    # lm_eval.tasks/__init__ pulls in the whole harness; only the ifeval
    # modules are needed, so register the packages without running it.
    for name, path in (("lm_eval.tasks", base), ("lm_eval.tasks.ifeval", os.path.join(base, "ifeval"))):
        pkg = types.ModuleType(name)
        pkg.__path__ = [path]
        sys.modules[name] = pkg
    import langdetect

    langdetect.DetectorFactory.seed = 0
    import logging

    logging.disable(logging.CRITICAL)
    from lm_eval.tasks.ifeval import utils

    return utils


def has_random_kwarg(row):
    for kw in row["kwargs"]:
        for k, v in (kw or {}).items():
            if v is not None and not v:
                return True
            # Anything but one a-z letter is replaced by a random letter.
            if k == "letter" and not (isinstance(v, str) and len(v) == 1 and "a" <= v.lower() <= "z"):
                return True
    return False


def main():
    corpus_path, ours_path = sys.argv[1], sys.argv[2]
    utils = load_reference()
    rows = [json.loads(l) for l in open(corpus_path, encoding="utf-8") if l.strip()]
    ours = {}
    for line in open(ours_path, encoding="utf-8"):
        r = json.loads(line)
        ours[r["id"]] = r
    skipped = 0
    checked = 0
    elapsed = 0.0
    stats = {}
    disagreements = []
    for row in rows:
        if has_random_kwarg(row):
            skipped += 1
            continue
        inp = utils.InputExample(
            key=row["id"],
            instruction_id_list=row["instruction_id_list"],
            prompt=row["prompt"],
            kwargs=[kw or {} for kw in row["kwargs"]],
        )
        start = time.perf_counter()
        strict = utils.test_instruction_following_strict(inp, row["response"]).follow_instruction_list
        loose = utils.test_instruction_following_loose(inp, row["response"]).follow_instruction_list
        elapsed += time.perf_counter() - start
        checked += len(row["instruction_id_list"])
        mine = ours.get(row["id"], {}).get("details", {})
        for i, iid in enumerate(row["instruction_id_list"]):
            ms = (mine.get("strict") or [None] * (i + 1))[i]
            ml = (mine.get("loose") or [None] * (i + 1))[i]
            keys = [iid]
            if iid == "language:response_language" and len(row["response"].split()) >= 20:
                keys.append(iid + " (20+ words)")
            for key in keys:
                s = stats.setdefault(key, [0, 0, 0])
                s[0] += 1
                s[1] += ms == strict[i]
                s[2] += ml == loose[i]
            if ms != strict[i] or ml != loose[i]:
                disagreements.append(
                    {
                        "id": row["id"],
                        "instruction": iid,
                        "reference": [strict[i], loose[i]],
                        "cascade": [ms, ml],
                        "error": mine.get("error"),
                        "response": row["response"][:160],
                    }
                )
    print(f"rows: {len(rows)} compared, {skipped} skipped (kwargs the reference would redraw)")
    print(f"{'instruction id':48} {'n':>5} {'strict':>8} {'loose':>8}")
    total = [0, 0, 0]
    for iid in sorted(stats):
        n, s, l = stats[iid]
        if not iid.endswith(")"):
            total = [total[0] + n, total[1] + s, total[2] + l]
        print(f"{iid:48} {n:5} {100 * s / n:7.1f}% {100 * l / n:7.1f}%")
    n, s, l = total
    print(f"{'all':48} {n:5} {100 * s / n:7.1f}% {100 * l / n:7.1f}%")
    print(f"disagreements: {len(disagreements)}")
    for d in disagreements:
        print(json.dumps(d, ensure_ascii=False))
    rate = checked / elapsed if elapsed else float("nan")
    print(f"reference throughput: {checked} instructions (strict + loose) in {elapsed:.3f} s = {rate:,.0f} instructions/s, one thread")


if __name__ == "__main__":
    main()
