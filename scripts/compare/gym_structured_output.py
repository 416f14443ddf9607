"""Differential test and one-core benchmark: cascade's `structured_output` beside NeMo
Gym 0.7.0's `structured_outputs` verifier, run in-process (its own pure functions, no
server), on the same rows: the bundled sample plus a seeded corpus of edge cases.

    scripts/compare/gym_structured_output.sh [CASCADE_BIN] [N_CORPUS]

What Gym is given is what its server would see: the message text without the
`<think>` block (a Responses API reasoning item in Gym), and Hermes `<tool_call>`
blocks as `function_call` items (as vLLM's hermes parser would produce them).
"""
import asyncio  # noqa: F401  (Gym's verify is async; its pure helpers are not)
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace

import resources_servers.structured_outputs.app as gym_app
from resources_servers.structured_outputs.app import SchemaType

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# cascade's error_type → Gym's name for the same failure.
GYM_NAME = {
    "no_output": "empty_response",
    "schema_violation": "validation_error",
    "invalid_schema": "schema_error",
}


def gym_server():
    cls = gym_app.StructuredOutputsResourcesServer
    config = gym_app.StructuredOutputsResourcesServerConfig.model_construct(xml_coerce_types=True)
    return cls.model_construct(config=config)


def answer_text(response):
    end = response.rfind("</think>")
    if end >= 0:
        return response[end + len("</think>"):]
    return "" if response.lstrip().startswith("<think>") else response


def hermes_items(text):
    items = []
    for body in re.findall(r"<tool_call>(.*?)(?:</tool_call>|$)", answer_text(text), re.S):
        try:
            call = json.loads(body.strip())
        except ValueError:
            continue
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            args = call.get("arguments", call.get("parameters", {}))
            items.append(SimpleNamespace(type="function_call", name=call["name"], arguments=args))
    return items


FENCE = re.compile(r"^(`{3,})[^\n]*\n(.*?)(?:^\1`*[ \t]*$|\Z)", re.S | re.M)


def last_fence(text):
    blocks = FENCE.findall(answer_text(text))
    return blocks[-1][1] if blocks else None


def known_cause(row):
    """Why cascade is designed to differ from Gym on this row, if it is."""
    if row.get("strict") is False:
        return "the row turns strictness off; Gym has no such flag"
    if isinstance(row.get("response"), str) and row.get("response_mode") != "tool_call" and last_fence(row["response"]) is not None:
        return "cascade reads the last fenced block; Gym parses the whole text"
    if isinstance(row.get("response"), str) and row.get("schema_type") in ("csv", "xml") and re.match(r"[ \t\r]*\n", answer_text(row["response"])):
        return "cascade drops blank lines before the document; Gym's csv takes a blank first line as the header, and expat refuses an XML declaration after one"
    return None


def kind_of(row):
    """A row's response form, for grouping differences: format and wrapping."""
    if str(row.get("id", "")).startswith("edge_"):
        return row["id"]
    if not isinstance(row.get("schema_str"), str):
        return "schema-object"
    response = row.get("response")
    fmt = row.get("schema_type") or "json"
    if row.get("response_mode") == "tool_call":
        return f"tool_call:{fmt}"
    if not isinstance(response, str):
        return f"non-text:{fmt}"
    if response.startswith("Here is"):
        return f"prose-fenced:{fmt}"
    if last_fence(response) is not None:
        return f"fenced:{fmt}"
    if response.startswith("<think>"):
        return f"think:{fmt}"
    return f"bare:{fmt}"


def strip_blank_lines(text):
    m = re.match(r"(?:[ \t\r]*\n)+", text)
    return text[m.end():] if m else text


def aligned(row):
    """The row as cascade reads it, for Gym: the fenced block's body as the text."""
    row = dict(row)
    if isinstance(row.get("response"), str) and row.get("response_mode") != "tool_call":
        body = last_fence(row["response"])
        if body is not None:
            row["response"] = body
        row["response"] = strip_blank_lines(answer_text(row["response"]))
    return row


