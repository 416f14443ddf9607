"""Drives `cascade serve` with nemo-gym's own request and response models.

For each of math, ifeval and code: rows in the field names of Gym's resources servers
(math_with_judge: question / expected_answer; instruction_following: id, prompt,
instruction_id_list, kwargs; code_gen: verifier_metadata.unit_tests), wrapped in
`BaseVerifyRequest` with a `NeMoGymResponse`, posted to /{env}/verify; every reply
must validate as `BaseVerifyResponse`, echo the request, and carry the expected reward.
Then the same through the unprefixed routes of a server started with --env, as a Gym
config pointing at cascade would call them.
"""

import json
import re
import subprocess
import sys
import urllib.request

from nemo_gym.base_resources_server import (
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
)
from nemo_gym.config_types import AggregateMetrics
from nemo_gym.openai_utils import NeMoGymResponse, NeMoGymResponseCreateParamsNonStreaming

def responses_api(text):
    return NeMoGymResponse(
        id="resp_1",
        created_at=0.0,
        model="policy",
        object="response",
        output=[
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
    )


def verify_request(row, prompt, text):
    params = NeMoGymResponseCreateParamsNonStreaming(input=[{"role": "user", "content": prompt}])
    # Gym's servers subclass BaseVerifyRequest with their task fields; pydantic keeps
    # extra fields only on such subclasses, so add them to the dumped body as Gym does.
    base = BaseVerifyRequest(responses_create_params=params, response=responses_api(text))
    return {**base.model_dump(mode="json"), **row}


ROWS = {
    "math": [
        ({"question": "What is 1+1?", "expected_answer": "2"}, "So \\boxed{2}.", 1.0),
        ({"question": "What is 1+1?", "expected_answer": "2"}, "So \\boxed{3}.", 0.0),
        ({"question": "Half of 1?", "expected_answer": "\\frac{1}{2}"}, "It is $\\boxed{0.5}$.", 1.0),
    ],
    "ifeval": [
        (
            {"id": 1, "prompt": "Reply in lowercase.", "instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}], "grading_mode": "binary"},
            "the quick brown fox jumps over the lazy dog while the farmer watches from the old wooden porch.",
            1.0,
        ),
        (
            {"id": 2, "prompt": "Reply in lowercase.", "instruction_id_list": ["change_case:english_lowercase"], "kwargs": [{}], "grading_mode": "binary"},
            "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG WHILE THE FARMER WATCHES FROM THE PORCH.",
            0.0,
        ),
    ],
    "code": [
        (
            {"verifier_metadata": {"unit_tests": {"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"], "fn_name": None}}},
            "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
            1.0,
        ),
        (
            {"verifier_metadata": {"unit_tests": {"inputs": ["1 2\n"], "outputs": ["3\n"], "fn_name": None}}},
            "```python\nprint(0)\n```",
            0.0,
        ),
    ],
}


def start(*flags):
    server = subprocess.Popen([CASCADE, "serve", "--addr", "127.0.0.1:0", "--jobs", "2", *flags], stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    match = re.search(r"listening on (http://\S+)", line)
    if not match:
        server.kill()
        sys.exit(f"cascade serve did not start: {line}")
    return server, match.group(1)


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as reply:
        return json.loads(reply.read())


def check(url, env, row, text, reward):
    request = verify_request(row, "the prompt", text)
    reply = post(url, request)
    validated = BaseVerifyResponse.model_validate(reply)
    assert validated.reward == reward, (env, row, reply["reward"], reply["details"])
    for key, value in request.items():
        assert reply[key] == value, (env, key)
    assert isinstance(reply["details"], dict)
    return reply


def main():
    checked = 0
    server, base = start()
    try:
        for env, rows in ROWS.items():
            for row, text, reward in rows:
                check(f"{base}/{env}/verify", env, row, text, reward)
                checked += 1
            BaseSeedSessionResponse.model_validate(post(f"{base}/{env}/seed_session", {}))
        metrics = AggregateMetrics.model_validate(
            post(f"{base}/math/aggregate_metrics", {"verify_responses": [{"_ng_task_index": 0, "_ng_rollout_index": i, "reward": r} for i, r in enumerate([1.0, 0.0])]})
        )
        assert metrics.key_metrics == {"mean/reward": 0.5}, metrics
    finally:
        server.terminate()
        assert server.wait(timeout=60) == 0, "cascade serve did not exit 0 on SIGTERM"
    server, base = start("--env", "math")
    try:
        for row, text, reward in ROWS["math"]:
            check(f"{base}/verify", "math", row, text, reward)
            checked += 1
    finally:
        server.terminate()
        assert server.wait(timeout=60) == 0
    print(f"nemo-gym 0.7.0 models: {checked} /verify replies validated as BaseVerifyResponse, rewards as expected")


if __name__ == "__main__":
    CASCADE = sys.argv[1]
    main()
