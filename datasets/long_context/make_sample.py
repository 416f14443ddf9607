"""Writes sample.jsonl: long_context rows WITH model responses, one per grading rule.

The rows come from `cascade gen-long-context`; this script adds the responses.

    cascade gen-long-context --seed 1 --count 8 --tokens 1024 \
        --tokenizer trainer/assets/tiny-chatml --output /tmp/lc.jsonl
    python3 datasets/long_context/make_sample.py /tmp/lc.jsonl > datasets/long_context/sample.jsonl
    cascade score --env long_context --input datasets/long_context/sample.jsonl \
        --output datasets/long_context/sample.expected.jsonl
"""

import copy
import json
import sys

rows = {json.loads(line)["task"]: json.loads(line) for line in open(sys.argv[1])}
out = []


def add(id_, kind, response, **fields):
    row = copy.deepcopy(rows[kind])
    row["id"] = id_
    row["response"] = response
    for k, v in fields.items():
        if v is None:
            row.pop(k, None)
        else:
            row[k] = v
    out.append(row)


def answer(task):
    return rows[task]["expected_answer"]


single = answer("niah_single")[0]
add("niah-single-bare-value", "niah_single", single)
add("niah-single-in-a-sentence", "niah_single", f"The special magic number is {single}.")
add("niah-single-with-an-extra-number", "niah_single", f"{single} or 1234567")
add("niah-single-part-of-the-value", "niah_single", single[:4])
add("niah-single-empty", "niah_single", "")
add("niah-multikey-right-value", "niah_multikey", answer("niah_multikey")[0])
add("niah-multikey-a-distractor", "niah_multikey", "7654321")
add("niah-multivalue-all", "niah_multivalue", ", ".join(answer("niah_multivalue")))
add("niah-multivalue-one", "niah_multivalue", answer("niah_multivalue")[0])
add("niah-multiquery-all-repeated", "niah_multiquery", " ".join(answer("niah_multiquery") * 2))
names = answer("variable_tracking")
add("vt-all-names", "variable_tracking", ", ".join(names))
add("vt-with-var-keywords", "variable_tracking", " ".join("VAR " + n for n in names))
add("vt-lowercase-names", "variable_tracking", " ".join(n.lower() for n in names))
add("vt-one-name-and-an-extra", "variable_tracking", names[0] + " ZZZZZ")
parents = answer("graph_parents")
fa = lambda nodes: "Final Answer: [" + ", ".join(nodes) + "]"
add("graph-parents-correct", "graph_parents", "Let me look.\n" + fa(parents) + "\n")
add("graph-parents-duplicates", "graph_parents", fa(parents + parents))
add("graph-parents-extra-node", "graph_parents", fa(parents + ["ffffff"]))
add("graph-parents-no-answer-line", "graph_parents", ", ".join(parents))
add("graph-parents-answer-then-text", "graph_parents", fa(parents) + "\nI hope this helps.")
add("graph-parents-two-answer-lines-last-wrong", "graph_parents", fa(parents) + "\n" + fa(["ffffff"]))
add("graph-parents-empty-answer", "graph_parents", "Final Answer: []")
bfs = answer("graph_bfs")
add("graph-bfs-correct", "graph_bfs", fa(bfs))
add("graph-bfs-quoted-nodes", "graph_bfs", fa(["'" + n + "'" for n in bfs]))
add("graph-bfs-gym-row-json-string", "graph_bfs", fa(bfs), expected_answer=json.dumps(bfs), task=None)
mrcr = rows["mrcr"]
prefix, expected = mrcr["random_string_to_prepend"], mrcr["expected_answer"]
add("mrcr-exact", "mrcr", expected)
add("mrcr-leading-newline", "mrcr", "\n" + expected)
add("mrcr-missing-prefix", "mrcr", expected[len(prefix):])
add("mrcr-first-half", "mrcr", expected[: len(prefix) + (len(expected) - len(prefix)) // 2])
add("mrcr-prefix-only", "mrcr", prefix)
add("malformed-no-expected-answer", "niah_single", single, expected_answer=None)
add("malformed-unknown-task", "niah_single", single, task="haystack")
add("malformed-empty-expected-answer", "niah_single", single, expected_answer=[])
for row in out:
    print(json.dumps(row, ensure_ascii=False))
