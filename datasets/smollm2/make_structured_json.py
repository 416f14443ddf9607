"""Writes structured_json.{train,eval}.jsonl: structured-output rows in NeMo Gym's
`structured_outputs` layout (`responses_create_params.input`, `schema_str`,
`schema_type`) that SmolLM2-135M-Instruct can satisfy some of the time, so that the
multi-domain stage's structured-output groups differ.

Why these rows (probed 2026-12-07 with transformers on the converted model):
- On the bundled datasets/structured_output rows (JSON, YAML, TOML, XML and CSV, the
  instruction in a system message) the model almost never writes a document that
  parses: sampled 0-0.19 a step, 0.016 at the end of the multi-domain stage.
- It ignores a system message that gives the schema (0 of 16 sampled, 0 of 8 greedy),
  but follows a user message naming the keys: "Tomas is 10 years old. Reply with a
  JSON object only, with the keys "name" (string) and "age" (integer)." is right 6 of
  8 greedy. Other shapes it gets wrong: a trailing comma, prose after the object
  (the whole answer must parse), a string where an integer is asked, keys of its own.
So every row is JSON with two or three required keys and no others, asked in the
user message; the schema itself is in `schema_str`, which is what the env grades.

    python3 datasets/smollm2/make_structured_json.py   # deterministic: seed 7
"""
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 7

# name: (fact template, [(key, JSON type)], values for {a})
SHAPES = {
    "person": ("{a} is {n} years old.", [("name", "string"), ("age", "integer")],
               ["Tomas", "Priya", "Omar", "Noor", "Lena", "Ravi", "Ana", "Kenji", "Ines", "Yusuf"]),
    "city": ("{a} has {n} thousand people.", [("city", "string"), ("population", "integer")],
             ["Quito", "Lyon", "Osaka", "Accra", "Perth", "Cusco", "Tartu", "Hue", "Bergen", "Fez"]),
    "book": ("The book {a} came out in {y}.", [("title", "string"), ("year", "integer")],
             ["Dune", "Emma", "Ulysses", "Beloved", "Matilda", "Kindred", "Solaris", "Ivanhoe", "Persuasion", "Ubik"]),
    "stock": ("The shop has {n} {a}.", [("item", "string"), ("count", "integer")],
              ["lamps", "chairs", "mugs", "kites", "pens", "hats", "bowls", "clocks", "rugs", "vases"]),
    "door": ("Is the {a} door open? {b}.", [("door", "string"), ("open", "boolean")],
             ["front", "back", "side", "garage", "attic", "cellar", "barn", "gate", "shed", "porch"]),
    "resident": ("{a} is {n} years old and lives in {c}.",
                 [("name", "string"), ("age", "integer"), ("city", "string")],
                 ["Tomas", "Priya", "Omar", "Noor", "Lena", "Ravi", "Ana", "Kenji", "Ines", "Yusuf"]),
}
CITIES = ["Lima", "Oslo", "Pune", "Riga", "Baku", "Hilo"]


def keys_text(fields):
    parts = [f'"{key}" ({kind})' for key, kind in fields]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def schema(fields):
    return {
        "type": "object",
        "properties": {key: {"type": kind} for key, kind in fields},
        "required": [key for key, _ in fields],
        "additionalProperties": False,
    }


def row(rid, shape, rng, value):
    fact, fields, _ = SHAPES[shape]
    text = fact.format(a=value, n=rng.randint(10, 99), y=rng.randint(1800, 2020),
                       b=rng.choice(["Yes", "No"]), c=rng.choice(CITIES))
    ask = f"{text} Reply with a JSON object only, with the keys {keys_text(fields)}."
    return {
        "id": rid,
        "responses_create_params": {"input": [{"role": "user", "content": ask}]},
        "schema_str": json.dumps(schema(fields)),
        "schema_type": "json",
        "agent_ref": {"type": "responses_api_agents", "name": "structured_outputs_simple_agent"},
    }


def split(name, per_shape, values, rng):
    rows = []
    for shape in SHAPES:
        for i in range(per_shape):
            value = SHAPES[shape][2][values[i % len(values)]]
            rows.append(row(f"sj-{name}-{shape}-{i:02d}", shape, rng, value))
    rng.shuffle(rows)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (HERE / f"structured_json.{name}.jsonl").write_text(text)


rng = random.Random(SEED)
split("train", 12, list(range(7)), rng)   # values 0-6 of each shape
split("eval", 4, [7, 8, 9], rng)          # held-out values 7-9
