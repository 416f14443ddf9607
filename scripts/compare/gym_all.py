"""cascade beside NeMo Gym 0.7.0's own verifiers, in-process, on the same rows.

For each subset, rows in Gym's published layout and many responses (right, wrong,
edge, adversarial, blank, and reasoning-prefixed `<think>…</think>` copies) are scored
twice: by the Gym resources server's own verify code, called in this process (no
server, no judge), and by `cascade score --env ENV` on the same rows. Prints agreement
per subset and every difference (grouped by the response's kind, each row listed, each
marked with the documented reason it falls under or NOT DOCUMENTED), and writes a JSON
summary to RESULTS_DIR/summary.json (default runs/gym) and the differences to
RESULTS_DIR/<subset>.differences.jsonl.

Subsets (Gym server -> cascade env):
  instruction_following -> ifeval      (verifiable_instructions, IF-RL's registry)
  ifbench               -> ifeval      (AllenAI IFBench at Gym's pinned commit)
  mcqa                  -> mcqa
  structured_outputs    -> structured_output
  workplace_assistant   -> workplace   (Gym's CSVs as the initial state)
  xlam_fc               -> tool_call
  single_step           -> tool_call   (single_step_tool_use_with_argument_comparison)
  math_with_judge       -> math        (the symbolic part: should_use_judge false)

What Gym is given is what its deployment sees: the text goes through Gym's own
ResponsesConverter (a `<think>…</think>` block becomes a reasoning item, the rest the
message, line breaks kept; an unclosed `<think>` stays in the message text), and
function calls are `function_call` items. cascade is given the raw text.

    python gym_all.py CASCADE_BIN --vi VERIFIABLE_INSTRUCTIONS [--ifbench IFBENCH_DIR]
                      [--rows N] [--only SUBSET,...] [--results DIR]

(scripts/compare/gym_all.sh installs the venv and runs it.)
"""

import argparse
import asyncio
import contextlib
import io
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import nemo_gym  # noqa: E402
from nemo_gym.openai_utils import NeMoGymResponse  # noqa: E402
from nemo_gym.responses_converter import ResponsesConverter  # noqa: E402

CONVERTER = ResponsesConverter(return_token_id_information=False)

GYM_VERSION = getattr(nemo_gym, "__version__", None)
if GYM_VERSION is None:
    from importlib.metadata import version

    GYM_VERSION = version("nemo-gym")
GYM_PACKAGE = os.path.join(os.path.dirname(os.path.dirname(nemo_gym.__file__)), "resources_servers")


# ---- responses ---------------------------------------------------------------------


