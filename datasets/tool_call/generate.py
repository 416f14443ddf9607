#!/usr/bin/env python3
"""Writes the bundled tool_call data (original rows, NeMo Gym layout):

- sample.jsonl: rows WITH responses, one per rule of the environment (formats, BFCL
  rules, parallel calls, limits, malformed rows); `cascade score` writes
  sample.expected.jsonl from it.
- train.jsonl / eval.jsonl: rows without responses, simple one- or two-call tasks a
  tiny model could learn, drawn with a fixed seed.

Run: python3 datasets/tool_call/generate.py (deterministic; no dependencies).
"""
import json
import random
from pathlib import Path

HERE = Path(__file__).parent
SYSTEM = "You are a helpful assistant. Use a tool when it helps."


def tool(name, description, properties, required):
    return {"type": "function", "name": name, "description": description, "strict": False,
            "parameters": {"type": "object", "properties": properties, "required": required}}


WEATHER = tool("get_weather", "Current weather for a city.", {
    "city": {"type": "string", "description": "City name"},
    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}}, ["city"])
TIMER = tool("set_timer", "Start a countdown timer.", {
    "minutes": {"type": "integer"}, "label": {"type": "string"}}, ["minutes"])
CONVERT = tool("convert_currency", "Convert an amount between currencies.", {
    "amount": {"type": "number"}, "source": {"type": "string"}, "target": {"type": "string"}},
    ["amount", "source", "target"])
TODO = tool("add_todo", "Add an item to the to-do list.", {
    "title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
    "priority": {"type": "integer"}}, ["title"])
MEETING = tool("schedule_meeting", "Put a meeting in the calendar.", {
    "when": {"type": "object", "properties": {"date": {"type": "string"}, "time": {"type": "string"}}},
    "attendees": {"type": "array", "items": {"type": "object"}},
    "online": {"type": "boolean"}}, ["when"])
AVERAGE = tool("average", "Mean of a list of numbers.", {
    "values": {"type": "array", "items": {"type": "number"}}}, ["values"])
TOOLS = [WEATHER, TIMER, CONVERT, TODO, MEETING, AVERAGE]


def params(question, tools, system=SYSTEM):
    return {"input": [{"role": "system", "content": system}, {"role": "user", "content": question}],
            "tools": tools}


def hermes(name, arguments):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def xml(name, arguments, wrap=True):
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in arguments.items())
    call = f"<function={name}>\n{body}</function>"
    return f"<tool_call>\n{call}\n</tool_call>" if wrap else call


def item(name, arguments, call_id):
    return {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id,
            "id": f"fc_{call_id}", "status": "completed"}


def gym(id_, question, tools, response, **task):
    return {"id": id_, "responses_create_params": params(question, tools), **task, "response": response}


PARIS = [{"get_weather": {"city": ["Paris", "Paris, France"], "unit": ["", "celsius"]}}]
TIMER_GT = [{"set_timer": {"minutes": [10], "label": ["", "tea"]}}]
TWO_CITIES = [{"get_weather": {"city": ["Paris"], "unit": [""]}},
              {"get_weather": {"city": ["Rome"], "unit": [""]}}]


