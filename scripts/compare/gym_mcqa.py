"""Differential test and one-core benchmark: cascade's `mcqa` env vs NeMo Gym 0.7.0's
own mcqa verifier (resources_servers/mcqa/app.py), in-process, no server.

Rows: the bundled sample (datasets/mcqa/sample.jsonl) plus a seeded corpus of every
answer form we know of (boxes, wrappers, `Answer:` lines, corrections, thinking,
hedges, option texts, row patterns) x the three grading modes, over the questions of
datasets/mcqa/gen.py. Gym sees what its deployment sees: the text after the
reasoning (a `<think>` block is a reasoning item, not output text; an unclosed one
leaves no output text). Prints agreement, every disagreement grouped by the form of the
response, and samples/s on one core for both (run it under `taskset -c 0`).

    taskset -c 0 python gym_mcqa.py CASCADE_BINARY   (scripts/compare/gym_mcqa.sh does it all)
"""

import asyncio
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from unittest.mock import MagicMock

import resources_servers.mcqa.app as gym
from nemo_gym.server_utils import ServerClient

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "datasets", "mcqa"))
import gen  # noqa: E402  (the bundled questions)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nemo_gym_verify import responses_api  # noqa: E402  (a NeMoGymResponse of one text)

BENCH_REPEAT = int(os.environ.get("BENCH_REPEAT", "4"))
MODES = ["strict_single_letter_boxed", "lenient_boxed", "lenient_answer_colon"]

# Response forms: (name, template). {X} the chosen letter, {Y} another option's letter,
# {T} the chosen option's text, {x} the chosen letter in lowercase, {Z} a letter that is
# no option.
FORMS = [
    ("boxed", "\\boxed{{{X}}}"),
    ("boxed-paren", "\\boxed{{({X})}}"),
    ("boxed-spaces-dot", "The answer is \\boxed{{ {X}. }}"),
    ("boxed-in-dollars", "$\\boxed{{{X}}}$"),
    ("boxed-text", "\\boxed{{\\text{{{X}}}}}"),
    ("boxed-textbf-paren", "\\boxed{{\\textbf{{({X})}}}}"),
    ("boxed-lowercase", "\\boxed{{{x}}}"),
    ("boxed-not-an-option", "\\boxed{{{Z}}}"),
    ("boxed-option-text", "\\boxed{{{T}}}"),
    ("boxed-text-option-text", "\\boxed{{\\text{{{T}}}}}"),
    ("boxed-letter-and-text", "\\boxed{{{X}) {T}}}"),
    ("boxed-digit-letter", "\\boxed{{1{X}}}"),
    ("corrected-box", "First guess \\boxed{{{Y}}}. Wait, that is wrong. So \\boxed{{{X}}}."),
    ("corrected-box-to-non-option", "So \\boxed{{{X}}}. Hmm, maybe \\boxed{{{Z}}}."),
    ("hedged-boxes", "\\boxed{{{Y}}} or \\boxed{{{X}}}"),
    ("same-box-twice", "\\boxed{{{X}}} \\boxed{{{X}}}"),
    ("think-draft-then-box", "<think>Maybe \\boxed{{{Y}}}. Answer: {Y}</think>\\boxed{{{X}}}\nAnswer: {X}"),
    ("unclosed-think", "<think>I think \\boxed{{{X}}}. Answer: {X}"),
    ("prose-letter", "{X} is the correct choice here."),
    ("answer-colon", "Reasoning...\nAnswer: {X}"),
    ("answer-colon-lowercase", "answer: {x}"),
    ("answer-colon-bold", "**Answer: {X}**"),
    ("answer-colon-bold-label", "**Answer:** {X}"),
    ("answer-colon-paren", "Answer: ({X})"),
    ("answer-colon-boxed", "Answer: \\boxed{{{X}}}"),
    ("answer-colon-text", "Answer: {T}"),
    ("answer-colon-letter-and-text", "Answer: {X}) {T}"),
    ("answer-colon-corrected", "Answer: {Y}\nOn reflection:\nFinal Answer: {X}"),
    ("answer-colon-heading", "**Answer:**\n\n{X}"),
    ("answer-colon-sentence", "Answer: {X} because it fits"),
    ("boxed-after-long-reasoning", "Let us reason. " * 200 + "\\boxed{{{X}}}"),
    ("empty", ""),
]

