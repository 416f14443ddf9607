"""One- and two-step arithmetic word problems with exact integer answers, for
recipes/smollm2.toml's math stage (rows `{"id", "problem", "answer"}`, the `math`
environment's layout). Seeded: the same seed gives the same file.

    python make_word_problems.py SEED COUNT > FILE
"""
import json
import random
import sys

NAMES = ["Ana", "Ben", "Chen", "Dana", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jo"]
THINGS = ["apples", "books", "coins", "pencils", "stickers", "marbles", "cards", "shells"]


def problem(rng):
    name, thing = rng.choice(NAMES), rng.choice(THINGS)
    a, b, c = rng.randint(2, 20), rng.randint(2, 20), rng.randint(2, 5)
    kind = rng.randrange(4)
    if kind == 0:
        return f"{name} has {a} {thing} and gets {b} more. How many {thing} does {name} have now?", a + b
    if kind == 1:
        a, b = max(a, b), min(a, b)
        return f"{name} had {a} {thing} and gave away {b}. How many {thing} are left?", a - b
    if kind == 2:
        return f"{name} buys {c} bags with {a} {thing} in each bag. How many {thing} is that in total?", a * c
    return (f"{name} has {a} {thing} and buys {c} packs of {b} {thing}. "
            f"How many {thing} does {name} have now?", a + b * c)


def main(seed, count):
    rng = random.Random(seed)
    for i in range(count):
        text, answer = problem(rng)
        print(json.dumps({"id": f"wp-{seed}-{i:03d}", "problem": text, "answer": str(answer)}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
