"""Writes the toy rows of recipes/tiny.toml's RL stages: for each domain a family of
tasks that a 2-layer, byte-level model can learn in a few hundred steps on a CPU,
graded by the real environment of that domain (no toy verifier anywhere).

Each task is one learnable skill: copy a word or a number from the prompt into a
fixed answer shape. The SFT warm-up sees a few of each (the `solution` field is the
reference response), so every RL stage starts from a partial score that its own
rewards can raise. Train and eval rows use disjoint values, so an eval score counts
answers the model was never shown.

    python3 datasets/toy/make_toy.py [OUTPUT_DIR]

Deterministic (a fixed seed per domain); the files are checked in, and
tests/toy_data.rs checks that this writes them byte for byte.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN, EVAL = 96, 32

# Three-letter words over five letters: every letter appears in every position in
# training, so the eval's unseen words test copying, not recall (with English words the
# model memorised the training words and answered them instead).
WORDS = [a + b + c for a in "abcde" for b in "abcde" for c in "abcde"]


def split(values, seed):
    """Shuffled values, cut into disjoint train and eval parts."""
    values = list(values)
    random.Random(seed).shuffle(values)
    return values[EVAL:EVAL + TRAIN], values[:EVAL]


def cycle(values, count):
    return [values[i % len(values)] for i in range(count)]


def ifeval_row(i, word):
    # One IFEval instruction, keywords:existence, graded by the real ifeval checks.
    return {
        "id": f"toy-if-{i}",
        "key": i,
        "prompt": f"Name a thing. Include keywords ['{word}'] in the response.",
        "instruction_id_list": ["keywords:existence"],
        "kwargs": [{"keywords": [word]}],
        "solution": word,
    }


def mcqa_row(i, digits):
    # Which option holds the asked digit: the letter before it.
    answer = digits[0]
    options = sorted(digits, key=lambda d: (d * 7 + i) % 10)
    letter = "ABCD"[options.index(answer)]
    lines = "\n".join(f"{l}: {d}" for l, d in zip("ABCD", options))
    content = f"Which option is {answer}?\n\n{lines}\n\nAnswer in \\boxed{{}}."
    return {
        "id": f"toy-mcqa-{i}",
        "responses_create_params": {"input": [{"role": "user", "content": content}]},
        "options": [{l: str(d)} for l, d in zip("ABCD", options)],
        "expected_answer": letter,
        "grading_mode": "strict_single_letter_boxed",
        "solution": f"\\boxed{{{letter}}}",
    }


def structured_row(i, key, n):
    # A JSON object with the asked key: the strict schema accepts nothing else.
    schema = json.dumps({
        "type": "object",
        "properties": {key: {"type": "integer"}},
        "required": [key],
    })
    return {
        "id": f"toy-so-{i}",
        "responses_create_params": {"input": [
            {"role": "system", "content": f"Reply with JSON matching {schema}"},
            {"role": "user", "content": f"Set {key} to {n}."},
        ]},
        "schema_str": schema,
        "schema_type": "json",
        "solution": json.dumps({key: n}),
    }


TIMER = {
    "type": "function",
    "name": "set_timer",
    "description": "Start a countdown timer.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {"minutes": {"type": "integer"}},
        "required": ["minutes"],
    },
}


def tool_row(i, n):
    call = {"name": "set_timer", "arguments": {"minutes": n}}
    return {
        "id": f"toy-tool-{i}",
        "responses_create_params": {
            "input": [{"role": "user", "content": f"Set a timer for {n} minutes."}],
            "tools": [TIMER],
        },
        "ground_truth": [{"set_timer": {"minutes": [n]}}],
        # Compact JSON: the shortest call the parser reads, for a byte-level model.
        "solution": f"<tool_call>{json.dumps(call, separators=(',', ':'))}</tool_call>",
    }


def code_row(i, n):
    return {
        "id": f"toy-code-{i}",
        "language": "python",
        "prompt": f"Print {n}.",
        "tests": {"kind": "stdio", "cases": [{"input": "", "output": f"{n}\n"}]},
        "solution": f"print({n})",
    }


def swe_row(i, n):
    # One hunk in repos/value/value.py; the row's test (added by test_patch) asks for n.
    test = f"from value import VALUE\n\n\ndef test_value():\n    assert VALUE == {n}\n"
    body = "".join(f"+{line}\n" for line in test.splitlines())
    test_patch = (
        "--- /dev/null\n+++ b/tests/test_value.py\n"
        f"@@ -0,0 +1,{len(test.splitlines())} @@\n{body}"
    )
    fix = f"--- a/value.py\n+++ b/value.py\n@@ -1 +1 @@\n-VALUE = 0\n+VALUE = {n}\n"
    return {
        "id": f"toy-swe-{i}",
        "repo": "repos/value",
        "problem_statement": f"VALUE should be {n}.",
        "test_patch": test_patch,
        "fail_to_pass": ["tests/test_value.py::test_value"],
        "pass_to_pass": [],
        "solution": fix,
    }


OUT = sys.argv[1] if len(sys.argv) > 1 else HERE


def write(name, rows):
    with open(os.path.join(OUT, name), "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")


def numbers(seed):
    return split(range(10, 100), seed)


def main():
    train, test = split(WORDS, 1)
    for part, words in [("train", cycle(train, TRAIN)), ("eval", test)]:
        write(f"ifeval.{part}.jsonl", [ifeval_row(i, w) for i, w in enumerate(words)])

    rng = random.Random(2)
    quads = [rng.sample(range(10), 4) for _ in range(TRAIN + EVAL)]
    write("mcqa.train.jsonl", [mcqa_row(i, q) for i, q in enumerate(quads[:TRAIN])])
    write("mcqa.eval.jsonl", [mcqa_row(TRAIN + i, q) for i, q in enumerate(quads[TRAIN:])])

    train, test = split(WORDS, 3)
    rng = random.Random(3)
    for part, words in [("train", cycle(train, TRAIN)), ("eval", test)]:
        rows = [structured_row(i, w, rng.randrange(10, 100)) for i, w in enumerate(words)]
        write(f"structured_output.{part}.jsonl", rows)

    for domain, make, seed in [("tool_call", tool_row, 4), ("code", code_row, 5),
                               ("swe", swe_row, 6)]:
        train, test = numbers(seed)
        for part, values in [("train", cycle(train, TRAIN)), ("eval", test)]:
            write(f"{domain}.{part}.jsonl", [make(i, n) for i, n in enumerate(values)])


if __name__ == "__main__":
    main()
