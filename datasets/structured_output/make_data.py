"""Writes the bundled `structured_output` data (all rows original, Gym's layout):
sample.jsonl (rows with responses, one or more per rule) and train.jsonl / eval.jsonl
(rows without responses, simple schemas a tiny model can learn).

    python3 datasets/structured_output/make_data.py   # deterministic: seed 16
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}}
BOOK = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "year": {"type": "integer"},
        "genres": {"type": "array", "items": {"type": "string"}},
    },
}
XML_BOOK = {"type": "object", "properties": {"book": {
    "type": "object",
    "properties": {"title": {"type": "string"}, "year": {"type": "integer"}, "genres": {"type": "array", "items": {"type": "string"}}},
}}}
ROWS = {"type": "array", "items": {"type": "object", "properties": {
    "city": {"type": "string"}, "population": {"type": "integer"}, "coastal": {"type": "boolean"}}}}
ORDER = {"type": "object", "properties": {
    "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4}$"},
    "status": {"type": "string", "enum": ["open", "shipped", "closed"]},
    "total": {"type": "number", "minimum": 0},
}}


def gym_row(rid, schema, schema_type, question, response=None, **extra):
    fmt = schema_type.upper()
    row = {
        "id": rid,
        "responses_create_params": {"input": [
            {"role": "system", "content": f"Reply with a {fmt} document only. It must match this JSON Schema: {json.dumps(schema)}"},
            {"role": "user", "content": question},
        ]},
        "schema_str": json.dumps(schema),
        "schema_type": schema_type,
    }
    row.update(extra)
    if response is not None:
        row["response"] = response
    return row


def tool_row(rid, schema, response, tool_name="record_book", payload_key="record", **extra):
    params = {"type": "object", "properties": {payload_key: schema}, "required": [payload_key]}
    row = {
        "id": rid,
        "responses_create_params": {
            "input": [{"role": "user", "content": "Record the book 'Dune' (1965, science fiction) with the tool."}],
            "tools": [{"type": "function", "name": tool_name, "description": "Store one book.", "parameters": params, "strict": True}],
        },
        "schema_str": json.dumps(schema),
        "schema_type": "json",
        "response_mode": "tool_call",
        "tool_name": tool_name,
        "tool_payload_key": payload_key,
        "response": response,
    }
    row.update(extra)
    return row


def hermes(name, arguments):
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def sample_rows():
    q = "Who is in the note 'Maria, 34, signed in'? Give name and age."
    qb = "Describe the book: Dune by Frank Herbert, 1965, science fiction and adventure."
    dune = {"title": "Dune", "year": 1965, "genres": ["science fiction", "adventure"]}
    rows = [
        gym_row("json_bare", PERSON, "json", q, '{"name": "Maria", "age": 34}'),
        gym_row("json_fenced_with_prose", PERSON, "json", q, 'Here it is:\n```json\n{"name": "Maria", "age": 34}\n```\nAnything else?'),
        gym_row("json_untagged_last_fence_wins", PERSON, "json", q, 'Draft:\n```json\n{"name": "Maria"}\n```\nFixed:\n```\n{"name": "Maria", "age": 34}\n```'),
        gym_row("json_think_draft_ignored", PERSON, "json", q, '<think>maybe {"name": 34}</think>\n{"name": "Maria", "age": 34}'),
        gym_row("json_unclosed_think", PERSON, "json", q, '<think>the note says Maria is 34 so {"name": "Maria"'),
        gym_row("json_missing_property_strict", PERSON, "json", q, '{"name": "Maria"}'),
        gym_row("json_missing_property_lax", PERSON, "json", q, '{"name": "Maria"}', strict=False),
        gym_row("json_extra_property_strict", PERSON, "json", q, '{"name": "Maria", "age": 34, "city": "Lima"}'),
        gym_row("json_extra_property_lax", PERSON, "json", q, '{"name": "Maria", "age": 34, "city": "Lima"}', strict=False),
        gym_row("json_wrong_type", PERSON, "json", q, '{"name": "Maria", "age": "34"}'),
        gym_row("json_below_minimum", PERSON, "json", q, '{"name": "Maria", "age": -1}'),
        gym_row("json_pattern_enum_ok", ORDER, "json", "Order ORD-0042 shipped, total 19.5.", '{"order_id": "ORD-0042", "status": "shipped", "total": 19.5}'),
        gym_row("json_pattern_mismatch", ORDER, "json", "Order ORD-0042 shipped, total 19.5.", '{"order_id": "ORD-42", "status": "shipped", "total": 19.5}'),
        gym_row("json_syntax_error", PERSON, "json", q, '{"name": "Maria", "age": 34'),
        gym_row("json_empty", PERSON, "json", q, "   "),
        gym_row("json_deeply_nested", PERSON, "json", q, "[" * 1000),
        gym_row("yaml_bare", BOOK, "yaml", qb, "title: Dune\nyear: 1965\ngenres:\n  - science fiction\n  - adventure\n"),
        gym_row("yaml_fenced", BOOK, "yaml", qb, "```yaml\ntitle: Dune\nyear: 1965\ngenres: [science fiction, adventure]\n```"),
        gym_row("yaml_year_as_string", BOOK, "yaml", qb, "title: Dune\nyear: '1965'\ngenres: []\n"),
        gym_row("yaml_bad_indentation", BOOK, "yaml", qb, "title: Dune\n year: 1965\n  genres: x\n"),
        gym_row("toml_bare", BOOK, "toml", qb, 'title = "Dune"\nyear = 1965\ngenres = ["science fiction", "adventure"]\n'),
        gym_row("toml_wrong_type", BOOK, "toml", qb, 'title = "Dune"\nyear = 1965.5\ngenres = []\n'),
        gym_row("toml_syntax_error", BOOK, "toml", qb, 'title = "Dune\nyear = 1965\n'),
        gym_row("xml_coerced", XML_BOOK, "xml", qb, "<book><title>Dune</title><year>1965</year><genres><genre>science fiction</genre><genre>adventure</genre></genres></book>"),
        gym_row("xml_single_child_is_an_array", XML_BOOK, "xml", qb, "<book><title>Dune</title><year>1965</year><genres><genre>adventure</genre></genres></book>"),
        gym_row("xml_wrong_root", XML_BOOK, "xml", qb, "<novel><title>Dune</title><year>1965</year><genres/></novel>"),
        gym_row("xml_malformed", XML_BOOK, "xml", qb, "<book><title>Dune</title><year>1965</book>"),
        gym_row("csv_rows", ROWS, "csv", "List Lima (9.7M, coastal) and Quito (2.8M, inland).", "city,population,coastal\nLima,9700000,true\nQuito,2800000,false\n"),
        gym_row("csv_bad_cell", ROWS, "csv", "List Lima and Quito.", "city,population,coastal\nLima,9.7M,true\nQuito,2800000,false\n"),
        gym_row("csv_missing_column", ROWS, "csv", "List Lima and Quito.", "city,population\nLima,9700000\n"),
        tool_row("tool_hermes_ok", BOOK, "I'll record it.\n" + hermes("record_book", {"record": dune})),
        tool_row("tool_responses_item_ok", BOOK, {"error": None, "output": [
            {"type": "function_call", "call_id": "call_1", "name": "record_book", "arguments": json.dumps({"record": dune})}]}),
        tool_row("tool_wrong_name", BOOK, hermes("save_book", {"record": dune})),
        tool_row("tool_missing_call", BOOK, json.dumps({"record": dune})),
        tool_row("tool_two_calls", BOOK, hermes("record_book", {"record": dune}) + hermes("record_book", {"record": dune})),
        tool_row("tool_missing_payload_key", BOOK, hermes("record_book", dune)),
        tool_row("tool_arguments_violate_schema", BOOK, hermes("record_book", {"record": {"title": "Dune"}})),
        gym_row("schema_not_json", PERSON, "json", q, '{"name": "Maria", "age": 34}') | {"schema_str": "{\"type\": \"object\","},
        gym_row("schema_not_a_schema", PERSON, "json", q, '{"name": "Maria", "age": 34}') | {"schema_str": json.dumps({"type": "strin"})},
        gym_row("schema_external_ref", PERSON, "json", q, '{"name": "Maria", "age": 34}') | {"schema_str": json.dumps({"$ref": "https://example.com/person.json"})},
        gym_row("schema_type_unknown", PERSON, "ini", q, "name=Maria"),
        {"id": "cascade_layout_prompt", "prompt": q + " Answer in JSON.", "schema_str": PERSON, "schema_type": "json", "response": '{"name": "Maria", "age": 34}'},
    ]
    return rows


NAMES = ["Maria", "Kenji", "Amara", "Lukas", "Priya", "Tomas", "Lea", "Omar", "Sofia", "Ivan", "Noor", "Elena"]
CITIES = ["Lima", "Oslo", "Accra", "Hanoi", "Quito", "Porto", "Perth", "Cusco"]
ITEMS = ["lamp", "kettle", "chair", "notebook", "bicycle", "umbrella"]


def task_rows(rng, n, prefix):
    rows = []
    for i in range(n):
        kind = i % 5
        schema_type = ["json", "yaml", "toml", "xml", "csv"][kind]
        name, age, city = rng.choice(NAMES), rng.randint(18, 80), rng.choice(CITIES)
        if schema_type == "csv":
            a, b = rng.sample(ITEMS, 2)
            schema = {"type": "array", "items": {"type": "object", "properties": {"item": {"type": "string"}, "count": {"type": "integer"}}}}
            q = f"Inventory: {rng.randint(1, 9)} {a}s and {rng.randint(1, 9)} {b}s. List item and count as CSV with a header row."
        elif schema_type == "xml":
            schema = {"type": "object", "properties": {"person": {"type": "object", "properties": {"name": {"type": "string"}, "city": {"type": "string"}}}}}
            q = f"{name} lives in {city}. Give name and city as XML with root element <person>."
        else:
            schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
            q = f"{name} is {age} years old. Give name and age."
        rows.append(gym_row(f"{prefix}-{i:03d}", schema, schema_type, q))
    return rows


def write(name, rows):
    with open(os.path.join(HERE, name), "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    rng = random.Random(16)
    write("sample.jsonl", sample_rows())
    write("train.jsonl", task_rows(rng, 32, "so-train"))
    write("eval.jsonl", task_rows(rng, 16, "so-eval"))
