"""cascade environments as TRL reward functions.

    from trl import GRPOTrainer
    import cascade_rewards as cr

    trainer = GRPOTrainer(model=..., reward_funcs=cr.trl.reward_func("math"),
                          train_dataset=dataset, ...)   # dataset columns: prompt, answer

`GRPOTrainer._calculate_rewards` (TRL 1.x) calls every reward function as
`f(prompts=..., completions=..., completion_ids=..., **reward_kwargs)`, where
`reward_kwargs` holds one list per dataset column (all but `prompt`, `completion`,
`completion_ids`) plus `trainer_state`, `log_extra`, `log_metric` and, with
environments, `environments`. It logs each function's mean reward under its
`__name__` (`rewards/<name>/mean`). This module does nothing TRL-specific at import
time and needs no TRL to be installed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import cascade_rewards

#: Keyword arguments TRL adds that are not dataset columns.
TRAINER_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})


def completion_text(completion: Any) -> str:
    """The text to score: a standard completion is the string itself; a conversational
    one (`[{"role": "assistant", "content": ...}, ...]`) is the content of its last
    assistant message (text parts joined, when the content is a list of parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                return _content_text(message.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return ""


def prompt_text(prompt: Any) -> str:
    """A prompt's text: the string, or the last user message of a conversation."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence):
        for message in reversed(prompt):
            if isinstance(message, Mapping) and message.get("role") == "user":
                return _content_text(message.get("content"))
    return ""


class RewardFunc:
    """A TRL reward function backed by one cascade environment (built once).

    Each completion becomes one cascade sample: the dataset columns of its row (renamed
    by `columns`, e.g. `{"solution": "answer"}`), `response` = the completion text,
    `prompt` = the prompt text unless a column gives it, and `id` = the row's `id`
    column or the completion's index. The reward is `cascade score`'s for that sample;
    a bad sample (say a malformed `answer`) gets 0, as in the CLI, and is counted in
    the `cascade/<name>/errors` metric; it never stops training. A sample that could
    not be scored (the scorer failed, not the model: `"reward": null` in the CLI) is
    `None`, which TRL leaves out of the rewards (it sums them with `nansum`), and is
    counted in the `cascade/<name>/failed` metric.
    """

    def __init__(
        self,
        env: str,
        *,
        columns: Mapping[str, str] | None = None,
        name: str | None = None,
        jobs: int | None = None,
        base_dir: str | os.PathLike[str] | None = None,
        **config: Any,
    ):
        self.env = cascade_rewards.Env(env, base_dir=base_dir, **config)
        self.columns = dict(columns or {})
        self.jobs = jobs
        # TRL names the reward in its logs by `__name__` (trl.trainer.utils.get_callable_name).
        self.__name__ = name or f"cascade_{env}"
        #: The result lines of the last call (dicts), for logging or inspection.
        self.last_results: list[dict[str, Any]] = []

    def samples(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[dict[str, Any]]:
        """The cascade samples for one TRL call (see the class docs)."""
        n = len(completions)
        column_lists = {
            self.columns.get(key, key): values
            for key, values in kwargs.items()
            if key not in TRAINER_KWARGS and isinstance(values, Sequence) and not isinstance(values, str) and len(values) == n
        }
        samples = []
        for i, completion in enumerate(completions):
            sample = {key: values[i] for key, values in column_lists.items()}
            sample.setdefault("id", str(i))
            if prompts is not None and i < len(prompts):
                sample.setdefault("prompt", prompt_text(prompts[i]))
            sample["response"] = completion_text(completion)
            samples.append(sample)
        return samples

    def __call__(self, prompts=None, completions=None, completion_ids=None, **kwargs: Any) -> list[float | None]:
        completions = list(completions or [])
        results = self.env.score(self.samples(prompts or [], completions, **kwargs), self.jobs)
        self.last_results = results
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and results:
            errors = sum(1 for r in results if "error" in r["details"])
            log_metric(f"cascade/{self.__name__}/errors", errors / len(results))
            failed = sum(1 for r in results if r["reward"] is None)
            log_metric(f"cascade/{self.__name__}/failed", failed / len(results))
        return [None if r["reward"] is None else float(r["reward"]) for r in results]

    def __repr__(self) -> str:
        return f"cascade_rewards.trl.RewardFunc({self.env.name!r}, name={self.__name__!r})"


def reward_func(env: str, **config: Any) -> RewardFunc:
    """A callable for `GRPOTrainer(reward_funcs=...)` that scores with cascade's `env`.

    Keyword arguments: `columns` (dataset column -> sample field renames), `name` (the
    name TRL logs the reward under; default `cascade_<env>`), `jobs` (scoring threads),
    `base_dir`, and the environment's own settings (e.g. `fractional=True` for ifeval).
    """
    return RewardFunc(env, **config)
