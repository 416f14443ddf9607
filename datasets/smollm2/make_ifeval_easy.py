#!/usr/bin/env python3
"""Writes ifeval_easy.{train,eval}.jsonl: single-instruction IF-RL prompts whose
instruction a 135M model can follow some of the time (case, punctuation, quotes, an
ending phrase, a title, a fixed answer choice, a postscript, keywords, length, JSON),
so GRPO's groups differ and have something to reinforce. SmolLM2-135M-Instruct's
greedy score on the eval set is 0.29 before training (2026-12-05).

    python3 datasets/smollm2/make_ifeval_easy.py CASCADE_BIN

Rows come from `cascade gen-ifeval --count 3000` (seed 5 for train, 6 for eval), in
their order, keeping the first with one instruction from the set. Deterministic.
"""
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
EASY = {
    "change_case:english_lowercase", "change_case:english_capital", "punctuation:no_comma",
    "startend:quotation", "startend:end_checker", "detectable_format:title",
    "detectable_format:constrained_response", "detectable_content:postscript",
    "keywords:existence", "keywords:forbidden_words", "length_constraints:number_words",
    "detectable_format:json_format",
}


def pick(cascade, seed, count):
    out = subprocess.run([cascade, "gen-ifeval", "--count", "3000", "--seed", str(seed)],
                         check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    easy = [r for r in rows if len(r["instruction_id_list"]) == 1 and r["instruction_id_list"][0] in EASY]
    return easy[:count]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, seed, count in [("train", 5, 128), ("eval", 6, 48)]:
        rows = pick(sys.argv[1], seed, count)
        path = HERE / f"ifeval_easy.{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{path.name}: {len(rows)} rows")


if __name__ == "__main__":
    main()