# Row patterns (Gym's README examples) with responses in their format.
PATTERNS = [
    ("option-selected", "Option Selected:\\s*([A-Za-z])", "Thinking.\nOption Selected: {X}"),
    ("final-choice", "Final Choice:\\s*([A-Za-z])", "final choice: {x}"),
    ("answer-is", "ANSWER IS\\s*([A-Za-z])", "so the answer is {X}"),
    ("answer-lookahead", "Answer\\s*:\\s*(?!Answer)\\s*([A-Za-z])", "Answer: {X}"),
    ("boxed-regex", "\\\\boxed\\{\\s*([A-Za-z])\\s*\\}", "\\boxed{{{X}}}"),
    ("pattern-misses", "Option Selected:\\s*([A-Za-z])", "\\boxed{{{X}}}"),
]


def corpus(seeds=1, rng=None):
    """The corpus; `seeds` > 1 repeats it with other draws (ids get a suffix)."""
    rng = rng or random.Random(16)
    rows = []
    for rep in range(seeds):
        for row in _corpus(rng):
            if rep:
                row["id"] += f"-r{rep}"
            rows.append(row)
    return rows


def _corpus(rng):
    rows = []
    for qi, (question, correct, wrong) in enumerate(gen.BANK):
        texts = [correct] + wrong
        rng.shuffle(texts)
        letters = gen.LETTERS[: len(texts)]
        gold = letters[texts.index(correct)]
        for mode in MODES:
            forms = [(n, t, None) for n, t in FORMS] + [(n, r, p) for n, p, r in PATTERNS]
            for name, template, pattern in forms:
                pick = gold if rng.random() < 0.7 else rng.choice(letters)
                other = rng.choice([l for l in letters if l != pick])
                text = template.format(X=pick, Y=other, T=texts[letters.index(pick)], x=pick.lower(), Z="Q")
                row = gen.gym_row(f"c{qi:02d}-{mode}-{name}", question, texts, gold, mode)
                if pattern is not None:
                    row["template_metadata"] = {"output_regex": pattern}
                    row["id"] = f"c{qi:02d}-{mode}-pattern-{name}"
                row["response"] = text
                rows.append(row)
    return rows


def form_of(row_id):
    """The response form a row id names (for grouping disagreements)."""
    if row_id.startswith("mcqa-s"):
        return "bundled:" + row_id.split("-", 2)[2]
    return re.sub(r"-r\d+$", "", row_id.split("-", 2)[2])


def gym_text(response):
    """The output text Gym's deployment grades: reasoning is a separate item."""
    if "</think>" in response:
        response = response.rsplit("</think>", 1)[1]
    return "" if "<think>" in response else response


def gym_requests(rows, response=None):
    """Gym's request objects; a row Gym's model refuses is None (reward 0 in Gym).
    `response(row)` builds the NeMoGymResponse (default: one message of gym_text)."""
    requests = []
    for row in rows:
        body = {k: v for k, v in row.items() if k not in ("id", "response")}
        body["response"] = response(row) if response else responses_api(gym_text(row.get("response") or ""))
        try:
            requests.append(gym.MCQAVerifyRequest.model_validate(body))
        except Exception:  # pydantic ValidationError: Gym answers 422
            requests.append(None)
    return requests


def gym_verify(server, requests):
    async def run():
        out = []
        for request in requests:
            if request is None:
                out.append((0.0, None, "request refused"))
                continue
            try:
                reply = await server.verify(request)
                out.append((reply.reward, reply.extracted_answer, None))
            except Exception as e:  # Gym crashes on some rows (e.g. a non-letter gold)
                out.append((0.0, None, f"verify raised {type(e).__name__}"))
        return out

    return asyncio.run(run())


