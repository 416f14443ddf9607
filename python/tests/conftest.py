"""Shared fixtures: the repository, the `cascade` binary to compare with, and the
bundled sample files (`datasets/<env>/sample.jsonl`, as tests/bundled_datasets.rs
finds them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cascade_bin() -> str:
    """`$CASCADE_BIN`, else `cascade` on PATH (scripts/test-python sets CASCADE_BIN)."""
    found = os.environ.get("CASCADE_BIN") or shutil.which("cascade")
    if not found:
        pytest.fail("set CASCADE_BIN to a built cascade binary (scripts/test-python does)")
    return found


def bundled_samples() -> list[tuple[str, Path]]:
    """(env, sample file) for every bundled sample, sorted by env."""
    found = []
    for d in sorted((REPO / "datasets").iterdir()):
        if (d / "sample.jsonl").exists() and (d / "sample.expected.jsonl").exists():
            found.append((d.name, d / "sample.jsonl"))
    assert found, "no bundled samples found under datasets/"
    return found


def input_lines(path: Path) -> list[str]:
    """The sample lines of a JSONL file, as `cascade score` reads them (blank lines skipped)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cli_score(env: str, path: Path, *config: str) -> list[str]:
    """`cascade score`'s result lines for a file."""
    args = [cascade_bin(), "score", "--env", env, "--input", str(path), "--jobs", "2"]
    for pair in config:
        args += ["--config", pair]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()
