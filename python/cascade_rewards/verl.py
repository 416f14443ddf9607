"""cascade environments as verl's `custom_reward_function`.

    # verl config (Hydra overrides)
    custom_reward_function.path=pkg://cascade_rewards.verl
    custom_reward_function.name=compute_score

verl's reward managers (`NaiveRewardManager` and the reward loop's) call
`compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)`
once per response, merging `custom_reward_function.reward_kwargs` into the keyword
arguments, and append every key of a returned dict to `reward_extra_info`. So the
dict returned here always has the same keys, with numbers or strings only (verl's
validation metrics average the numeric ones and skip strings):

    {"score": float, "pred": str, "error": str, "failed": float, "details": str (JSON)}

A sample that could not be scored (the scorer failed, not the model; `"reward": null`
in `cascade score`) has no float reward, and verl needs one: it gets `score` 0.0 and
`failed` 1.0 (`failed` is 0.0 otherwise, so verl's metrics report the failure rate).

`data_source` picks the environment through `DATA_SOURCES` (verl's names for common
datasets; any cascade env name maps to itself); `reward_kwargs` may give `env`
(overrides the mapping), `data_sources` (extra mappings) and `config` (the env's
settings). `ground_truth` fills the env's answer field (`ANSWER_FIELDS`), or, when it
is a dict, gives sample fields directly; `extra_info["cascade"]` (a dict) adds more.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

import cascade_rewards

#: verl `data_source` names -> cascade environments (verl's default_compute_score names
#: for math and instruction following).
DATA_SOURCES: dict[str, str] = {
    "openai/gsm8k": "math",
    "lighteval/MATH": "math",
    "DigitalLearningGmbH/MATH-lighteval": "math",
    "HuggingFaceH4/MATH-500": "math",
    "math_dapo": "math",
    "math_dapo_reasoning": "math",
    "math": "math",
    "numina_aops_forum": "math",
    "numina_synthetic_math": "math",
    "numina_amc_aime": "math",
    "numina_synthetic_amc": "math",
    "numina_cn_k12": "math",
    "numina_olympiads": "math",
    "google/IFEval": "ifeval",
}

#: The sample field a string `ground_truth` fills, per environment.
ANSWER_FIELDS: dict[str, str] = {"math": "answer", "exact_match": "answer", "mcqa": "expected_answer"}

_envs: dict[tuple[str, str], cascade_rewards.Env] = {}
_envs_lock = threading.Lock()


def env_for(data_source: str, data_sources: Mapping[str, str] | None = None) -> str:
    """The cascade environment for a verl `data_source` (`aime*` names are math)."""
    mapping = {**DATA_SOURCES, **dict(data_sources or {})}
    if data_source in mapping:
        return mapping[data_source]
    if data_source.startswith("aime"):
        return "math"
    if data_source in cascade_rewards.envs():
        return data_source
    raise NotImplementedError(
        f"cascade_rewards.verl: no environment for {data_source=}; add it to "
        "custom_reward_function.reward_kwargs.data_sources or pass env=..."
    )


def _env(name: str, config: Mapping[str, Any] | None) -> cascade_rewards.Env:
    """Environments are built once per (name, config) and reused by every call."""
    key = (name, json.dumps(dict(config or {}), sort_keys=True))
    with _envs_lock:
        env = _envs.get(key)
        if env is None:
            env = _envs[key] = cascade_rewards.Env(name, **dict(config or {}))
        return env


def _plain(value: Any) -> Any:
    """numpy values (verl's non-tensor batch is numpy object arrays) as Python ones."""
    tolist = getattr(value, "tolist", None)
    return tolist() if callable(tolist) else value


def sample_for(env: str, solution_str: str, ground_truth: Any, extra_info: Any) -> dict[str, Any]:
    """The cascade sample for one verl call."""
    sample: dict[str, Any] = {}
    extra = extra_info if isinstance(extra_info, Mapping) else {}
    if isinstance(extra.get("cascade"), Mapping):
        sample.update({k: _plain(v) for k, v in extra["cascade"].items()})
    ground_truth = _plain(ground_truth)
    if isinstance(ground_truth, Mapping):
        sample.update({k: _plain(v) for k, v in ground_truth.items()})
    else:  # None too: the env then names the bad field
        sample[ANSWER_FIELDS.get(env, "answer")] = ground_truth
    index = _plain(extra.get("index"))
    sample.setdefault("id", str(index) if index is not None else "")
    sample["response"] = solution_str
    return sample


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Any = None,
    *,
    env: str | None = None,
    data_sources: Mapping[str, str] | None = None,
    config: Mapping[str, Any] | None = None,
    **_verl_kwargs: Any,
) -> dict[str, Any]:
    """verl's `custom_reward_function`: scores one response with cascade.

    Returns `{"score", "pred", "error", "failed", "details"}`: `score` is `cascade
    score`'s reward (0.0 for a sample that could not be scored, then `failed` is 1.0),
    `pred` the extracted answer (math; "" otherwise), `error` the sample's
    `details.error` or "", `details` cascade's details as JSON text. A bad sample is
    score 0 with `error` set; an unknown `data_source` raises NotImplementedError, as
    verl's own `default_compute_score` does.
    """
    name = env or env_for(data_source, data_sources)
    [result] = _env(name, config).score([sample_for(name, solution_str, ground_truth, extra_info)], jobs=1)
    details = result["details"]
    extracted = details.get("extracted")
    return {
        "score": 0.0 if result["reward"] is None else float(result["reward"]),
        "pred": extracted if isinstance(extracted, str) else "",
        "error": str(details.get("error", "")),
        "failed": 0.0 if result["reward"] is not None else 1.0,
        "details": json.dumps(details, ensure_ascii=False),
    }
