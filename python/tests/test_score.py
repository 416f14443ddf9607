"""`cr.envs`, `cr.score`, `cr.Env`: the CLI's results, from Python."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

import cascade_rewards as cr
from conftest import bundled_samples, cascade_bin, cli_score, input_lines


def test_envs_are_the_ones_cascade_envs_lists():
    listed = subprocess.run([cascade_bin(), "envs"], capture_output=True, text=True, check=True).stdout
    cli_names = [line.split()[0] for line in listed.splitlines()[1:] if line.strip()]
    envs = cr.envs()
    assert list(envs) == cli_names
    assert {"math", "ifeval", "code", "swe"} <= set(envs)
    assert envs["math"]["kind"] == "environment"
    assert envs["math"]["origin"] == "cascade-envs"
    assert envs["math"]["description"]


@pytest.mark.parametrize("env,path", bundled_samples(), ids=[e for e, _ in bundled_samples()])
def test_every_bundled_sample_scores_to_the_cli_bytes(env, path):
    expected = cli_score(env, path)
    lines = input_lines(path)
    assert len(expected) == len(lines)
    # JSON lines, exactly as in the file: the same bytes as `cascade score`.
    assert cr.score_lines(env, lines, jobs=2, base_dir=path.parent) == expected
    # The same samples as dicts: the same bytes again, and the dicts are those lines.
    samples = [json.loads(line) for line in lines]
    environment = cr.Env(env, base_dir=path.parent)
    assert environment.score_lines(samples, jobs=2) == expected
    assert environment.score(samples) == [json.loads(line) for line in expected]


@pytest.mark.parametrize("env,path", bundled_samples(), ids=[e for e, _ in bundled_samples()])
def test_the_stored_scores_are_reproduced_byte_for_byte(env, path):
    """The README's CI recipe from Python: the stored sample.expected.jsonl, exactly."""
    stored = input_lines(path.with_name("sample.expected.jsonl"))
    assert cr.score_lines(env, input_lines(path), base_dir=path.parent) == stored


def test_config_is_the_clis_config():
    path = dict(bundled_samples())["ifeval"].parent / "sample.jsonl"
    expected = cli_score("ifeval", path, "fractional=true")
    assert cr.score_lines("ifeval", input_lines(path), config={"fractional": True}) == expected
    assert cr.Env("ifeval", fractional=True).score_lines(input_lines(path)) == expected


def test_an_env_is_reused_across_batches_and_jobs():
    path = dict(bundled_samples())["code"]
    lines = input_lines(path)
    env = cr.Env("code")
    first = env.score_lines(lines, jobs=2)
    assert env.score_lines(lines, jobs=2) == first
    assert env.score_lines(lines[::-1], jobs=1) == first[::-1]
    assert env.score_lines(lines) == first
    assert repr(env) == "cascade_rewards.Env('code')" and env.name == "code"


def test_bad_samples_get_reward_zero_and_the_reason_never_an_exception():
    class Opaque:
        pass

    samples = [
        '{"id": "broken"',  # not JSON
        {"id": "set", "answer": {1, 2}, "response": "1"},  # not JSON-compatible
        {"id": "nan", "answer": float("nan"), "response": "1"},
        {"id": "no-response", "answer": "1"},
        {"id": 7, "answer": "1", "response": "1"},  # the id must be a string
        {"id": "wrong-type", "answer": ["1"], "response": "1"},
        {"id": Opaque(), "answer": "1", "response": "1"},
        {1: "non-string key"},
        42,
        [1, 2],
        None,
        "[]",
    ]
    results = cr.score("math", samples)
    assert len(results) == len(samples)
    for sample, result in zip(samples, results):
        assert result["reward"] == 0.0, (sample, result)
        assert isinstance(result["details"]["error"], str) and result["details"]["error"], (sample, result)
    # The id of a dict sample survives when the id itself is JSON.
    assert [r["id"] for r in results[:6]] == [None, "set", "nan", "no-response", 7, "wrong-type"]
    assert "not valid JSON" in results[0]["details"]["error"]
    assert "field `answer`" in results[1]["details"]["error"] and "set" in results[1]["details"]["error"]
    assert "response" in results[3]["details"]["error"]
    assert "field `id`" in results[4]["details"]["error"]
    # A good sample next to them is unaffected.
    good = {"id": "ok", "answer": "\\frac{1}{2}", "response": "\\boxed{0.5}"}
    assert cr.score("math", samples + [good])[-1]["reward"] == 1.0


def test_unknown_envs_and_bad_config_raise_clear_errors():
    with pytest.raises(KeyError, match="unknown environment `nope`; known: .*math"):
        cr.Env("nope")
    with pytest.raises(KeyError, match="nope"):
        cr.score("nope", [])
    with pytest.raises(ValueError, match="environment `ifeval`.*no_such_key"):
        cr.Env("ifeval", no_such_key=1)
    with pytest.raises(ValueError, match="environment `ifeval`.*expected a boolean"):
        cr.score("ifeval", [], config={"fractional": "maybe"})
    with pytest.raises(ValueError, match="environment `math`"):
        cr.Env("math", instruction={1, 2})


def test_an_empty_batch_is_an_empty_list():
    assert cr.score("math", []) == []


def test_the_gil_is_released_while_scoring():
    """With a switch interval far longer than the test, the main thread can only run
    again while the scoring thread is inside `score` if `score` released the GIL; if it
    held it, the main thread would first run after the thread's call returned."""
    lines = input_lines(dict(bundled_samples())["code"]) * 3
    env = cr.Env("code")
    entered, done = threading.Event(), threading.Event()
    results = []

    def worker():
        entered.set()
        results.append(env.score_lines(lines, jobs=1))
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        entered.wait()
        ran_during_score = not done.is_set()
        thread.join()
    finally:
        sys.setswitchinterval(old)
    assert ran_during_score
    assert results == [env.score_lines(lines)]


def test_threads_score_concurrently_with_the_same_results():
    path = dict(bundled_samples())["math"]
    lines = input_lines(path)
    expected = cli_score("math", path)
    env = cr.Env("math")
    outputs = [None] * 8

    def worker(i):
        outputs[i] = env.score_lines(lines, jobs=2)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outputs == [expected] * 8


def test_plugins_in_cascade_plugins_score_as_the_cli_does():
    """A run-time plugin (CASCADE_PLUGINS) scores from Python to the CLI's bytes."""
    import os
    from pathlib import Path

    plugins = Path(__file__).resolve().parents[2] / "examples" / "plugins"
    samples = plugins / "samples.jsonl"
    env = dict(os.environ, CASCADE_PLUGINS=str(plugins))
    script = (
        "import json, sys, cascade_rewards as cr\n"
        "lines = open(sys.argv[1]).read().splitlines()\n"
        "print(cr.envs()['math_brevity']['kind'])\n"
        "print('\\n'.join(cr.score_lines('math_brevity', lines, jobs=2)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(samples)], capture_output=True, text=True, env=env, check=True
    ).stdout.splitlines()
    assert out[0] == "python plugin"
    cli = subprocess.run(
        [cascade_bin(), "score", "--plugins", str(plugins), "--env", "math_brevity", "--input", str(samples)],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert out[1:] == cli