def message(text):
    return {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def reasoning(text):
    return {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": text}]}


def output_items(row):
    """The Responses `output` Gym's deployment holds for this row's response: its own
    ResponsesConverter turns the assistant text into items (each `<think>…</think>`
    block a reasoning item, the rest as it is, an unclosed `<think>` left in the
    text), as Gym's vllm_model server does."""
    if "response_output" in row:
        return row["response_output"]
    text = row.get("response") or ""
    return [item.model_dump() for item in CONVERTER.postprocess_assistant_message_dict({"role": "assistant", "content": text})]


def message_text(row):
    """The output text Gym's text verifiers join (`output_text` of `message` items)."""
    return "".join(c.get("text", "") for i in output_items(row) if i.get("type") == "message"
                   for c in i["content"] if c.get("type") == "output_text")


def gym_response(row):
    return NeMoGymResponse(id="resp_1", created_at=0.0, model="policy", object="response", output=output_items(row),
                           parallel_tool_calls=True, tool_choice="auto", tools=[])


def gym_body(row, drop=("response", "response_output")):
    body = {k: v for k, v in row.items() if k not in drop}
    body.setdefault("responses_create_params", {"input": [{"role": "user", "content": "p"}]})
    body["response"] = gym_response(row).model_dump()
    return body


DRAFT = '<think>Draft: maybe \\boxed{Q}. Answer: Q. {"draft": true} no, let me check again.</think>\n'


def with_reasoning(rows, rng, share=0.15):
    """Reasoning-prefixed copies of a share of the text rows: a closed `<think>` whose
    draft holds an adversarial answer, and a response cut off while thinking."""
    out = []
    for row, kind in rows:
        if "response_output" in row or not isinstance(row.get("response"), str) or rng.random() >= share:
            continue
        if "<think>" in row["response"]:
            continue
        closed = dict(row, response=DRAFT + row["response"])
        out.append((closed, "think:" + kind))
        if rng.random() < 0.3:
            out.append((dict(row, response="<think>" + row["response"]), "unclosed-think:" + kind))
    return out


# ---- cascade -----------------------------------------------------------------------


def cascade_score(binary, env, rows, config=()):
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        cmd = [binary, "score", "--env", env, "--input", src, "--output", dst]
        for c in config:
            cmd += ["--config", c]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode not in (0, 1):  # 1: some rows were error rows, still scored
            sys.exit(f"cascade score --env {env} failed: {run.stderr[-2000:]}")
        out = [json.loads(line) for line in open(dst, encoding="utf-8")]
    by_id = {json.dumps(r.get("id")): r for r in out}
    return [by_id.get(json.dumps(row["id"]), {"reward": None, "details": {"error": "no result line"}}) for row in rows]


# ---- subsets -----------------------------------------------------------------------

SUBSETS = {}


def subset(name, env, config=()):
    def register(cls):
        cls.name, cls.env, cls.config = name, env, tuple(config)
        SUBSETS[name] = cls
        return cls

    return register


def run_async(coros):
    loop = asyncio.new_event_loop()
    try:
        return [loop.run_until_complete(c) for c in coros]
    finally:
        loop.close()


@subset("instruction_following", "ifeval")
class InstructionFollowing:
    """IF-RL: Gym's `instruction_following` rows (`verifier_metadata`), every id of the
    verifiable_instructions registry but the three that call a language detector
    (langdetect is not deterministic), from ifrl_reference's generator; rows whose
    arguments the reference would redraw at random are left out."""

    def __init__(self, args):
        sys.path.insert(0, args.vi)
        import resources_servers.instruction_following.app as app
        import ifrl_reference

        self.app, self.gen, self.vi = app, ifrl_reference, args.vi
        self.server = app.InstructionFollowingResourcesServer.model_construct(config=None)

    def rows(self, n, rng):
        out = []
        for row in self.gen.rows(n, rng.randrange(1 << 30), self.vi):
            vm = row["verifier_metadata"]
            if any(self.gen.redrawn(kw) for kw in vm["kwargs"]):
                continue
            kind = vm["instruction_id_list"][0]
            if not row["response"].strip():
                kind = "blank"
            out.append((row, kind))
        return out

    def gym(self, rows):
        async def one(row):
            request = self.app.InstructionFollowingVerifyRequest.model_validate(gym_body(row))
            with contextlib.redirect_stdout(io.StringIO()) as printed:  # Gym prints a check that raised
                reply = await self.server.verify(request)
            raised = printed.getvalue().strip()
            return reply.reward, (f"gym check raised: {raised[:120]}" if raised else reply.follow_instruction_list)

        return run_async(one(r) for r in rows)


@subset("ifbench", "ifeval")
class Ifbench:
    """Gym's `ifbench` rows (top-level fields, `grading_mode`): IFBench's test rows with
    its sample responses and generated ones. The checks are AllenAI's, at the commit
    Gym pins (c6767a19; pass that checkout with --ifbench, its `download(...)` line
    commented out as Gym's setup_ifbench does); they import spaCy, emoji, syllapy,
    and some read NLTK data (stopwords, a POS tagger) that cannot be fetched here:
    a check that raised is reported as such (Gym counts it as not followed)."""

    def __init__(self, args):
        if not args.ifbench:
            raise RuntimeError("no --ifbench checkout given")
        self.checkout = args.ifbench
        sys.path.insert(0, args.ifbench)
        with contextlib.redirect_stderr(io.StringIO()):  # nltk's failed downloads (offline)
            import instructions_registry
        import resources_servers.ifbench.app as app

        self.app = app
        config = app.IFBenchResourcesServerConfig.model_construct(num_processes=1)
        self.server = app.IFBenchResourcesServer.model_construct(config=config)
        self.server._instructions_registry = instructions_registry
        self.server._semaphore = asyncio.Semaphore(1)
        # Gym logs a check that raised and counts it as not followed; count them, so a
        # check that fails for want of NLTK data here is told apart from a verdict.
        self.raised = []
        handler = logging.Handler()
        handler.emit = lambda record: self.raised.append(record.getMessage())
        log = logging.getLogger(app.__name__)
        log.addHandler(handler)
        log.propagate = False
        logging.disable(logging.NOTSET)  # ifrl_reference.load turns logging off

    def rows(self, n, rng):
        """IFBench's 294 test rows (57 of its 58 ids) in Gym's ifbench layout, each
        with IFBench's own sample model response, and generated ones."""
        from ifeval_fuzz import text as fuzz_text

        data = os.path.join(self.checkout, "data")
        tests = [json.loads(line) for line in open(os.path.join(data, "IFBench_test.jsonl"), encoding="utf-8")]
        answers = {}
        for line in open(os.path.join(data, "sample_output.jsonl"), encoding="utf-8"):
            r = json.loads(line)
            answers[r["prompt"]] = r["response"]
        out = []
        for i in range(n):
            t = tests[i % len(tests)]
            base = {"instruction_id_list": t["instruction_id_list"], "prompt": t["prompt"], "kwargs": t["kwargs"],
                    "grading_mode": rng.choice(["binary", "fraction"]),
                    "responses_create_params": {"input": [{"role": "user", "content": t["prompt"]}]}}
            kind = "sample-response" if i < len(tests) else rng.choice(["fuzz", "prompt-echo", "blank", "short", "sample-cut"])
            sample = answers.get(t["prompt"], "")
            text = {"sample-response": lambda: sample, "fuzz": lambda: fuzz_text(rng), "prompt-echo": lambda: t["prompt"],
                    "blank": lambda: rng.choice(["", " ", "\n"]), "short": lambda: "Yes.",
                    "sample-cut": lambda: sample[: rng.randrange(1, max(2, len(sample)))]}[kind]()
            out.append((dict(base, response=text), kind + ":" + t["instruction_id_list"][0]))
        return out

    def gym(self, rows):
        async def one(row):
            request = self.app.IFBenchVerifyRequest.model_validate(gym_body(row))
            self.raised.clear()
            with contextlib.redirect_stderr(io.StringIO()):
                reply = await self.server.verify(request)
            note = f"gym check raised: {self.raised[0]}" if self.raised else reply.follow_instruction_list
            return reply.reward, note

        return run_async(one(r) for r in rows)


@subset("mcqa", "mcqa")
class Mcqa:
    """The bundled sample and gym_mcqa's corpus of answer forms x Gym's three grading
    modes, with output_regex rows."""

    def __init__(self, args):
        import gym_mcqa

        self.m = gym_mcqa
        self.server = gym_mcqa.gym_server()

    def rows(self, n, rng):
        bundled = [json.loads(line) for line in open(os.path.join(ROOT, "datasets", "mcqa", "sample.jsonl"))]
        rows = []
        for row in bundled + self.m.corpus(seeds=max(1, n // 5000), rng=rng):
            rows.append((row, self.m.form_of(row["id"])))
        return rows

    def gym(self, rows):
        return [(r, letter or note) for r, letter, note in
                self.m.gym_verify(self.server, self.m.gym_requests(rows, response=gym_response))]


@subset("structured_outputs", "structured_output")
class StructuredOutputs:
    """The bundled sample, gym_structured_output's edge rows and seeded corpus (JSON,
    YAML, TOML, XML, CSV and tool-call payloads, fenced, prose-wrapped, cut off) in
    Gym's layout (rows that turn `strict` off, a cascade-only flag, are left out)."""

    def __init__(self, args):
        import gym_structured_output as m

        self.m = m
        self.server = m.gym_server()

    def rows(self, n, rng):
        sample = self.m.read_jsonl(os.path.join(ROOT, "datasets", "structured_output", "sample.jsonl"))
        rows = sample + self.m.edge_rows() + self.m.corpus(n, seed=rng.randrange(1 << 30))
        return [(r, self.m.kind_of(r)) for r in rows if r.get("strict", True) is not False]

    def gym(self, rows):
        out = []
        for row in rows:
            if not isinstance(row.get("schema_str"), str):
                out.append((0.0, "request refused: schema_str must be a string"))
                continue
            if row.get("response_mode") == "tool_call" or not isinstance(row.get("response"), str):
                out.append(self.m.gym_verify(self.server, row))
                continue
            try:
                schema_type = self.m.SchemaType(row.get("schema_type") or "json")
            except ValueError:
                out.append((0.0, "request_rejected"))
                continue
            reward, error_type, _ = self.server.evaluate_structured_output_response(schema_type, row["schema_str"], message_text(row))
            out.append((reward, error_type))
        return out


@subset("workplace_assistant", "workplace")
class Workplace:
    """Reference calls drawn from Gym's own CSVs and model calls derived from them
    (same, extra lookups, case, order, wrong values, unknown tools, bad JSON, none,
    text only); graded by Gym's `is_correct` on the function_call items its verify
    collects."""

    def __init__(self, args):
        import gym_workplace as m

        self.m = m
        self.package = os.path.join(GYM_PACKAGE, "workplace_assistant")
        self.config = (f"data_dir={os.path.join(self.package, 'csv_data')}",)

    def rows(self, n, rng):
        return self.m.corpus(self.package, max(1, min(n, 1200) // 12), rng)

    def gym(self, rows):
        from resources_servers.workplace_assistant.utils import is_correct

        out = []
        for row in rows:
            calls = [{"name": i["name"], "arguments": i["arguments"]} for i in output_items(row) if i.get("type") == "function_call"]
            with contextlib.redirect_stdout(io.StringIO()):
                out.append((float(is_correct(calls, row["ground_truth"], None)), None))
        return out


class _ToolCall:
    """gym_tool_call's corpus of mutated calls, as `function_call` items, plus answers
    in text only, blank answers and reasoning items before the calls."""

    key = None

    def __init__(self, args):
        import gym_tool_call as m

        self.m = m
        self.verify = m.gym_verifiers()[self.key]

    def rows(self, n, rng):
        rows = [(row, kind) for row, _, kind in self.m.corpus(rng, n)[self.key]]
        extra = []
        for row, kind in rows[: max(1, n // 10)]:
            extra.append((dict(row, response_output=[message("I would call the tool now.")], response="I would call the tool now."), "text-only"))
            extra.append((dict(row, response_output=[message("")], response=""), "blank"))
            extra.append((dict(row, response_output=[reasoning("call it with other args")] + row["response_output"]), "reasoning-item:" + kind))
        return rows + extra

    def gym(self, rows):
        return [(r, None) for r in run_async(self.verify(row) for row in rows)]


@subset("xlam_fc", "tool_call")
class XlamFc(_ToolCall):
    key = "xlam_fc"


@subset("single_step", "tool_call")
class SingleStep(_ToolCall):
    key = "single_step"


@subset("math_with_judge", "math")
class MathWithJudge:
    """math_with_judge's symbolic part (`should_use_judge: false`): its box rule and
    math-verify through its own `_run_math_verify`, in-process (Gym forks a child per
    answer only to kill a wedged SymPy)."""

    def __init__(self, args):
        import resources_servers.math_with_judge.app as app
        from math_verify.metric import math_metric
        from math_verify.parser import ExprExtractionConfig, LatexExtractionConfig

        logging.getLogger("math_verify").setLevel(logging.CRITICAL)
        self.app = app
        self.metric = math_metric(gold_extraction_target=(LatexExtractionConfig(),),
                                  pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig()))

    def rows(self, n, rng):
        import gym_math

        return gym_math.corpus(n, rng)

    def gym(self, rows):
        out = []
        for row in rows:
            text = message_text(row)
            boxed = self.app._extract_last_boxed_answer(text)
            if boxed is None or not boxed.strip():
                out.append((0.0, "no box"))
                continue
            reward, extracted = self.app._run_math_verify(self.metric, row["expected_answer"], text)
            out.append((reward, str(extracted)))
        return out


# ---- documented differences ----------------------------------------------------------

# Per subset, the response kinds where cascade differs from Gym by a documented rule
# (see the domain README named), with the reason. A difference of such a kind is
# "documented"; any other is a finding. Kinds are the generators' names; a
# reasoning-prefixed copy of a kind ("think:KIND") inherits KIND's entry.
MCQA = "datasets/mcqa/README.md, 'Where cascade and NeMo Gym differ'"
TOOLS = "datasets/tool_call/README.md"
STRUCT = "datasets/structured_output/README.md"
MATH = "datasets/math/README.md"
DOCUMENTED = {
    "mcqa": {
        # Since 2026-12-05 mcqa reads as Gym 0.7.0 does; only the bundled sample's
        # cascade-only rows (map options, duplicate letters, a row-level md mode) and
        # unclosed thinking (every subset's rule) differ.
        "bundled": f"the bundled sample's rows, one per documented rule ({MCQA})",
    },
    "structured_outputs": {
        "fenced": f"cascade reads the last fenced block; Gym parses the whole text ({STRUCT})",
        "prose-fenced": f"cascade reads the last fenced block; Gym parses the whole text ({STRUCT})",
        "schema-object": f"schema_str given as a JSON object: Gym's request model refuses it, cascade reads it ({STRUCT})",
        "edge_yaml_1_1_boolean": f"YAML 1.2 booleans ({STRUCT})",
        "edge_yaml_date_is_text": f"dates are text ({STRUCT})",
        "edge_toml_date_is_text": f"dates are text ({STRUCT})",
        "edge_anyof_branch_strict": f"strictness inside anyOf branches ({STRUCT})",
        "edge_yaml_duplicate_key": f"a duplicate key is refused ({STRUCT})",
        "edge_property_named_properties": f"a property named `properties` ({STRUCT})",
    },
    "workplace_assistant": {
        "delete_then_send": "pandas' DataFrame.equals compares index labels; cascade compares contents "
                            "(datasets/workplace/README.md)",
    },
    "xlam_fc": {
        "unknown_param": f"an argument the tool does not declare ({TOOLS})",
        "add_optional": f"an optional argument with another value ({TOOLS})",
        "add_default": f"an optional argument given: BFCL's rules ({TOOLS})",
        "value": f"strings standardized as BFCL; 86.0 is no integer ({TOOLS})",
    },
    "single_step": {
        "duplicate": f"Gym checks only the first call ({TOOLS})",
        "value": f"strings standardized, no bag-of-words similarity, ints widened ({TOOLS})",
    },
    "math_with_judge": {
        "two-boxes-first": f"math-verify reads every box as one set; cascade reads the last, refusing a hedge ({MATH})",
        "two-boxes-last": f"math-verify reads every box as one set; cascade reads the last ({MATH})",
        "boxed-text": f"math-verify's reading of \\text{{}} in a box ({MATH})",
    },
}
UNCLOSED = ("a response cut off while thinking scores 0 in cascade (verifiers/src/final_answer.rs); "
            "Gym's converter leaves the unclosed <think> in the message and grades it")
NEWLINES = ("cascade grades the text after </think> less its leading line breaks (the chat templates' "
            "lstrip); Gym keeps them, and agrees once given the same text")


def base_kind(kind):
    for prefix in ("think:", "unclosed-think:", "reasoning-item:", "bundled:"):
        if kind.startswith(prefix):
            return "bundled" if prefix == "bundled:" else base_kind(kind[len(prefix):])
    for sep in (":",):
        if sep in kind and kind.split(sep)[0] in ("fenced", "prose-fenced", "bare", "think", "tool_call"):
            return kind.split(sep)[0]
    return kind.split(":")[0] if kind.split(":")[-1] in ("right", "wrong") else kind


def explain(sub, row, kind, gym_reward, ours):
    """The documented reason for a difference, or None (a finding)."""
    if "unclosed-think" in kind.split(":") and ours["reward"] == 0:
        return UNCLOSED
    reason = DOCUMENTED.get(sub.name, {}).get(base_kind(kind))
    if reason:
        return reason
    if isinstance(row.get("response"), str) and "</think>" in row["response"]:
        aligned = dict(row, response=row["response"].rsplit("</think>", 1)[1].lstrip("\r\n"))
        if abs(sub.gym([aligned])[0][0] - ours["reward"]) < 1e-9:
            return NEWLINES
    return None


# ---- the run -----------------------------------------------------------------------


def compare(sub, binary, n, seed, results):
    rng = random.Random(f"{seed}:{sub.name}")
    rows = sub.rows(n, rng)
    rows += with_reasoning(rows, rng)
    for i, (row, _) in enumerate(rows):
        row["id"] = i  # Gym's layout: integer ids
    plain = [r for r, _ in rows]
    t = time.perf_counter()
    theirs = sub.gym(plain)
    gym_s = time.perf_counter() - t
    t = time.perf_counter()
    ours = cascade_score(binary, sub.env, plain, getattr(sub, "config", ()))
    cascade_s = time.perf_counter() - t
    diffs = []
    for (row, kind), (g_reward, g_note), c in zip(rows, theirs, ours):
        if c["reward"] is None or abs(c["reward"] - g_reward) > 1e-9:
            d = c.get("details", {})
            diffs.append({"id": row["id"], "kind": kind, "gym": g_reward, "cascade": c["reward"],
                          "documented": explain(sub, row, kind, g_reward, c) if c["reward"] is not None else None,
                          "gym_note": g_note if isinstance(g_note, (str, list, type(None))) else str(g_note),
                          "cascade_details": {k: d[k] for k in list(d)[:8]},
                          "row": {k: v for k, v in row.items() if k != "responses_create_params"}})
    agree = len(rows) - len(diffs)
    pct = 100.0 * agree / len(rows)
    documented = sum(1 for d in diffs if d["documented"])
    findings = len(diffs) - documented
    print(f"\n== {sub.name} (Gym {GYM_VERSION} vs cascade --env {sub.env}): {agree}/{len(rows)} agree ({pct:.2f}%); "
          f"differences: {documented} documented, {findings} not  [gym {gym_s:.1f}s, cascade {cascade_s:.1f}s]")
    print(f"   gym rewards {dict(Counter(round(g, 3) for g, _ in theirs).most_common(6))}; "
          f"cascade {dict(Counter(round(c['reward'], 3) if c['reward'] is not None else None for c in ours).most_common(6))}")
    groups = defaultdict(list)
    for d in diffs:
        groups[(d["kind"], d["gym"], d["cascade"])].append(d)
    for (kind, g, c), ds in sorted(groups.items(), key=lambda kv: (bool(kv[1][0]["documented"]), -len(kv[1]))):
        print(f"   {len(ds):5d} x {kind}: gym {g} / cascade {c} -- {ds[0]['documented'] or 'NOT DOCUMENTED'}")
        for d in ds:
            resp = d["row"].get("response_output") if "response_output" in d["row"] else d["row"].get("response")
            why = d["cascade_details"].get("reason") or d["cascade_details"].get("error") or d["cascade_details"].get("error_type")
            print(f"         id {d['id']} ({d['kind']}): gym note {json.dumps(d['gym_note'])[:80]}; cascade {json.dumps(why)[:80]};"
                  f" response {json.dumps(resp, ensure_ascii=False)[:140]}")
    with open(os.path.join(results, f"{sub.name}.differences.jsonl"), "w", encoding="utf-8") as f:
        for d in diffs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    kinds = Counter(k.split(":")[0] for _, k in rows)
    return {"rows": len(rows), "agree": agree, "agreement": round(pct, 3), "differences": len(diffs),
            "documented_differences": documented, "undocumented_differences": findings,
            "agreement_outside_documented": round(100.0 * agree / max(1, len(rows) - documented), 3),
            "cascade_env": sub.env, "gym_version": GYM_VERSION, "kinds": len(kinds),
            "difference_groups": {f"{k} gym={g} cascade={c}": len(v) for (k, g, c), v in groups.items()}}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cascade")
    p.add_argument("--vi", required=True, help="checkout of abukharin-nv/verifiable-instructions")
    p.add_argument("--ifbench", help="checkout of allenai/IFBench at Gym's pinned commit")
    p.add_argument("--rows", type=int, default=3000, help="generated rows per subset (about)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--only", help="comma-separated subsets")
    p.add_argument("--results", default=os.path.join(ROOT, "runs", "gym"), help="where summary.json goes (default runs/gym)")
    args = p.parse_args()
    os.makedirs(args.results, exist_ok=True)
    names = args.only.split(",") if args.only else list(SUBSETS)
    summary = {"gym_version": GYM_VERSION, "rows_asked": args.rows, "seed": args.seed, "subsets": {}}
    for name in names:
        try:
            sub = SUBSETS[name](args)
        except Exception as e:  # a missing optional peer (IFBench, spaCy): say so, go on
            print(f"\n== {name}: not run ({type(e).__name__}: {e})")
            summary["subsets"][name] = {"not_run": f"{type(e).__name__}: {e}"}
            continue
        summary["subsets"][name] = compare(sub, args.cascade, args.rows, args.seed, args.results)
    print("\n== summary")
    print(f"   {'subset':22} {'rows':>6} {'agree':>6} {'agreement':>10} {'documented':>11} {'not':>5} {'outside documented':>19}")
    for name, s in summary["subsets"].items():
        if "not_run" in s:
            print(f"   {name:22} not run: {s['not_run'][:80]}")
        else:
            print(f"   {name:22} {s['rows']:6d} {s['agree']:6d} {s['agreement']:9.2f}% {s['documented_differences']:11d}"
                  f" {s['undocumented_differences']:5d} {s['agreement_outside_documented']:18.2f}%")
    with open(os.path.join(args.results, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(f"   summary: {os.path.join(args.results, 'summary.json')}")


if __name__ == "__main__":
    main()
