"""A Python verifier plugin: math correctness, checked by cascade's own equivalence
checker through the host API, with a small bonus for brevity.

`verify(sample)` gets the whole sample (the row's fields and the model's `response`)
and returns a float, a bool, or a dict with `reward`, `details` and
`reward_components`. It runs inside cascade's sandbox (WASI CPython 3.15), loaded once
per worker; `math_brevity.toml` next to it sets its limits.
"""

import cascade_plugin

MAX_WORDS = 200


def brevity(response: str) -> float:
    words = len(response.split())
    return 1.0 if words <= MAX_WORDS else MAX_WORDS / words


def verify(sample: dict) -> dict:
    response = sample["response"]
    verdict = cascade_plugin.math_check(response, str(sample["answer"]))
    correct = 1.0 if verdict["correct"] else 0.0
    short = brevity(response)
    return {
        "reward": correct * (0.9 + 0.1 * short),
        "details": {"verdict": verdict["verdict"], "extracted": verdict["extracted"]},
        "reward_components": {"correct": correct, "brevity": short},
    }
