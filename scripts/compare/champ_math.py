#!/usr/bin/env python3
"""cascade and Math-Verify side by side on CHAMP's real model responses.

    python champ_math.py rows    OUT.jsonl                  # every response vs its gold
    python champ_math.py mv      ROWS.jsonl OUT.jsonl       # Math-Verify's verdicts
    python champ_math.py compare ROWS.jsonl CASCADE.jsonl MV.jsonl SAMPLE.jsonl [--seed N --n N]

`rows` reads the `champ-dataset` package (270 competition problems, each with 72
conversations of GPT-3.5, GPT-4, GPT-4 Turbo and PaLM 2 under many prompting setups):
one row per conversation, whose response is the model's messages joined in order (the
worked solution, then the one-sentence summary the prompt asks for, which states the
final answer), and whose gold is the problem's answer (its first `@@…@@` math segment
when it has one: "@@C(10, 5)@@, or equivalently @@252@@" gives `C(10, 5)`).
`compare` prints agreement and writes a seeded sample of the disagreements, to be
adjudicated by hand. Math-Verify runs single-threaded (its timeouts use signals).
"""
import json
import random
import re
import sys


def gold_of(problem):
    raw = problem.get("_raw_answer") or ""
    segments = re.findall(r"@@(.+?)@@", raw)
    return segments[0] if segments else (problem.get("_answer") or raw)


def cmd_rows(out_path):
    import champ_dataset  # noqa: F401  (the installed package's data file)
    from importlib import resources
    data = json.loads((resources.files("champ_dataset") / "dataset_files/v0.json").read_text())
    n = 0
    with open(out_path, "w", encoding="utf-8") as out:
        for pid, problem in sorted(data["problems"].items()):
            gold = gold_of(problem)
            for setup, conv in sorted((problem.get("conversations") or {}).items()):
                texts = [m.get("text") for m in conv.get("messages") or []
                         if (m.get("role") or "").startswith("Model.") and m.get("text")]
                if not texts:
                    continue
                row = {"id": f"{pid}|{setup}", "answer": gold, "response": "\n\n".join(texts),
                       "raw_answer": problem.get("_raw_answer")}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                n += 1
    print(f"{n} responses", file=sys.stderr)


def cmd_mv(rows_path, out_path):
    from math_verify import parse, verify
    rows = [json.loads(l) for l in open(rows_path, encoding="utf-8") if l.strip()]
    with open(out_path, "w", encoding="utf-8") as out:
        for i, r in enumerate(rows):
            try:
                gold = parse(f"${r['answer']}$")
                pred = parse(r["response"])
                ok = bool(verify(gold, pred))
                extracted = str(pred[-1]) if pred else None
            except Exception as e:  # Math-Verify raises on some inputs: a reject
                ok, extracted = False, f"error: {type(e).__name__}"
            out.write(json.dumps({"id": r["id"], "correct": ok, "extracted": extracted}) + "\n")
            if i % 2000 == 0:
                print(f"math-verify {i}/{len(rows)}", file=sys.stderr)


def cmd_compare(rows_path, cascade_path, mv_path, sample_path, seed=36, n=120):
    load = lambda p: [json.loads(l) for l in open(p, encoding="utf-8") if l.strip()]
    rows, cas, mv = load(rows_path), load(cascade_path), load(mv_path)
    assert len(rows) == len(cas) == len(mv), "the three files must have one line per row"
    both = only_c = only_m = neither = 0
    differ = []
    for r, c, m in zip(rows, cas, mv):
        assert r["id"] == c["id"] == m["id"]
        if c["correct"] and m["correct"]:
            both += 1
        elif c["correct"]:
            only_c += 1
        elif m["correct"]:
            only_m += 1
        else:
            neither += 1
        if c["correct"] != m["correct"]:
            differ.append({"id": r["id"], "gold": r["answer"], "raw_answer": r.get("raw_answer"),
                           "cascade": c["correct"], "cascade_extracted": c.get("extracted"),
                           "cascade_reason": c.get("reason"), "math_verify": m["correct"],
                           "mv_extracted": m.get("extracted"),
                           "response_tail": r["response"][-600:]})
    total = len(rows)
    print(f"responses: {total}")
    print(f"agree: {total - len(differ)} ({100 * (total - len(differ)) / total:.2f}%)"
          f"  [both accept {both}, both reject {neither}]")
    print(f"disagree: {len(differ)}  [cascade only accepts {only_c}, Math-Verify only accepts {only_m}]")
    print(f"accepted: cascade {both + only_c} ({100 * (both + only_c) / total:.2f}%),"
          f" Math-Verify {both + only_m} ({100 * (both + only_m) / total:.2f}%)")
    sample = random.Random(seed).sample(differ, min(n, len(differ)))
    with open(sample_path, "w", encoding="utf-8") as out:
        for d in sample:
            out.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(f"wrote {len(sample)} disagreements (seed {seed}) to {sample_path}")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "rows":
        cmd_rows(*args)
    elif cmd == "mv":
        cmd_mv(*args)
    elif cmd == "compare":
        opts = dict(zip(args[4::2], args[5::2]))
        cmd_compare(*args[:4], seed=int(opts.get("--seed", 36)), n=int(opts.get("--n", 120)))
    else:
        sys.exit(__doc__)
