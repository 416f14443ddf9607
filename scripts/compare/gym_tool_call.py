"""tool_call beside its peers, on the same rows, in one process per peer:

- BFCL's own AST checker (`ast_checker(..., "parallel")`), loaded at run time from a
  fetched gorilla checkout (`--gorilla GIT_DIR`; its heavy `model_config` module, used
  only for dotted function names, is replaced by an empty mapping);
- NeMo Gym 0.7.0's xlam_fc `verify` (rows with `expected_answers`);
- NeMo Gym 0.7.0's single_step_tool_use_with_argument_comparison `verify` (rows with
  `expected_action`, threshold 0.1 as its main config).

Corpus: the bundled `datasets/tool_call/sample.jsonl` (BFCL peer, rows with a
`ground_truth` the peer can read) plus a seeded corpus of mutated calls (correct,
case and punctuation changes, int/float swaps, strings for numbers, missing, extra and
defaulted parameters, wrong names, shuffled / duplicated / dropped parallel calls,
invalid JSON). Disagreements are counted by class with an example each; `--every`
lists every one. Then samples/s for each peer and
for `cascade score --jobs 1` on the same rows; run under `taskset -c 0` by the .sh.

    python gym_tool_call.py CASCADE_BIN GORILLA_GIT_DIR [--rows N]
"""

import argparse
import asyncio
import copy
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BFCL = "berkeley-function-call-leaderboard/bfcl_eval"
BFCL_FILES = [
    "constants/enums.py",
    "constants/type_mappings.py",
    "eval_checker/ast_eval/ast_checker.py",
    "eval_checker/ast_eval/type_convertor/java_type_converter.py",
    "eval_checker/ast_eval/type_convertor/js_type_converter.py",
]


