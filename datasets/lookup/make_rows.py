"""Writes the bundled `lookup` rows: train.jsonl (64) and eval.jsonl (16), each a random
key of a..d and a table of random digits, and sample.jsonl (recorded conversations, one
per scoring rule). Deterministic: python3 datasets/lookup/make_rows.py"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = "abcd"


def rows(rng, n, prefix):
    out = []
    for i in range(n):
        table = {k: str(rng.randrange(10)) for k in KEYS}
        out.append({"id": f"{prefix}{i}", "key": rng.choice(KEYS), "table": table})
    return out


def call(key, name="get"):
    return '<tool_call>{"name": "%s", "arguments": {"key": "%s"}}</tool_call>' % (name, key)


def write(name, items):
    with open(os.path.join(HERE, name), "w") as f:
        for r in items:
            f.write(json.dumps(r) + "\n")


rng = random.Random(7)
write("train.jsonl", rows(rng, 64, "train-"))
write("eval.jsonl", rows(rng, 16, "eval-"))

row = {"key": "c", "table": {"a": "4", "b": "0", "c": "7", "d": "2"}}
user = {"role": "user", "content": "Look up c."}


def transcript(*turns):
    msgs = [user]
    for t in turns:
        msgs.append({"role": "assistant", "content": t})
        if "<tool_call>" in t:
            msgs.append({"role": "tool", "content": "(recorded result; replay recomputes it)"})
    return msgs


samples = [
    ("looked-up-then-answered", {"messages": transcript(call("c"), "7")}),
    ("answer-with-thinking", {"messages": transcript(call("c"), "<think>the tool said 7</think>\n7\n")}),
    ("other-keys-first", {"messages": transcript(call("a") + call("c"), "7")}),
    ("right-value-without-lookup", {"response": "7"}),
    ("looked-up-wrong-key", {"messages": transcript(call("a"), "7")}),
    ("wrong-value", {"messages": transcript(call("c"), "4")}),
    ("unknown-tool-then-fix", {"messages": transcript(call("c", "fetch"), call("c"), "7")}),
    ("stopped-before-answering", {"messages": transcript(call("c"))}),
    ("too-many-calls", {"messages": transcript(call("c") * 9, "7")}),
    ("malformed-table", {"key": "c", "table": ["7"], "response": "7"}),
    ("missing-key", {"table": {"c": "7"}, "response": "7"}),
]
out = []
for sid, extra in samples:
    r = {"id": sid, **row}
    r.update(extra)
    if sid == "missing-key":
        del r["key"]
    out.append(r)
write("sample.jsonl", out)
