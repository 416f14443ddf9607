"""cascade's verifiable-reward environments from Python, with the CLI's scores.

    import cascade_rewards as cr
    cr.envs()                                   # {"math": {"kind", "origin", "description"}, ...}
    cr.score("math", [{"id": "a", "answer": "1/2", "response": "\\boxed{0.5}"}])
    env = cr.Env("ifeval", fractional=True)     # built once, reused for every batch
    env.score(samples, jobs=4)

Every result is the line `cascade score` prints for the same sample, as a dict
(`score_lines` gives the exact bytes). A bad sample gets reward 0 and `details.error`;
it never raises. Scoring releases the GIL. Adapters: `cascade_rewards.trl`,
`cascade_rewards.verl`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, Union

from cascade_rewards._native import NativeEnv, __version__
from cascade_rewards._native import envs as _envs

Sample = Union[Mapping[str, Any], str]

__all__ = ["Env", "envs", "score", "score_lines", "__version__"]


def envs() -> dict[str, dict[str, str]]:
    """Every environment and verifier plugin in the package, as `cascade envs` lists
    them: `{name: {"kind": ..., "origin": ..., "description": ...}}`, sorted by name."""
    return _envs()


class Env:
    """One environment with its config, built once.

    `Env("math")`, `Env("ifeval", fractional=True)`. The keyword arguments are the
    environment's settings (the CLI's `--config KEY=VALUE`); `base_dir` is the folder
    that relative paths inside samples resolve against (`swe`'s `repo`; `cascade score`
    uses the input file's folder), the current directory when absent.

    Raises `KeyError` for an unknown environment and `ValueError` for a bad setting,
    both naming the environment.
    """

    def __init__(self, name: str, *, base_dir: str | os.PathLike[str] | None = None, **config: Any):
        self._native = NativeEnv(name, config, None if base_dir is None else os.fspath(base_dir))

    @property
    def name(self) -> str:
        return self._native.name

    def score(self, samples: Iterable[Sample], jobs: int | None = None) -> list[dict[str, Any]]:
        """Scores every sample (a dict or a JSON line) into its result line as a dict:
        `{"id", "reward", "details"}`, in input order. `jobs`: scoring threads (None or
        0: one per core)."""
        return [json.loads(line) for line in self.score_lines(samples, jobs)]

    def score_lines(self, samples: Iterable[Sample], jobs: int | None = None) -> list[str]:
        """As `score`, but each result is the exact JSON text `cascade score` prints
        (without the newline)."""
        return self._native.score_lines(list(samples), jobs)

    def __repr__(self) -> str:
        return f"cascade_rewards.Env({self.name!r})"


def score(
    env: str,
    samples: Iterable[Sample],
    config: Mapping[str, Any] | None = None,
    jobs: int | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """Scores `samples` with the environment `env` (built for this call; use `Env` to
    build it once for many calls). The same results as `cascade score --env ENV`."""
    return Env(env, base_dir=base_dir, **dict(config or {})).score(samples, jobs)


def score_lines(
    env: str,
    samples: Iterable[Sample],
    config: Mapping[str, Any] | None = None,
    jobs: int | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> list[str]:
    """As `score`, returning the exact result-line text of `cascade score`."""
    return Env(env, base_dir=base_dir, **dict(config or {})).score_lines(samples, jobs)

# The adapters are pure Python and import nothing heavy: `cr.trl.reward_func(...)`,
# `cr.verl.compute_score(...)` work after `import cascade_rewards as cr`.
from cascade_rewards import trl, verl  # noqa: E402
