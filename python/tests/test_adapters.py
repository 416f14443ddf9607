"""The TRL and verl adapters called the way those libraries call them (their real
trainers are exercised in test_trl_grpo.py and test_verl.py)."""

from __future__ import annotations

import inspect
import json

import pytest

import cascade_rewards as cr

GOLD = ["\\frac{1}{2}", "7", "x^2+1"]
RESPONSES = ["so \\boxed{0.5}", "the answer is \\boxed{8}", "\\boxed{1+x^2}"]


def test_trl_reward_func_has_grpo_trainers_signature_and_name():
    f = cr.trl.reward_func("math")
    assert f.__name__ == "cascade_math"
    params = inspect.signature(f).parameters
    assert list(params)[:3] == ["prompts", "completions", "completion_ids"]
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert cr.trl.reward_func("math", name="gold").__name__ == "gold"


def test_trl_reward_func_scores_like_cascade_with_columns_as_kwargs():
    logged = {}
    f = cr.trl.reward_func("math")
    # What GRPOTrainer._calculate_rewards passes: one list per dataset column, plus
    # trainer_state, log_extra and log_metric.
    rewards = f(
        prompts=["What is 1/2?", "3+4?", "Expand."],
        completions=RESPONSES,
        completion_ids=[[1, 2], [3], [4]],
        answer=GOLD,
        trainer_state=object(),
        log_extra=lambda column, values: None,
        log_metric=lambda name, value: logged.__setitem__(name, value),
    )
    samples = [{"id": str(i), "prompt": p, "answer": g, "response": r}
               for i, (p, g, r) in enumerate(zip(["What is 1/2?", "3+4?", "Expand."], GOLD, RESPONSES))]
    assert rewards == [r["reward"] for r in cr.score("math", samples)] == [1.0, 0.0, 1.0]
    assert all(isinstance(r, float) for r in rewards)
    assert logged == {"cascade/cascade_math/errors": 0.0}


def test_trl_conversational_completions_and_renamed_columns():
    f = cr.trl.reward_func("math", columns={"solution": "answer"})
    completions = [[{"role": "assistant", "content": r}] for r in RESPONSES]
    completions[2] = [{"role": "assistant", "content": [{"type": "text", "text": RESPONSES[2]}]}]
    prompts = [[{"role": "user", "content": "q"}]] * 3
    assert f(prompts=prompts, completions=completions, completion_ids=None, solution=GOLD) == [1.0, 0.0, 1.0]
    assert f.last_results[0]["details"]["extracted"] == "0.5"


def test_trl_a_malformed_answer_is_reward_zero_not_an_exception():
    logged = {}
    f = cr.trl.reward_func("math")
    rewards = f(prompts=["a", "b"], completions=["\\boxed{1}", "\\boxed{1}"], completion_ids=None,
                answer=["1", None], log_metric=lambda name, value: logged.__setitem__(name, value))
    assert rewards == [1.0, 0.0]
    assert "answer" in f.last_results[1]["details"]["error"]
    assert logged == {"cascade/cascade_math/errors": 0.5}


def test_trl_ifeval_gets_the_prompt_from_prompts():
    f = cr.trl.reward_func("ifeval")
    rewards = f(prompts=["Answer without commas."], completions=["yes no maybe"], completion_ids=None,
                instruction_id_list=[["punctuation:no_comma"]], kwargs=[[{}]])
    assert rewards == [1.0]


def test_verl_compute_score_has_verls_signature_and_a_fixed_key_set():
    params = list(inspect.signature(cr.verl.compute_score).parameters)
    assert params[:4] == ["data_source", "solution_str", "ground_truth", "extra_info"]
    results = [cr.verl.compute_score("openai/gsm8k", r, g, extra_info={"index": i, "split": "train"})
               for i, (r, g) in enumerate(zip(RESPONSES, GOLD))]
    assert [r["score"] for r in results] == [1.0, 0.0, 1.0]
    assert all(set(r) == {"score", "pred", "error", "failed", "details"} for r in results)
    assert all(r["failed"] == 0.0 for r in results)
    assert results[0]["pred"] == "0.5" and results[0]["error"] == ""
    expected = cr.score("math", [{"id": "0", "answer": GOLD[0], "response": RESPONSES[0]}])[0]
    assert json.loads(results[0]["details"]) == expected["details"]


def test_verl_data_sources_map_to_envs_and_are_configurable():
    for source in ["lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "aime24", "math"]:
        assert cr.verl.compute_score(source, "\\boxed{7}", "7")["score"] == 1.0
    with pytest.raises(NotImplementedError, match="my_source"):
        cr.verl.compute_score("my_source", "\\boxed{7}", "7")
    assert cr.verl.compute_score("my_source", "\\boxed{7}", "7", data_sources={"my_source": "math"})["score"] == 1.0
    assert cr.verl.compute_score("anything", "\\boxed{7}", "7", env="math")["score"] == 1.0
    # A dict ground_truth gives the sample's fields directly (here ifeval's).
    gt = {"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}], "prompt": "No commas."}
    assert cr.verl.compute_score("google/IFEval", "a, b", gt)["score"] == 0.0
    assert cr.verl.compute_score("google/IFEval", "a b", gt, config={"fractional": True})["score"] == 1.0


def test_verl_a_bad_sample_is_score_zero_with_the_error():
    result = cr.verl.compute_score("openai/gsm8k", "\\boxed{1}", None)
    assert result["score"] == 0.0 and "answer" in result["error"]


class _FailingEnv:
    """Stands in for an Env whose scorer failed on the second sample."""

    name = "fake"

    def score(self, samples, jobs=None):
        failed = {"error": "the plugin crashed", "failed": True, "failure": "plugin_crash"}
        return [
            {"id": "0", "reward": 1.0, "details": {}},
            {"id": "1", "reward": None, "details": failed},
            {"id": "2", "reward": 0.0, "details": {}},
        ]


def test_trl_a_sample_that_could_not_be_scored_is_none_not_zero():
    logged = {}
    f = cr.trl.reward_func("math")
    f.env = _FailingEnv()
    rewards = f(prompts=["p"] * 3, completions=["a", "b", "c"], log_metric=logged.__setitem__)
    assert rewards == [1.0, None, 0.0]
    assert logged["cascade/cascade_math/failed"] == pytest.approx(1 / 3)


class _OneFailure(_FailingEnv):
    def score(self, samples, jobs=None):
        return super().score(samples, jobs)[1:2]


def test_verl_a_sample_that_could_not_be_scored_is_zero_and_flagged(monkeypatch):
    monkeypatch.setattr(cr.verl, "_env", lambda name, config: _OneFailure())
    result = cr.verl.compute_score("openai/gsm8k", "x", "7")
    assert result["score"] == 0.0 and result["failed"] == 1.0
    assert result["error"] == "the plugin crashed"
