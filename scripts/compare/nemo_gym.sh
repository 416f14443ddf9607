#!/usr/bin/env bash
# `cascade serve` as a NeMo Gym resources server, checked with nemo-gym's own pydantic
# models: /verify requests for math, ifeval and code rows are built with
# `BaseVerifyRequest` (and the math_with_judge / instruction_following / code_gen
# field names), and every reply must validate as `BaseVerifyResponse` with the reward
# `cascade score` gives the same sample. Installs nemo-gym 0.4.0 (the last release for
# Python < 3.13) into a cache venv from pyenv's Python 3.12 on first use.
#
#   scripts/compare/nemo_gym.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup
venv="${CASCADE_CACHE:-$HOME/.cache/cascade}/venv-nemo-gym-0.4.0"
python312="${PYENV_ROOT:-$HOME/.pyenv}/versions/3.12.1/bin/python"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import nemo_gym' 2>/dev/null; then
  say "installing nemo-gym 0.4.0 into $venv"
  "$python312" -m venv "$venv"
  "$venv/bin/pip" install -q nemo-gym==0.4.0
fi
cargo build -q --no-default-features --bin cascade
"$venv/bin/python" scripts/compare/nemo_gym_verify.py "${CARGO_TARGET_DIR:-target}/debug/cascade"
