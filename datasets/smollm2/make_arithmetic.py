"""One-step arithmetic with exact integer answers, for recipes/smollm2.toml's math
stage (rows `{"id", "problem", "answer"}`, the `math` environment's layout; the
stage's env config appends "Answer with just the number.").

Why not word problems: SmolLM2-135M-Instruct scored 0 of 64 samples on one-step word
problems with single-digit numbers ("Ann has 2 apples and gets 3 more…"), and 0 on
the one- and two-step problems this file replaced, so GRPO had nothing to reinforce;
on "What is 1 + 4?" it is right about one time in ten (measured 2026-12-05, 64
samples at temperature 1). Seeded: the same seed gives the same file.

    python3 make_arithmetic.py SEED COUNT > FILE
"""
import json
import random
import sys


def problem(rng):
    a, b = rng.randint(1, 9), rng.randint(1, 9)
    if rng.random() < 0.75:
        return f"What is {a} + {b}?", a + b
    a, b = max(a, b), min(a, b)
    return f"What is {a} - {b}?", a - b


def main(seed, count):
    rng = random.Random(seed)
    for i in range(count):
        text, answer = problem(rng)
        print(json.dumps({"id": f"ar-{seed}-{i:03d}", "problem": text, "answer": str(answer)}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
