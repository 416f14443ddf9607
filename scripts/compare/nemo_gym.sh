#!/usr/bin/env bash
# `cascade serve` as a NeMo Gym resources server, checked with nemo-gym's own pydantic
# models: /verify requests for math, ifeval and code rows are built with
# `BaseVerifyRequest` (and the math_with_judge / instruction_following / code_gen
# field names), and every reply must validate as `BaseVerifyResponse` with the reward
# `cascade score` gives the same sample. Uses the nemo-gym 0.7.0 venv that gym_venv.sh
# installs on first use (pyenv's Python 3.13.0, --ignore-requires-python).
#
#   scripts/compare/nemo_gym.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup
# shellcheck source=gym_venv.sh
. scripts/compare/gym_venv.sh
cargo build -q --no-default-features --bin cascade
"$venv/bin/python" scripts/compare/nemo_gym_verify.py "${CARGO_TARGET_DIR:-target}/debug/cascade"
