"""Writes sample.jsonl: workplace rows WITH model responses, one per scoring rule.

The rows come from `cascade gen-workplace` (whose reference calls are valid on the
workplace cascade generates from seed 0); this script adds the responses. Tools are
left out of the rows to keep the file small (the environment does not need them).

    cascade gen-workplace --seed 1 --count 60 --output /tmp/wp.jsonl
    python3 datasets/workplace/make_sample.py /tmp/wp.jsonl > datasets/workplace/sample.jsonl
"""

import copy
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1])]


def first(kind):
    return next(r for r in rows if r["category"] == "workplace_" + kind)


def calls(row):
    return [(c["name"], json.loads(c["arguments"])) for c in row["ground_truth"]]


def fc(name, args):
    return {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": "call_1"}


def hermes(name, args):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"


out = []


def add(id_, base, **fields):
    row = copy.deepcopy(base)
    row["responses_create_params"].pop("tools", None)
    row["id"] = id_
    for k, v in fields.items():
        if v is None:
            row.pop(k, None)
        else:
            row[k] = v
    out.append(row)


email, move, delete, sched = first("send_email"), first("move_task"), first("delete_task"), first("schedule")
status, owner, deal = first("customer_status"), first("customer_owner"), first("close_deal")
(en, ea), = calls(email)
(mn, ma), = calls(move)
(dn, da), = calls(delete)
(sn, sa), = calls(sched)
(cn, ca), = calls(status)
(on, oa), = calls(owner)
(d1n, d1a), (d2n, d2a) = calls(deal)

add("correct-response-output", email, response_output=[fc(en, ea)])
add("text-calls-beside-output-without-calls", email, response=hermes(en, ea), response_output=[{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": hermes(en, ea)}]}])
add("correct-hermes-text", move, response="I'll move it.\n" + hermes(mn, ma))
add("correct-after-lookups", status, response="\n".join([
    hermes("customer_relationship_manager_search_customers", {"customer_name": "a"}),
    hermes("analytics_total_visits_count", {}),
    hermes(cn, ca)]))
add("case-insensitive-values", email, response=hermes(en, {**ea, "recipient": ea["recipient"].upper(), "subject": ea["subject"].upper()}))
other_board = "Design" if ma["new_value"] != "Design" else "Back end"
other_list = "Completed" if ma["new_value"] != "Completed" else "Backlog"
wrong = other_board if ma["field"] == "board" else other_list
add("wrong-argument-value", move, response=hermes(mn, {**ma, "new_value": wrong}))
add("tool-error-then-fix", status, response=hermes(cn, {**ca, "new_value": ca["new_value"].lower()}) + "\n" + hermes(cn, ca))
add("lowercase-status-refused", status, response=hermes(cn, {**ca, "new_value": ca["new_value"].lower()}))
add("unknown-tool-only", delete, response=hermes("project_management_remove_task", da))
add("unknown-tool-then-correct", delete, response=hermes("project_management_remove_task", da) + hermes(dn, da))
add("no-calls", sched, response="Sure, I have scheduled it for you.")
add("two-steps-reordered", deal, response_output=[fc(d2n, d2a), fc(d1n, d1a)])
add("two-steps-one-missing", deal, response_output=[fc(d1n, d1a)])
add("wrong-argument-type", delete, response=hermes(dn, {"task_id": int(da["task_id"])}))
add("bad-json-arguments", sched, response_output=[{"type": "function_call", "name": sn, "arguments": "{\"event_name\": ", "call_id": "c"}])
add("call-only-inside-think", email, response="<think>" + hermes(en, ea) + "</think>I cannot send emails.")
add("extra-delete", delete, response=hermes(dn, da) + hermes("project_management_delete_task", {"task_id": "00000999"}) + hermes("email_delete_email", {"email_id": "00000001"}))
add("schedule-correct", sched, response=hermes(sn, sa))
add("schedule-wrong-time", sched, response=hermes(sn, {**sa, "event_start": sa["event_start"].replace(":00:00", ":30:00")}))
add("owner-correct-upper-email", owner, response=hermes(on, {**oa, "new_value": oa["new_value"].upper()}))
transcript = [
    {"role": "system", "content": status["responses_create_params"]["input"][0]["content"]},
    {"role": "user", "content": status["responses_create_params"]["input"][1]["content"]},
    {"role": "assistant", "content": hermes("customer_relationship_manager_search_customers", {"customer_name": "zzz"})},
    {"role": "tool", "content": json.dumps({"output": "No customers found."})},
    {"role": "assistant", "content": hermes(cn, ca)},
    {"role": "tool", "content": json.dumps({"output": "Customer updated successfully."})},
    {"role": "assistant", "content": "Done."},
]
add("recorded-transcript", status, transcript=transcript)
add("chat-tool-calls", move, messages=[{"role": "assistant", "content": None, "tool_calls": [
    {"id": "c1", "type": "function", "function": {"name": mn, "arguments": json.dumps(ma)}}]}])
add("gym-rollout-response", email, response={"output": [fc(en, ea), {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sent."}]}]})
add("ground-truth-as-json-string", delete, ground_truth=json.dumps(delete["ground_truth"]), response=hermes(dn, da))
add("too-many-calls", email, response=hermes("analytics_total_visits_count", {}) * 65)
add("malformed-no-ground-truth", email, ground_truth=None, response=hermes(en, ea))
add("malformed-ground-truth-type", email, ground_truth={"name": en}, response=hermes(en, ea))
add("malformed-ground-truth-no-name", email, ground_truth=[{"arguments": "{}"}], response=hermes(en, ea))
add("malformed-no-response", email)
add("malformed-response-output-type", email, response_output="email_send_email")

for row in out:
    print(json.dumps(row))