def gym_verify(server, row, strict=True):
    """(reward, error_type) from Gym's own functions, dispatched as its `verify` does;
    `strict=False` turns Gym's strictify off (only to check a known difference)."""
    if not strict:
        original = server.strictify_schema
        object.__setattr__(server, "strictify_schema", lambda schema: None)
        try:
            return gym_verify(server, row)
        finally:
            object.__setattr__(server, "strictify_schema", original)
    try:
        schema_type = SchemaType(row.get("schema_type") or "json")
        schema_str = row["schema_str"] if isinstance(row["schema_str"], str) else json.dumps(row["schema_str"])
    except (ValueError, KeyError):
        return 0.0, "request_rejected"
    response = row["response"]
    if row.get("response_mode") == "tool_call":
        if isinstance(response, dict):
            items = [SimpleNamespace(**i) for i in response.get("output", []) if i.get("type") == "function_call"]
            error = response.get("error")
        else:
            items, error = hermes_items(response), None
        body = SimpleNamespace(
            response=SimpleNamespace(error=error, output=items),
            tool_name=row.get("tool_name"), tool_payload_key=row.get("tool_payload_key"))
        payload, error_type, _ = server.extract_tool_call_payload(body)
        if error_type is not None:
            return 0.0, error_type
        reward, error_type, _ = server.evaluate_structured_object_response(schema_str, payload)
        return reward, error_type
    text = response if isinstance(response, str) else ""
    reward, error_type, _ = server.evaluate_structured_output_response(schema_type, schema_str, answer_text(text))
    return reward, error_type


# --- a seeded corpus of edge cases -------------------------------------------------

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}},
    {"type": "object", "properties": {"title": {"type": "string", "minLength": 1}, "score": {"type": "number", "maximum": 10},
                                      "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}}},
    {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"},
                                      "status": {"enum": ["new", "done"]}, "ok": {"type": "boolean"}}},
    {"type": "object", "properties": {"owner": {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}}},
                                      "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}}},
]
ROW_SCHEMA = {"type": "array", "items": {"type": "object", "properties": {"city": {"type": "string"}, "pop": {"type": "integer"}, "big": {"type": "boolean"}}}}


def instance(rng, schema):
    props = schema["properties"]
    doc = {}
    for key, sub in props.items():
        t = sub.get("type")
        if t == "string":
            doc[key] = "AB-123" if "pattern" in sub else rng.choice(["Ada", "x y", "Zoë", "a@b.co"])
        elif t == "integer":
            doc[key] = rng.randint(0, 99)
        elif t == "number":
            doc[key] = rng.choice([1.5, 7, 9.25])
        elif t == "boolean":
            doc[key] = rng.choice([True, False])
        elif t == "array":
            doc[key] = [instance(rng, sub["items"]) if sub["items"].get("type") == "object" else "t"][: rng.randint(0, 1)]
        elif t == "object":
            doc[key] = instance(rng, sub)
        elif "enum" in sub:
            doc[key] = rng.choice(sub["enum"])
    return doc


def mutate(rng, doc):
    doc = json.loads(json.dumps(doc))
    kind = rng.choice(["drop", "extra", "type", "none", "none"])
    keys = list(doc)
    if kind == "drop" and keys:
        doc.pop(rng.choice(keys))
    elif kind == "extra":
        doc["extra"] = 1
    elif kind == "type" and keys:
        doc[rng.choice(keys)] = rng.choice(["7", 7, None, [1]])
    return doc


def yaml_of(doc):
    import yaml
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


def toml_of(doc):
    import tomli_w  # noqa: F401  (Gym's own dependency; absent → JSON only)
    return tomli_w.dumps({k: v for k, v in doc.items() if v is not None})


def xml_of(doc, root="root"):
    import xmltodict
    return xmltodict.unparse({root: doc}, full_document=rng_bool())


_flip = random.Random(7)


def rng_bool():
    return _flip.random() < 0.5


def wrap(rng, text, fmt):
    style = rng.choice(["bare", "bare", "fence", "prose", "think"])
    if style == "fence":
        return f"```{fmt}\n{text}\n```"
    if style == "prose":
        return f"Here is the {fmt.upper()}:\n```{fmt}\n{text}\n```\nHope this helps."
    if style == "think":
        return f"<think>draft {text[:20]}</think>\n{text}"
    return text


