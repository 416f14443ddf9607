#!/usr/bin/env python3
"""Writes the miniature of nvidia/Nemotron-Cascade-2-RL-data in this folder, in the
published layout: `IF-RL/train.jsonl`, `multi-domain-RL/train.jsonl`,
`MOPD/train.jsonl`, `SWE-RL/train.jsonl` (see README.md).

Rows are NeMo Gym rows as the published subsets carry them (`responses_create_params`,
`agent_ref`, each server's own fields and id kind: integer `id` for instruction
following and workplace, `uuid` for mcqa, none for math and structured outputs).
Their content is NeMo Gym's own example rows (Apache-2.0) and cascade's bundled rows
put in the same layout, so the miniature stays small enough for a CPU recipe.

    python3 datasets/cascade2/make_miniature.py GYM_CHECKOUT

GYM_CHECKOUT is a checkout of NVIDIA-NeMo/Gym (its `resources_servers/*/data/
example.jsonl`). Deterministic: the same inputs give the same bytes.
"""
import json
import sys
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASETS = HERE.parent
MATH_PROMPT = (
    "Solve the following math problem. Make sure to put the answer (and only answer) "
    "inside \\boxed{{}}.\n\n{question}"
)


def agent(name):
    return {"type": "responses_api_agents", "name": name}


def read(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def gym_rows(gym, server):
    return read(Path(gym) / "resources_servers" / server / "data" / "example.jsonl")


def instruction_following(gym, ours):
    """Gym's examples, then cascade's IFEval rows with Gym's integer ids."""
    rows = [dict(r, agent_ref=agent("instruction_following_simple_agent")) for r in gym_rows(gym, "instruction_following")]
    for i, r in enumerate(ours):
        rows.append({
            "id": 90000 + i,
            "instruction_id_list": r["instruction_id_list"],
            "prompt": r["prompt"],
            "kwargs": r["kwargs"],
            "responses_create_params": {"input": [{"role": "user", "content": r["prompt"]}]},
            "agent_ref": agent("instruction_following_simple_agent"),
        })
    return rows


def math_with_judge(gym, ours):
    """AceReason-style rows: `question`, `expected_answer`, the boxed-answer prompt; no id."""
    rows = [dict(r, agent_ref=agent("math_with_judge_simple_agent")) for r in gym_rows(gym, "math_with_judge")]
    for r in ours:
        rows.append({
            "responses_create_params": {"input": [{"role": "user", "content": MATH_PROMPT.format(question=r["problem"])}]},
            "question": r["problem"],
            "expected_answer": r["answer"],
            "agent_ref": agent("math_with_judge_simple_agent"),
        })
    return rows


def mcqa(gym, ours):
    """Gym's examples, then cascade's rows with a `uuid` in place of their `id`."""
    rows = [dict(r, agent_ref=agent("mcqa_simple_agent")) for r in gym_rows(gym, "mcqa")]
    for r in ours:
        row = {k: v for k, v in r.items() if k not in ("id", "solution")}
        row["uuid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, "cascade/" + r["id"]))
        row["agent_ref"] = agent("mcqa_simple_agent")
        rows.append(row)
    return rows


def structured_outputs(ours):
    """cascade's rows (Gym's examples hold 36 KB schemas each): no id, as Gym's."""
    return [
        dict({k: v for k, v in r.items() if k != "id"}, agent_ref=agent("structured_outputs_simple_agent"))
        for r in ours
    ]


def workplace(gym):
    return [dict(r, agent_ref=agent("workplace_assistant_simple_agent")) for r in gym_rows(gym, "workplace_assistant")]


def swe(ours):
    """SWE-bench's field names (upper-case test lists as JSON strings, `instance_id`),
    on cascade's bundled repository snapshots (the published rows name repositories
    whose snapshots a user provides; see README.md)."""
    def as_json_string(tests):
        return tests if isinstance(tests, str) else json.dumps(tests)

    rows = []
    for r in ours:
        row = {
            "instance_id": r["id"],
            "repo": "../../swe/" + r["repo"],
            "problem_statement": r["problem_statement"],
            "FAIL_TO_PASS": as_json_string(r["fail_to_pass"]),
            "PASS_TO_PASS": as_json_string(r["pass_to_pass"]),
            "responses_create_params": {"input": [{"role": "user", "content": r["problem_statement"]}]},
        }
        if "test_patch" in r:
            row["test_patch"] = r["test_patch"]
        rows.append(row)
    return rows


def write(subset, rows):
    path = HERE / subset / "train.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{path.relative_to(DATASETS)}: {len(rows)} rows")


def interleave(*groups):
    """Rows of several servers mixed as a shuffled published file is, deterministically."""
    out, longest = [], max(len(g) for g in groups)
    for i in range(longest):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    gym = sys.argv[1]
    ifeval = read(DATASETS / "ifeval" / "train.jsonl")
    maths = read(DATASETS / "math" / "train.jsonl")
    mcq = read(DATASETS / "mcqa" / "train.jsonl")
    so = read(DATASETS / "structured_output" / "train.jsonl")
    write("IF-RL", instruction_following(gym, ifeval[:11]))
    # Published shares: MCQA 55 %, workplace 30 %, structured output 15 %.
    write("multi-domain-RL", interleave(mcqa(gym, mcq[:6]), workplace(gym)[:3], structured_outputs(so[:2])))
    # Published MOPD mix: math 1,853, IF 1,854, workplace 610, STEM 927, structured 927.
    write("MOPD", interleave(
        math_with_judge(gym, maths[:3])[2:],
        instruction_following(gym, ifeval[11:13])[3:],
        mcqa(gym, mcq[6:8])[4:],
        structured_outputs(so[2:5]),
        workplace(gym)[4:5],
    ))
    write("SWE-RL", swe(read(DATASETS / "swe" / "train.jsonl")))


if __name__ == "__main__":
    main()