def gym_server():
    return gym.MCQAResourcesServer(
        config=gym.MCQAResourcesServerConfig(host="0.0.0.0", port=8080, entrypoint="", name=""),
        server_client=MagicMock(spec=ServerClient),
    )


def cascade_score(rows):
    with tempfile.TemporaryDirectory() as tmp:
        inp, out = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.jsonl")
        with open(inp, "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        started = time.perf_counter()
        proc = subprocess.run([CASCADE, "score", "--env", "mcqa", "--jobs", "1", "--input", inp, "--output", out],
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        if proc.returncode not in (0, 1):  # 1: some rows malformed, still scored
            sys.exit(f"cascade score failed: {proc.stderr}")
        results = [json.loads(l) for l in open(out)]
    rate = next((float(w.strip("(")) for l in proc.stderr.splitlines() if "samples/s" in l
                 for w in l.split() if w.startswith("(")), None)
    return results, wall, rate


def main():
    bundled = [json.loads(l) for l in open(os.path.join(ROOT, "datasets", "mcqa", "sample.jsonl"))]
    rows = bundled + corpus()
    server = gym_server()
    gym_out = gym_verify(server, gym_requests(rows))
    ours, _, _ = cascade_score(rows)
    disagree = defaultdict(list)
    for row, (g_reward, g_letter, g_note), c in zip(rows, gym_out, ours):
        if g_reward != c["reward"]:
            disagree[form_of(row["id"])].append((row, g_reward, g_letter, g_note, c))
    n_dis = sum(len(v) for v in disagree.values())
    print(f"rows: {len(rows)} ({len(bundled)} bundled + {len(rows) - len(bundled)} generated)")
    print(f"agreement on reward: {len(rows) - n_dis}/{len(rows)} ({100 * (len(rows) - n_dis) / len(rows):.1f}%)")
    print(f"gym rewards: {Counter(r for r, _, _ in gym_out)}; cascade rewards: {Counter(c['reward'] for c in ours)}")
    print("disagreements by response form (count, gym -> cascade, an example):")
    for form, cases in sorted(disagree.items(), key=lambda kv: -len(kv[1])):
        row, g_reward, g_letter, g_note, c = cases[0]
        d = c["details"]
        why = d.get("reason") or d.get("error") or d.get("verdict")
        print(f"  {form}: {len(cases)}, gym {g_reward} ({g_letter or g_note}) -> cascade {c['reward']} "
              f"({d.get('extracted')}, {why}); mode {row.get('grading_mode')}, gold {row.get('expected_answer')}, "
              f"response {json.dumps(row.get('response', ''))[:90]}")
    forms = sorted({form_of(r["id"]) for r in rows if not r["id"].startswith("mcqa-s")})
    agreeing = [f for f in forms if f not in disagree]
    print(f"generated forms that agree on every row: {len(agreeing)} of {len(forms)}: {', '.join(agreeing)}")
    bench(server, rows)


def bench(server, rows):
    rows = rows * BENCH_REPEAT
    requests = gym_requests(rows)
    started = time.perf_counter()
    gym_verify(server, requests)
    gym_secs = time.perf_counter() - started
    _, wall, rate = cascade_score(rows)
    print(f"one core ({len(rows)} rows, the corpus x{BENCH_REPEAT}; affinity {sorted(os.sched_getaffinity(0))}):")
    print(f"  nemo-gym 0.7.0 MCQAResourcesServer.verify (built requests): {len(rows) / gym_secs:.0f} samples/s")
    print(f"  cascade score --env mcqa --jobs 1 (scoring, as it reports): {rate:.0f} samples/s; "
          f"whole process incl. start-up and JSON: {len(rows) / wall:.0f} samples/s")


if __name__ == "__main__":
    CASCADE = sys.argv[1]
    main()