def sample_rows():
    w, t, c = [WEATHER, TIMER], [TIMER], [CONVERT]
    rows = [
        gym("hermes_correct", "Weather in Paris?", w, hermes("get_weather", {"city": "Paris"}), ground_truth=PARIS),
        gym("hermes_arguments_as_json_string", "Weather in Paris?", w,
            '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"paris, france\\"}"}</tool_call>',
            ground_truth=PARIS),
        gym("hermes_optional_given", "Weather in Paris, in celsius?", w,
            hermes("get_weather", {"city": "Paris", "unit": "celsius"}), ground_truth=PARIS),
        gym("hermes_optional_wrong_value", "Weather in Paris?", w,
            hermes("get_weather", {"city": "Paris", "unit": "fahrenheit"}), ground_truth=PARIS),
        gym("qwen3_coder_xml_typed", "Tea timer, 10 minutes.", t, xml("set_timer", {"minutes": 10, "label": "Tea"}),
            ground_truth=TIMER_GT),
        gym("qwen3_coder_xml_unwrapped", "Tea timer, 10 minutes.", t, xml("set_timer", {"minutes": 10}, wrap=False),
            ground_truth=TIMER_GT),
        gym("qwen3_coder_xml_unparsable_integer", "Tea timer, 10 minutes.", t, xml("set_timer", {"minutes": "ten"}),
            ground_truth=TIMER_GT),
        gym("parallel_other_order", "Weather in Paris and Rome?", w,
            hermes("get_weather", {"city": "Rome"}) + "\n" + hermes("get_weather", {"city": "Paris"}),
            ground_truth=TWO_CITIES),
        gym("parallel_needs_maximum_matching", "Weather in Paris and Rome?", w,
            hermes("get_weather", {"city": "Paris"}) + hermes("get_weather", {"city": "Rome"}),
            ground_truth=[{"get_weather": {"city": ["Paris", "Rome"]}}, {"get_weather": {"city": ["Paris"]}}]),
        gym("parallel_one_missing", "Weather in Paris and Rome?", w, hermes("get_weather", {"city": "Rome"}),
            ground_truth=TWO_CITIES),
        gym("wrong_count_duplicate_call", "Weather in Paris?", w,
            hermes("get_weather", {"city": "Paris"}) + hermes("get_weather", {"city": "Paris"}), ground_truth=PARIS),
        gym("no_call_plain_answer", "Weather in Paris?", w, "It is probably sunny in Paris.", ground_truth=PARIS),
        gym("no_call_expected_and_none_made", "Tell me a joke.", w, "Why did the timer stop? It ran out of time.",
            ground_truth=[]),
        gym("wrong_function", "Weather in Paris?", w, hermes("set_timer", {"minutes": 1}), ground_truth=PARIS),
        gym("unknown_tool", "Weather in Paris?", w, hermes("get_forecast", {"city": "Paris"}), ground_truth=PARIS),
        gym("wrong_type_string_for_integer", "Tea timer, 10 minutes.", t, hermes("set_timer", {"minutes": "10"}),
            ground_truth=TIMER_GT),
        gym("wrong_type_float_for_integer", "Tea timer, 10 minutes.", t, hermes("set_timer", {"minutes": 10.0}),
            ground_truth=TIMER_GT),
        gym("integer_accepted_for_number", "Convert 20 USD to EUR.", c,
            hermes("convert_currency", {"amount": 20, "source": "USD", "target": "EUR"}),
            ground_truth=[{"convert_currency": {"amount": [20.0], "source": ["USD"], "target": ["EUR"]}}]),
        gym("string_standardized", "Weather in New York?", w, hermes("get_weather", {"city": "new-york"}),
            ground_truth=[{"get_weather": {"city": ["New York"], "unit": [""]}}]),
        gym("string_wrong_value", "Weather in Paris?", w, hermes("get_weather", {"city": "Lyon"}), ground_truth=PARIS),
        gym("missing_required", "Convert 20 USD to EUR.", c,
            hermes("convert_currency", {"amount": 20, "target": "EUR"}),
            ground_truth=[{"convert_currency": {"amount": [20.0], "source": ["USD"], "target": ["EUR"]}}]),
        gym("unexpected_parameter", "Weather in Paris?", w,
            hermes("get_weather", {"city": "Paris", "country": "France"}), ground_truth=PARIS),
        gym("reference_needs_an_optional_parameter", "Tea timer, 10 minutes.", t,
            hermes("set_timer", {"minutes": 10}), ground_truth=[{"set_timer": {"minutes": [10], "label": ["tea"]}}]),
        gym("list_value_case_insensitive", "Add 'buy milk' tagged home, urgent.", [TODO],
            hermes("add_todo", {"title": "Buy milk", "tags": ["Home", "URGENT"]}),
            ground_truth=[{"add_todo": {"title": ["buy milk"], "tags": [["home", "urgent"]], "priority": [""]}}]),
        gym("list_value_order_matters", "Add 'buy milk' tagged home, urgent.", [TODO],
            hermes("add_todo", {"title": "Buy milk", "tags": ["urgent", "home"]}),
            ground_truth=[{"add_todo": {"title": ["buy milk"], "tags": [["home", "urgent"]], "priority": [""]}}]),
        gym("number_list_with_integers", "Average of 1, 2.5 and 4?", [AVERAGE],
            hermes("average", {"values": [1, 2.5, 4]}), ground_truth=[{"average": {"values": [[1.0, 2.5, 4.0]]}}]),
        gym("nested_dict_and_list_of_dicts", "Meet Ann on 2025-03-01 at 10:00, online.", [MEETING],
            hermes("schedule_meeting", {"when": {"date": "2025-03-01", "time": "10:00"},
                                        "attendees": [{"name": "ann"}], "online": True}),
            ground_truth=[{"schedule_meeting": {"when": [{"date": ["2025-03-01"], "time": ["10:00", "10am"]}],
                                                "attendees": [[{"name": ["Ann"]}]], "online": [True]}}]),
        gym("nested_dict_unexpected_key", "Meet on 2025-03-01 at 10:00.", [MEETING],
            hermes("schedule_meeting", {"when": {"date": "2025-03-01", "time": "10:00", "tz": "UTC"}}),
            ground_truth=[{"schedule_meeting": {"when": [{"date": ["2025-03-01"], "time": ["10:00"]}],
                                                "attendees": [""], "online": [""]}}]),
        gym("think_draft_ignored", "Weather in Paris?", w,
            "<think>Maybe " + hermes("get_weather", {"city": "London"}) + "? No, Paris.</think>\n"
            + hermes("get_weather", {"city": "Paris"}), ground_truth=PARIS),
        gym("call_only_inside_think", "Weather in Paris?", w,
            "<think>" + hermes("get_weather", {"city": "Paris"}) + "</think>I am not sure.", ground_truth=PARIS),
        gym("invalid_json_in_call", "Weather in Paris?", w,
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris",}}</tool_call>', ground_truth=PARIS),
        gym("function_call_items_from_server", "Weather in Paris and Rome?", w, "",
            response_output=[{"type": "reasoning", "id": "rs_1", "summary": []},
                             item("get_weather", '{"city": "Rome"}', "c1"),
                             item("get_weather", '{"city": "Paris"}', "c2")],
            ground_truth=TWO_CITIES),
        gym("function_call_item_with_bad_arguments", "Weather in Paris?", w, "",
            response_output=[item("get_weather", '{"city": Paris}', "c1")], ground_truth=PARIS),
        gym("ground_truth_as_json_string", "Tea timer, 10 minutes.", t, hermes("set_timer", {"minutes": 10}),
            ground_truth=json.dumps(TIMER_GT)),
        gym("xlam_expected_answers", "Convert 20 USD to EUR.", c,
            hermes("convert_currency", {"amount": 20, "source": "usd", "target": "eur"}),
            expected_answers=[{"name": "convert_currency",
                               "arguments": {"amount": 20, "source": "USD", "target": "EUR"}}]),
        gym("single_step_expected_action", "Tea timer, 10 minutes.", t, hermes("set_timer", {"minutes": 10}),
            expected_action={"type": "function_call", "name": "set_timer", "arguments": '{"minutes": 10}'}),
        gym("single_step_expected_message", "Set a timer.", t, "For how many minutes?",
            expected_action={"type": "message", "content": "For how many minutes?"}),
        {"id": "cascade_layout_chat_tools", "prompt": "Weather in Paris?",
         "tools": [{"type": "function", "function": {k: v for k, v in WEATHER.items() if k not in ("type", "strict")}}],
         "ground_truth": PARIS, "response": hermes("get_weather", {"city": "Paris"})},
        gym("malformed_reference_to_undeclared_tool", "Weather in Paris?", w, hermes("get_weather", {"city": "Paris"}),
            ground_truth=[{"get_forecast": {"city": ["Paris"]}}]),
        gym("malformed_no_reference", "Weather in Paris?", w, hermes("get_weather", {"city": "Paris"})),
        gym("malformed_accepted_values_not_a_list", "Weather in Paris?", w, hermes("get_weather", {"city": "Paris"}),
            ground_truth=[{"get_weather": {"city": "Paris"}}]),
        {"id": "malformed_tools_not_a_list", "prompt": "Weather?", "tools": {"get_weather": {}},
         "ground_truth": PARIS, "response": hermes("get_weather", {"city": "Paris"})},
        {"id": "malformed_response_not_a_string", "responses_create_params": params("Weather in Paris?", w),
         "ground_truth": PARIS, "response": {"text": "Paris"}},
    ]
    return rows


# Train / eval tasks: (question template, function, argument builder, ground truth builder).
CITIES = ["Paris", "Rome", "Tokyo", "Lima", "Oslo", "Cairo", "Delhi", "Quito", "Seoul", "Dakar"]
CURRENCIES = ["USD", "EUR", "JPY", "GBP", "CHF", "INR"]
ITEMS = ["buy milk", "call mom", "pay rent", "water plants", "fix bike", "read book"]


def task(rng):
    kind = rng.choice(["weather", "weather2", "timer", "convert", "todo"])
    if kind == "weather":
        city = rng.choice(CITIES)
        return f"What is the weather in {city}?", [WEATHER, TIMER], [
            {"get_weather": {"city": [city], "unit": ["", "celsius"]}}]
    if kind == "weather2":
        a, b = rng.sample(CITIES, 2)
        return f"What is the weather in {a} and in {b}?", [WEATHER], [
            {"get_weather": {"city": [a], "unit": ["", "celsius"]}},
            {"get_weather": {"city": [b], "unit": ["", "celsius"]}}]
    if kind == "timer":
        minutes = rng.randint(1, 60)
        return f"Set a timer for {minutes} minutes.", [TIMER, WEATHER], [
            {"set_timer": {"minutes": [minutes], "label": [""]}}]
    if kind == "convert":
        amount = rng.randint(1, 500)
        src, dst = rng.sample(CURRENCIES, 2)
        return f"Convert {amount} {src} to {dst}.", [CONVERT], [
            {"convert_currency": {"amount": [float(amount)], "source": [src], "target": [dst]}}]
    title = rng.choice(ITEMS)
    return f"Add '{title}' to my to-do list.", [TODO, TIMER], [
        {"add_todo": {"title": [title], "tags": [""], "priority": [""]}}]


def split(name, count, seed):
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        question, tools, gt = task(rng)
        rows.append({"id": f"{name}-{i:03d}", "responses_create_params": params(question, tools),
                     "ground_truth": gt})
    return rows


def write(path, rows):
    with open(HERE / path, "w") as f:
        for row in rows:
            f.write(json.dumps(row, separators=(", ", ": ")) + "\n")


if __name__ == "__main__":
    write("sample.jsonl", sample_rows())
    write("train.jsonl", split("train", 32, seed=16))
    write("eval.jsonl", split("eval", 16, seed=61))
