"""verl end to end: verl's own `get_custom_reward_fn` loads `cascade_rewards.verl` from
a PPO config (`reward.custom_reward_function.path=pkg://cascade_rewards.verl`), and
verl's `NaiveRewardManager` scores a `DataProto` batch with it, as its trainer does.

Needs verl (scripts/test-python --verl installs verl 0.9.1 with its reward-side
dependencies into a cache venv layered on the TRL venv); elsewhere it is skipped.
"""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
np = pytest.importorskip("numpy")
pytest.importorskip("verl")
from omegaconf import OmegaConf  # noqa: E402
from verl import DataProto  # noqa: E402
from verl.trainer.ppo.reward import get_custom_reward_fn  # noqa: E402
from verl.workers.reward_manager import NaiveRewardManager  # noqa: E402

import cascade_rewards as cr  # noqa: E402
from tiny_hf import tiny_tokenizer  # noqa: E402

ROWS = [  # data_source, prompt, response, ground truth
    ("openai/gsm8k", "1+1=", "\\boxed{2}", "2"),
    ("lighteval/MATH", "2+2=", "\\boxed{5}", "4"),
    ("DigitalLearningGmbH/MATH-lighteval", "1/2=", "\\boxed{0.5}", "\\frac{1}{2}"),
    ("openai/gsm8k", "3+3=", "\\boxed{6}", None),  # malformed ground truth
]


def batch(tokenizer, rows, prompt_len=8, response_len=12):
    """A DataProto as verl's rollout leaves it: left-padded prompts, right-padded responses."""
    prompts, responses, masks = [], [], []
    for _, prompt, response, _ in rows:
        p = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        r = tokenizer(response, add_special_tokens=False)["input_ids"]
        pad = tokenizer.pad_token_id
        prompts.append([pad] * (prompt_len - len(p)) + p)
        responses.append(r + [pad] * (response_len - len(r)))
        masks.append([0] * (prompt_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (response_len - len(r)))
    return DataProto.from_dict(
        tensors={
            "prompts": torch.tensor(prompts),
            "responses": torch.tensor(responses),
            "attention_mask": torch.tensor(masks),
        },
        non_tensors={
            "data_source": np.array([r[0] for r in rows], dtype=object),
            "reward_model": np.array([{"ground_truth": r[3], "style": "rule"} for r in rows], dtype=object),
            "extra_info": np.array([{"index": i, "split": "test"} for i in range(len(rows))], dtype=object),
        },
    )


def test_naive_reward_manager_scores_with_cascade():
    config = OmegaConf.create(
        {"reward": {"custom_reward_function": {"path": "pkg://cascade_rewards.verl", "name": "compute_score",
                                               "reward_kwargs": {}}}}
    )
    compute_score = get_custom_reward_fn(config)
    assert compute_score is not None
    tokenizer = tiny_tokenizer()
    manager = NaiveRewardManager(tokenizer=tokenizer, num_examine=0, compute_score=compute_score)
    data = batch(tokenizer, ROWS)
    assert [tokenizer.decode(r, skip_special_tokens=True) for r in data.batch["responses"]] == [r[2] for r in ROWS]
    out = manager(data, return_dict=True)

    expected = cr.score("math", [
        {"id": str(i), "answer": gt, "response": response} for i, (_, _, response, gt) in enumerate(ROWS)
    ])
    rewards = out["reward_tensor"]
    lengths = data.batch["attention_mask"][:, 8:].sum(-1)
    for i, result in enumerate(expected):
        # The reward sits on the last response token, zeros elsewhere.
        assert rewards[i, lengths[i] - 1].item() == result["reward"]
        assert rewards[i].sum().item() == result["reward"]
    assert [r["reward"] for r in expected] == [1.0, 0.0, 1.0, 0.0]
    info = out["reward_extra_info"]
    assert set(info) == {"score", "pred", "error", "details"}
    assert all(len(values) == len(ROWS) for values in info.values())
    assert [json.loads(d) for d in info["details"]] == [r["details"] for r in expected]
    assert info["pred"][:3] == ["2", "5", "0.5"]
    assert info["error"][:3] == ["", "", ""] and "answer" in info["error"][3]


def test_reward_kwargs_choose_the_env_and_its_config():
    config = OmegaConf.create(
        {"reward": {"custom_reward_function": {"path": "pkg://cascade_rewards.verl", "name": "compute_score",
                                               "reward_kwargs": {"data_sources": {"my/gsm": "math"}}}}}
    )
    compute_score = get_custom_reward_fn(config)
    tokenizer = tiny_tokenizer()
    manager = NaiveRewardManager(tokenizer=tokenizer, num_examine=0, compute_score=compute_score)
    rows = [("my/gsm", "1+1=", "\\boxed{2}", "2")]
    assert manager(batch(tokenizer, rows)).sum().item() == 1.0
