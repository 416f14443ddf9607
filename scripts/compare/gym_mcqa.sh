#!/usr/bin/env bash
# cascade's `mcqa` env vs NeMo Gym 0.7.0's own mcqa verifier, in-process: agreement on
# the bundled sample plus a generated corpus of answer forms, every disagreement, and
# samples/s on one core (taskset -c 0) for both, in the same run. Uses the nemo-gym
# venv that scripts/compare/gym_venv.sh installs; builds the dev `cascade` binary, or
# with OPT=1 the dev binary with cascade's own crates (verifiers, envs, cli) at
# opt-level 3 (dependencies are at opt-level 2 in dev already; a release build would
# rebuild every dependency).
#
#   scripts/compare/gym_mcqa.sh
#   OPT=1 scripts/compare/gym_mcqa.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup >/dev/null
# shellcheck source=gym_venv.sh
. scripts/compare/gym_venv.sh
flags=()
if [ "${OPT:-0}" = 1 ]; then
  for crate in cascade-verifiers cascade-envs cascade; do
    flags+=(--config "profile.dev.package.$crate.opt-level=3")
  done
fi
cargo build -q -j 2 "${flags[@]}" --bin cascade
taskset -c 0 "$venv/bin/python" scripts/compare/gym_mcqa.py "${CARGO_TARGET_DIR:-target}/debug/cascade"
