"""Writes datasets/rlhf/keyword.{train,eval}.jsonl: a learnable toy preference for
reward-model training and the RLHF stage of recipes/tiny.toml. Each prompt names a
keyword; the chosen response contains it, the rejected one does not (half the time
it names another keyword instead, so a reward model must read the prompt to get
those right, half the time a filler word). Deterministic (fixed seed).

Layout: TRL's explicit standard preference rows, `id`, `prompt`, `chosen`, `rejected`
(strings); an `rlhf` env reads `prompt` from the same rows.

    python3 datasets/rlhf/keyword_preferences.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
KEYWORDS = ["sun", "tree", "fish", "rain", "bird", "moon", "rock", "leaf"]
FILLERS = ["it", "that", "this"]
TEMPLATES = ["I like the {w}.", "The {w} is here.", "A {w} today.", "See the {w}."]


def pair(rng, index):
    word = rng.choice(KEYWORDS)
    template = rng.choice(TEMPLATES)
    if index % 2 == 0:
        other = rng.choice([k for k in KEYWORDS if k != word])
    else:
        other = rng.choice(FILLERS)
    return {
        "id": f"kw-{index:03d}",
        "prompt": f"Say {word}.",
        "chosen": template.format(w=word),
        "rejected": template.format(w=other),
    }


def write(name, rows):
    with open(os.path.join(HERE, name), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


rng = random.Random(17)
rows = [pair(rng, i) for i in range(320)]
write("keyword.train.jsonl", rows[:256])
write("keyword.eval.jsonl", rows[256:])