def corpus(n, seed=16):
    rng = random.Random(seed)
    rows = []
    writers = {"json": json.dumps, "yaml": yaml_of, "toml": toml_of}
    for i in range(n):
        schema = rng.choice(SCHEMAS)
        doc = mutate(rng, instance(rng, schema))
        fmt = rng.choice(["json", "json", "yaml", "toml", "xml", "csv", "tool"])
        row = {"id": f"c{i:05d}", "schema_str": json.dumps(schema), "schema_type": fmt}
        strict = rng.random() < 0.8
        if not strict:
            row["strict"] = False
        try:
            if fmt in writers:
                text = writers[fmt](doc)
            elif fmt == "xml":
                row["schema_str"] = json.dumps({"type": "object", "properties": {"root": schema}})
                text = xml_of(doc)
            elif fmt == "csv":
                row["schema_str"] = json.dumps(ROW_SCHEMA)
                lines = ["city,pop,big"] + [f"{rng.choice(['Lima', 'Oslo', 'a,b'])},{rng.choice(['12', '1.5', ''])},{rng.choice(['true', 'FALSE', 'no'])}" for _ in range(rng.randint(0, 3))]
                text = "\n".join(l if "a,b" not in l else l.replace("a,b", '"a,b"') for l in lines) + "\n"
            else:
                row.update(schema_type="json", response_mode="tool_call", tool_name="emit", tool_payload_key=rng.choice([None, "data"]))
                args = doc if row["tool_payload_key"] is None else {"data": doc}
                name = "emit" if rng.random() < 0.9 else "other"
                text = f"<tool_call>\n{json.dumps({'name': name, 'arguments': args})}\n</tool_call>"
        except Exception:  # a value the writer cannot express (TOML null) → JSON instead
            row["schema_type"], text = "json", json.dumps(doc)
        if rng.random() < 0.08:
            text = text[: max(1, len(text) // 2)]  # cut off mid-document
        row["response"] = wrap(rng, text, row["schema_type"]) if row.get("response_mode") != "tool_call" else text
        rows.append(row)
    return rows


def edge_rows():
    """Hand-written rows where cascade differs from Gym by design (see the README)."""
    s = lambda v: json.dumps(v)
    flag = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    day = {"type": "object", "properties": {"day": {"type": "string"}}}
    branch = {"type": "object", "properties": {"x": {"anyOf": [{"type": "object", "properties": {"a": {"type": "integer"}}}, {"type": "null"}]}}}
    return [
        {"id": "edge_yaml_1_1_boolean", "schema_str": s(flag), "schema_type": "yaml", "response": "ok: yes\n"},
        {"id": "edge_yaml_date_is_text", "schema_str": s(day), "schema_type": "yaml", "response": "day: 2024-05-01\n"},
        {"id": "edge_toml_date_is_text", "schema_str": s(day), "schema_type": "toml", "response": "day = 2024-05-01\n"},
        {"id": "edge_anyof_branch_strict", "schema_str": s(branch), "schema_type": "json", "response": s({"x": {"a": 1, "b": 2}})},
        {"id": "edge_yaml_duplicate_key", "schema_str": s(flag), "schema_type": "yaml", "response": "ok: 1\nok: true\n"},
        {"id": "edge_property_named_properties", "schema_str": s({"type": "object", "properties": {"properties": {"type": "string"}}}), "schema_type": "json", "response": s({"properties": "p"})},
    ]


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def cascade_scores(binary, rows):
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "in.jsonl"), os.path.join(d, "out.jsonl")
        with open(inp, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        t = time.perf_counter()
        subprocess.run(["taskset", "-c", "0", binary, "score", "--env", "structured_output", "--jobs", "1",
                        "--input", inp, "--output", out], check=True, stderr=subprocess.DEVNULL)
        dt = time.perf_counter() - t
        return {r["id"]: r for r in read_jsonl(out)}, dt


def main():
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    server = gym_server()
    sample = read_jsonl(os.path.join(ROOT, "datasets", "structured_output", "sample.jsonl"))
    rows = sample + edge_rows() + corpus(n)
    ours, _ = cascade_scores(binary, rows)
    agree, causes, other = 0, {}, []
    for row in rows:
        reward, error_type = gym_verify(server, row)
        mine = ours[row["id"]]
        if mine["reward"] == reward:
            agree += 1
            continue
        cause = known_cause(row)
        if cause and mine["reward"] == gym_verify(server, aligned(row), strict=row.get("strict", True))[0]:
            causes.setdefault(cause, []).append(row["id"])
        else:
            other.append((row["id"], mine["reward"], mine["details"].get("error_type"), reward, error_type))
    print(f"agreement: {agree}/{len(rows)} rows ({len(sample)} bundled + {len(edge_rows())} edge cases + {n} generated)")
    for cause, ids in causes.items():
        print(f"  {len(ids)} differ by design ({cause}); Gym agrees once given the same document and strictness: {', '.join(ids[:4])} ...")
    print(f"  {len(other)} other disagreements")
    for d in other:
        print("  disagree: %s cascade=%s (%s) gym=%s (%s)" % d)
    # Benchmark: the generated corpus only, one core, both in this run.
    bench = corpus(n, seed=17)
    os.sched_setaffinity(0, {0})
    t = time.perf_counter()
    for row in bench:
        gym_verify(server, row)
    gym_dt = time.perf_counter() - t
    _, our_dt = cascade_scores(binary, bench)
    print(f"one core (taskset -c 0), {len(bench)} samples: cascade score --jobs 1 {len(bench) / our_dt:,.0f} samples/s "
          f"(whole process: start, read, score, write); Gym in-process {len(bench) / gym_dt:,.0f} samples/s "
          f"({our_dt and gym_dt / our_dt:.1f}x)")


if __name__ == "__main__":
    main()
