"""Writes datasets/math/arithmetic.{train,eval}.jsonl: single-digit addition in the
`math` environment's row format, for recipes/tiny.toml (a task a tiny model learns in
seconds on a CPU). Deterministic: every pair a+b with a, b in 0..9, shuffled with a
fixed seed. The eval set is the whole domain (all 100 sums, in that order); the train
set leaves out its first HELD_OUT sums, so the eval score covers 68 sums that training
sees and 32 that it never does.

Fields: `id`, `problem`, `answer` (the gold answer the math verifier compares with),
`solution` (the reference response an `sft` stage learns: the boxed answer).

    python3 datasets/math/arithmetic.py
"""
import json
import os
import random

HELD_OUT = 32
HERE = os.path.dirname(os.path.abspath(__file__))

pairs = [(a, b) for a in range(10) for b in range(10)]
random.Random(8).shuffle(pairs)


def row(a, b):
    return {
        "id": f"add-{a}-{b}",
        "problem": f"What is ${a}+{b}$?",
        "answer": str(a + b),
        "solution": f"\\boxed{{{a + b}}}",
    }


for name, part in [("eval", pairs), ("train", pairs[HELD_OUT:])]:
    with open(os.path.join(HERE, f"arithmetic.{name}.jsonl"), "w") as f:
        for a, b in part:
            f.write(json.dumps(row(a, b), sort_keys=True) + "\n")
