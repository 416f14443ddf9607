"""Writes mcqa_letter.{train,eval}.jsonl: datasets/mcqa's questions (NeMo Gym's mcqa
layout) asking for the bare letter, with Gym's own per-row answer pattern
(`template_metadata.output_regex`) reading a letter at the start of the response.

Why: SmolLM2-135M-Instruct never writes a \\boxed{} (0 of 48 samples on the bundled
strict rows) and rarely an `Answer:` line (1 of 64), but answers "C: Iron" to "Reply
with the letter of the correct option only." about two times in three (right 10 of
64, as a guess among four would be), so the stage has a format and a choice to learn.

    python3 datasets/smollm2/make_mcqa_letter.py
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "mcqa"
ASKED = ("Think step by step, then give the letter of the correct option, and nothing "
         "else, inside \\boxed{} (for example \\boxed{A}).")
INSTEAD = "Reply with the letter of the correct option only."
# Gym reads the last match of this pattern, case-insensitive; `^` is the response's start.
PATTERN = r"^\W*([A-D])\b"


def convert(line):
    row = json.loads(line)
    message = row["responses_create_params"]["input"][-1]
    assert message["content"].endswith(ASKED), row["id"]
    message["content"] = message["content"][: -len(ASKED)] + INSTEAD
    row["template_metadata"] = {"output_regex": PATTERN}
    return json.dumps(row, ensure_ascii=False)


for split in ("train", "eval"):
    lines = (SOURCE / f"{split}.jsonl").read_text().splitlines()
    (HERE / f"mcqa_letter.{split}.jsonl").write_text("".join(convert(l) + "\n" for l in lines))