def load_bfcl(git_dir, into):
    """Writes the checker's modules from the gorilla checkout into a temp package."""
    for rel in BFCL_FILES:
        text = subprocess.check_output(["git", f"--git-dir={git_dir}", "show", f"HEAD:{BFCL}/{rel}"], text=True)
        path = Path(into, "bfcl_eval", rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for d in ["", "constants", "eval_checker", "eval_checker/ast_eval", "eval_checker/ast_eval/type_convertor"]:
        Path(into, "bfcl_eval", d, "__init__.py").touch()
    Path(into, "bfcl_eval/constants/model_config.py").write_text("MODEL_CONFIG_MAPPING = {}\n")
    sys.path.insert(0, str(into))
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    commit = subprocess.check_output(["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], text=True).strip()
    return (lambda tools, calls, gt: ast_checker(tools, calls, gt, Language.PYTHON, "parallel", "cascade")), commit


# ---- the corpus --------------------------------------------------------------------

sys.path.insert(0, str(ROOT / "datasets/tool_call"))
import generate as data  # noqa: E402  (the bundled data's tools and prompts)

CITIES = ["Paris", "New York", "Rio de Janeiro", "Oslo", "San Jose", "Hong Kong"]
TITLES = ["buy milk", "Call Mom", "pay rent", "water the plants"]


def base_case(rng):
    """(tools, reference calls as {name: {param: value}}, optional params per call)."""
    kind = rng.choice(["weather", "weather2", "timer", "convert", "todo", "average"])
    if kind == "weather":
        return [data.WEATHER, data.TIMER], [("get_weather", {"city": rng.choice(CITIES)}, {"unit": "celsius"})]
    if kind == "weather2":
        a, b = rng.sample(CITIES, 2)
        return [data.WEATHER], [("get_weather", {"city": a}, {"unit": "celsius"}),
                                ("get_weather", {"city": b}, {"unit": "celsius"})]
    if kind == "timer":
        return [data.TIMER], [("set_timer", {"minutes": rng.randint(1, 90)}, {"label": "tea"})]
    if kind == "convert":
        amount = rng.choice([20.0, 12.5, 100.0, 7.25])
        return [data.CONVERT], [("convert_currency", {"amount": amount, "source": "USD", "target": "EUR"}, {})]
    if kind == "todo":
        return [data.TODO], [("add_todo", {"title": rng.choice(TITLES), "tags": ["home", "urgent"]}, {"priority": 1})]
    return [data.AVERAGE], [("average", {"values": [1.0, 2.5, 4.0]}, {})]


def mutate_value(rng, value):
    if isinstance(value, bool):
        return "true"
    if isinstance(value, int):
        return rng.choice([float(value), str(value), value + 1])
    if isinstance(value, float):
        return rng.choice([int(value) if value.is_integer() else value + 0.5, str(value), value + 1])
    if isinstance(value, str):
        return rng.choice([value.upper(), value.replace(" ", "-"), value.replace(" ", ""), value + " City",
                           "Lyon", value.lower() + ".", " ".join(reversed(value.split()))])
    if isinstance(value, list):
        return rng.choice([list(reversed(value)), value[:1], [str(v).upper() for v in value],
                           [int(v) if isinstance(v, float) and v.is_integer() else v for v in value]])
    return value


MUTATIONS = ["correct", "correct", "value", "value", "drop_optional", "add_optional", "add_default",
             "unknown_param", "drop_required", "wrong_name", "shuffle", "duplicate", "drop_call", "bad_json"]


def mutated_calls(rng, calls):
    """The model's calls: (name, arguments dict or raw string), and the mutation."""
    kind = rng.choice(MUTATIONS)
    out = [(name, dict(args)) for name, args, _ in calls]
    optional = [opt for _, _, opt in calls]
    i = rng.randrange(len(out))
    name, args = out[i]
    if kind == "value":
        key = rng.choice(sorted(args))
        args[key] = mutate_value(rng, args[key])
    elif kind in ("add_optional", "add_default") and optional[i]:
        key = rng.choice(sorted(optional[i]))
        args[key] = optional[i][key] if kind == "add_default" else mutate_value(rng, optional[i][key])
    elif kind == "unknown_param":
        args["note"] = "x"
    elif kind == "drop_required":
        args.pop(sorted(args)[0])
    elif kind == "wrong_name":
        out[i] = (rng.choice(["get_forecast", "set_timer", "average"]), args)
    elif kind == "shuffle":
        out.reverse()
    elif kind == "duplicate":
        out.append(out[i])
    elif kind == "drop_call":
        out.pop(i)
    elif kind == "bad_json":
        out[i] = (name, json.dumps(args)[:-1] + ",}")
    return out, kind


def arguments_text(args):
    return args if isinstance(args, str) else json.dumps(args)


def items(calls):
    return [{"type": "function_call", "name": n, "arguments": arguments_text(a), "call_id": f"c{k}",
             "id": f"fc_{k}", "status": "completed"} for k, (n, a) in enumerate(calls)]


def hermes_text(calls):
    return "".join(f'<tool_call>{{"name": {json.dumps(n)}, "arguments": {arguments_text(a)}}}</tool_call>\n'
                   for n, a in calls)


def bfcl_truth(rng, calls):
    """BFCL possible answers: the value (strings also in another accepted spelling),
    optional parameters marked with "" and sometimes their default."""
    gt = []
    for name, args, optional in calls:
        entry = {k: [v] for k, v in args.items()}
        for k, v in optional.items():
            entry[k] = ["", v] if rng.random() < 0.5 else [""]
        gt.append({name: entry})
    return gt


def corpus(rng, n):
    """Rows per peer: (row for cascade, what the peer needs, mutation)."""
    rows = defaultdict(list)
    for k in range(n):
        tools, calls = base_case(rng)
        model, kind = mutated_calls(rng, calls)
        prompt = data.params("Help me.", tools)
        text = rng.random() < 0.5
        gt = bfcl_truth(rng, calls)
        bfcl_row = {"id": f"bfcl-{k}", "responses_create_params": prompt, "ground_truth": gt,
                    "response": hermes_text(model) if text else ""}
        if not text:
            bfcl_row["response_output"] = items(model)
        rows["bfcl"].append((bfcl_row, (tools, model, gt), kind))
        answers = [{"name": name, "arguments": args} for name, args, _ in calls]
        xlam_row = {"id": f"xlam-{k}", "responses_create_params": prompt, "expected_answers": answers,
                    "response": "", "response_output": items(model)}
        rows["xlam_fc"].append((xlam_row, xlam_row, kind))
        if len(calls) == 1:
            action = {"type": "function_call", "name": calls[0][0], "arguments": json.dumps(calls[0][1])}
            step_row = {"id": f"step-{k}", "responses_create_params": prompt, "expected_action": action,
                        "response": "", "response_output": items(model)}
            rows["single_step"].append((step_row, step_row, kind))
    return rows


def bundled_bfcl_rows():
    """The bundled sample's rows that BFCL can read: a ground_truth list, tools whose
    parameters have types, and calls decodable from JSON (Hermes text or items)."""
    out = []
    for line in (ROOT / "datasets/tool_call/sample.jsonl").read_text().splitlines():
        row = json.loads(line)
        gt = row.get("ground_truth")
        tools = row.get("tools") or row.get("responses_create_params", {}).get("tools")
        if not isinstance(gt, list) or not isinstance(tools, list) or not isinstance(row.get("response"), str):
            continue
        if not all(isinstance(g, dict) and all(isinstance(a, list) for p in g.values() for a in p.values())
                   for g in gt):
            continue  # a malformed reference: cascade's error row, BFCL would misread it
        if "<function=" in row["response"]:
            continue  # Qwen3-Coder XML: BFCL has no parser for it
        if not all(any(t.get("name", t.get("function", {}).get("name")) == next(iter(g)) for t in tools) for g in gt):
            continue
        tools = [t.get("function", t) for t in tools]
        if "response_output" in row:
            model = [(i["name"], i["arguments"]) for i in row["response_output"] if i.get("type") == "function_call"]
        else:
            visible = row["response"].rsplit("</think>", 1)[-1].split("<think>", 1)[0]
            model = []
            for block in re.findall(r"<tool_call>(.*?)</tool_call>", visible, re.S):
                try:
                    call = json.loads(block)
                    model.append((call.get("name"), call.get("arguments", {})))
                except json.JSONDecodeError:
                    model.append((None, block))
        out.append((row, (tools, model, gt), "bundled:" + row["id"]))
    return out


# ---- the peers ---------------------------------------------------------------------

BFCL_TYPES = {"number": "float", "object": "dict"}


def bfcl_function(tool):
    """A Gym/OpenAI tool in BFCL's function-doc vocabulary (number → float, object → dict)."""
    params = copy.deepcopy(tool["parameters"])
    params["type"] = "dict"
    for spec in params.get("properties", {}).values():
        spec["type"] = BFCL_TYPES.get(spec.get("type"), spec.get("type"))
        if "items" in spec:
            spec["items"]["type"] = BFCL_TYPES.get(spec["items"].get("type"), spec["items"].get("type"))
    params.setdefault("required", [])
    return {"name": tool["name"], "description": tool.get("description", ""), "parameters": params}


def bfcl_score(checker, case):
    tools, model, gt = case
    decoded = []
    for name, args in model:
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                return 0.0  # BFCL's decode step fails: the turn is invalid
        if name is None or not isinstance(args, dict):
            return 0.0
        decoded.append({name: args})
    return 1.0 if checker([bfcl_function(t) for t in tools], decoded, gt)["valid"] else 0.0


def gym_verifiers():
    from nemo_gym.openai_utils import NeMoGymResponse
    from resources_servers.single_step_tool_use_with_argument_comparison import app as step
    from resources_servers.xlam_fc import app as xlam

    def response(row):
        return NeMoGymResponse(id="r", created_at=0.0, model="m", object="response", output=row["response_output"],
                               parallel_tool_calls=True, tool_choice="auto", tools=[]).model_dump()

    xlam_server = xlam.XlamFcResourcesServer.model_construct(config=None)
    step_config = step.SingleStepToolUseArgumentComparisonResourcesServerConfig.model_construct(
        tool_call_comparator_config=step.ToolCallComparatorConfig(word_count_similarity_threshold=0.1))
    step_server = step.SingleStepToolUseArgumentComparisonResourcesServer.model_construct(config=step_config)

    def body(row):
        return {"responses_create_params": row["responses_create_params"], "response": response(row)}

    async def run_xlam(row):
        request = xlam.XlamFcVerifyRequest.model_validate({**body(row), "expected_answers": row["expected_answers"]})
        return (await xlam_server.verify(request)).reward

    async def run_step(row):
        request = step.SingleStepToolUseArgumentComparisonVerifyRequest.model_validate(
            {**body(row), "expected_action": row["expected_action"]})
        return (await step_server.verify(request)).reward

    return {"xlam_fc": run_xlam, "single_step": run_step}


def cascade_scores(cascade, rows):
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "in.jsonl"), Path(tmp, "out.jsonl")
        src.write_text("".join(json.dumps(r) + "\n" for r in rows))
        start = time.perf_counter()
        run = subprocess.run([cascade, "score", "--env", "tool_call", "--jobs", "1", "--input", src, "--output", dst],
                             capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        out = {}
        for line in dst.read_text().splitlines():
            result = json.loads(line)
            out[result["id"]] = result
        reported = re.search(r"\(([\d.]+) samples/s\)", run.stderr)
        return out, len(rows) / wall, float(reported.group(1)) if reported else None


EVERY = "--every" in sys.argv


def compare(name, cases, peer_scores, cascade):
    results, wall_rate, reported_rate = cascade_scores(cascade, [row for row, _, _ in cases])
    agree, disagree = 0, defaultdict(list)
    for (row, _, kind), theirs in zip(cases, peer_scores):
        ours = results[row["id"]]
        if ours["reward"] == theirs:
            agree += 1
        else:
            disagree[(kind.split(":")[0], ours["reward"], theirs)].append((row, ours))
    print(f"\n== {name}: {agree}/{len(cases)} agree ({100.0 * agree / len(cases):.1f}%)")
    if EVERY:
        for (kind, ours, theirs), examples in sorted(disagree.items()):
            for row, _ in examples:
                calls = row.get("response_output") or row.get("response")
                if isinstance(calls, list):
                    calls = [(c["name"], c["arguments"]) for c in calls if c.get("type") == "function_call"]
                reference = row.get("ground_truth") or row.get("expected_answers") or row.get("expected_action")
                print(f"  - {row['id']} [{kind}] cascade {ours} / peer {theirs}: {calls} vs {json.dumps(reference)}")
    for (kind, ours, theirs), examples in sorted(disagree.items()):
        row, result = examples[0]
        why = [e for c in result["details"].get("calls", []) for e in c["errors"]][:1]
        print(f"  {len(examples):4d} x {kind:14s} cascade {ours} / peer {theirs}  e.g. {row['id']}: "
              f"{json.dumps(row.get('response_output', row.get('response')))[:160]} {why}")
    return wall_rate, reported_rate


def timed(fn, items):
    start = time.perf_counter()
    scores = [fn(x) for x in items]
    return scores, len(items) / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cascade")
    parser.add_argument("gorilla")
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--every", action="store_true", help="list every disagreement, not only a count per class")
    parser.add_argument("--dump", help="write the BFCL rows here (for the release-build bench)")
    args = parser.parse_args()
    rows = corpus(random.Random(16), args.rows)
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        checker, commit = load_bfcl(args.gorilla, tmp)
        print(f"BFCL ast_checker from gorilla {commit}")
        cases = bundled_bfcl_rows() + rows["bfcl"]
        if args.dump:
            Path(args.dump).write_text("".join(json.dumps(row) + "\n" for row, _, _ in cases))
        scores, peer_rate = timed(lambda c: bfcl_score(checker, c[1]), cases)
        rates["bfcl"] = (len(cases), peer_rate, *compare("BFCL ast_checker (parallel, no order)", cases, scores, args.cascade))
    loop = asyncio.new_event_loop()
    for name, verify in gym_verifiers().items():
        cases = rows[name]
        scores, peer_rate = timed(lambda c: loop.run_until_complete(verify(c[1])), cases)
        rates[name] = (len(cases), peer_rate, *compare(f"NeMo Gym 0.7.0 {name}", cases, scores, args.cascade))
    print("\n== samples/s on one core (peer in-process; cascade score --jobs 1, dev build: wall incl. start-up / its own summary)")
    for name, (n, peer, wall, reported) in rates.items():
        print(f"  {name:12s} {n:5d} rows  peer {peer:10.0f}   cascade {wall:8.0f} / {reported or 0:8.0f}")


if __name__ == "__main__":
    main()
