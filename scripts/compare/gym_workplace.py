"""cascade's `workplace` env vs NeMo Gym's workplace assistant `is_correct`, on rows
whose initial state is Gym's own CSVs (read from the installed package at run time).

Builds a corpus of reference calls drawn from Gym's data and model calls derived from
them (the same calls, with extra lookups, other case, reordered, wrong values, unknown
tools, bad arguments, ...), scores each with Gym's `is_correct` in-process and with
`cascade score --env workplace --config data_dir=<Gym's csv_data> --jobs 1` on one core,
and prints agreement, every disagreement, and samples/s of both.

    python3 gym_workplace.py CASCADE_BIN GYM_PACKAGE_DIR OUT_DIR [N]
"""

import contextlib
import io
import json
import os
import random
import subprocess
import sys
import time

csv = emails = events = tasks = crm = staff = None
rng = random.Random(0)


def load(package):
    """Reads Gym's CSVs (the reference calls' ids come from them)."""
    global csv, emails, events, tasks, crm, staff
    import pandas as pd

    csv = os.path.join(package, "csv_data")
    processed = os.path.join(csv, "processed")
    emails = pd.read_csv(os.path.join(processed, "emails.csv"), dtype=str)
    events = pd.read_csv(os.path.join(processed, "calendar_events.csv"), dtype=str)
    tasks = pd.read_csv(os.path.join(processed, "project_tasks.csv"), dtype=str)
    crm = pd.read_csv(os.path.join(processed, "customer_relationship_manager_data.csv"), dtype=str)
    staff = sorted(set(tasks["assigned_to_email"]))


def c(name, **args):
    return {"name": name, "arguments": json.dumps(args)}


def pick(df, col):
    return rng.choice(list(df[col]))


def reference():
    k = rng.randrange(12)
    if k == 0:
        return [c("email_reply_email", email_id=pick(emails, "email_id"), body="Thanks, noted.")]
    if k == 1:
        return [c("email_forward_email", email_id=pick(emails, "email_id"), recipient=rng.choice(staff))]
    if k == 2:
        return [c("email_send_email", recipient=rng.choice(staff), subject="Status", body="All good.")]
    if k == 3:
        return [c("calendar_update_event", event_id=pick(events, "event_id"), field="event_name", new_value="Planning sync")]
    if k == 4:
        return [c("calendar_create_event", event_name="Review", participant_email=rng.choice(staff), event_start="2023-12-05 10:00:00", duration="60")]
    if k == 5:
        return [c("calendar_delete_event", event_id=pick(events, "event_id"))]
    if k == 6:
        return [c("project_management_update_task", task_id=pick(tasks, "task_id"), field="board", new_value=rng.choice(["Back end", "Front end", "Design"]))]
    if k == 7:
        return [c("project_management_create_task", task_name="Write docs", assigned_to_email=rng.choice(staff), list_name="Backlog", due_date="2023-12-10", board="Design")]
    if k == 8:
        return [c("customer_relationship_manager_update_customer", customer_id=pick(crm, "customer_id"), field="status", new_value=rng.choice(["Won", "Lost", "Lead"])) for _ in range(rng.randrange(1, 4))]
    if k == 9:
        return [c("customer_relationship_manager_add_customer", customer_name="Ann Lee", assigned_to_email=rng.choice(staff), status="Lead")]
    if k == 10:
        return [c("customer_relationship_manager_delete_customer", customer_id=pick(crm, "customer_id")), c("email_delete_email", email_id=pick(emails, "email_id"))]
    return [c("analytics_create_plot", time_min="2023-11-01", time_max="2023-11-30", value_to_plot="total_visits", plot_type="bar")]


def upper(call):
    args = json.loads(call["arguments"])
    return {"name": call["name"], "arguments": json.dumps({k: v.upper() if isinstance(v, str) else v for k, v in args.items()})}


def wrong_value(call):
    args = json.loads(call["arguments"])
    key = next((k for k in ("new_value", "body", "event_name", "task_name", "customer_name", "subject", "time_max") if k in args), None)
    if key is None:
        key = next(iter(args))
    args[key] = args[key] + "x"
    return {"name": call["name"], "arguments": json.dumps(args)}


def variants(ref):
    lookup = c("email_search_emails", query="update")
    yield "same", ref
    yield "with_lookups", [lookup, c("calendar_search_events", query="sync")] + ref
    yield "upper_case", [upper(x) for x in ref]
    yield "reversed", ref[::-1]
    yield "wrong_value", ref[:-1] + [wrong_value(ref[-1])]
    yield "unknown_tool", [{"name": "crm_do_it", "arguments": "{}"}] + ref
    yield "duplicated", ref + ref[-1:]
    yield "nothing", []
    yield "extra_argument", [{"name": x["name"], "arguments": json.dumps({**json.loads(x["arguments"]), "cc": "a"})} for x in ref]
    yield "numbers_for_strings", [{"name": x["name"], "arguments": json.dumps({k: int(v) if isinstance(v, str) and v.isdigit() else v for k, v in json.loads(x["arguments"]).items()})} for x in ref]
    yield "bad_json", [{"name": x["name"], "arguments": x["arguments"][:-1]} for x in ref]
    yield "delete_then_send", [c("email_delete_email", email_id=pick(emails, "email_id")), c("email_send_email", recipient=staff[0], subject="s", body="b")]


def reference_rows(n_refs):
    rows = []
    for i in range(n_refs):
        ref = reference()
        for kind, pred in variants(ref):
            if kind == "delete_then_send":
                # Equivalent to the reference "send, then delete" (a Gym-only difference: row labels).
                ref = [pred[1], pred[0]]
            rows.append({"id": f"{i}-{kind}", "kind": kind, "ground_truth": ref, "predicted": pred})
    return rows


def items(calls):
    return [{"type": "function_call", "call_id": f"c{k}", "id": f"fc_{k}", "status": "completed", **p}
            for k, p in enumerate(calls)]


def corpus(package, n_refs, seeded):
    """(row, kind): Gym's published layout (id, responses_create_params, ground_truth,
    category, environment_name) with the model's calls as `response_output`; some
    answers carry a closing message after the calls, or are text only."""
    global rng
    load(package)
    rng = seeded
    out = []
    for r in reference_rows(n_refs):
        output = items(r["predicted"])
        if r["kind"] == "nothing" and rng.random() < 0.5:
            output = [{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}]
        row = {"id": r["id"], "responses_create_params": {"input": [{"role": "user", "content": "Do the task."}]},
               "ground_truth": r["ground_truth"], "category": "workbench", "environment_name": "workbench",
               "response_output": output, "response": ""}
        out.append((row, r["kind"]))
    return out


def main():
    from resources_servers.workplace_assistant.utils import is_correct

    cascade, package, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    n_refs = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    load(package)
    rows = reference_rows(n_refs)
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # Gym prints every failed call
        gym = [float(is_correct(r["predicted"], r["ground_truth"], None)) for r in rows]
    gym_rate = len(rows) / (time.perf_counter() - t)

    os.makedirs(out_dir, exist_ok=True)
    inp = os.path.join(out_dir, "workplace_gym_corpus.jsonl")
    with open(inp, "w") as f:
        for r in rows:
            f.write(json.dumps({"id": r["id"], "ground_truth": r["ground_truth"], "response": "", "response_output": items(r["predicted"])}) + "\n")
    outp = os.path.join(out_dir, "workplace_gym_scores.jsonl")
    t = time.perf_counter()
    subprocess.run(["taskset", "-c", "0", cascade, "score", "--env", "workplace", "--jobs", "1", "--config", f"data_dir={csv}", "--input", inp, "--output", outp], check=True, stderr=subprocess.DEVNULL)
    ours_rate = len(rows) / (time.perf_counter() - t)
    ours = [json.loads(line)["reward"] for line in open(outp)]

    agree = sum(a == b for a, b in zip(gym, ours))
    print(f"rows: {len(rows)}, agreement: {agree}/{len(rows)}")
    by_kind = {}
    for r, a, b in zip(rows, gym, ours):
        if a != b:
            by_kind.setdefault(r["kind"], []).append((r["id"], a, b))
    for kind, cases in sorted(by_kind.items()):
        print(f"disagree [{kind}] x{len(cases)}: e.g. {cases[0][0]} gym={cases[0][1]} cascade={cases[0][2]}")
    print(f"one core: gym is_correct {gym_rate:.1f} samples/s; cascade score (dev build, incl. start and CSV load) {ours_rate:.1f} samples/s")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(sys.argv[2])))
    main()
