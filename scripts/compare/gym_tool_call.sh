#!/usr/bin/env bash
# tool_call beside BFCL's AST checker and NeMo Gym's xlam_fc and single_step_tool_use
# verifiers, on the bundled sample and a seeded corpus of mutated calls: agreement,
# every disagreement by class, and samples/s on one core (taskset -c 0), all peers and
# `cascade score --jobs 1` (dev build) in the same run, then the verifier's release
# bench on the BFCL rows. Needs the nemo-gym 0.7.0 venv
# (scripts/compare/gym_venv.sh installs it) and a gorilla checkout's git dir (BFCL's
# checker is loaded from it at run time, never vendored).
#
#   scripts/compare/gym_tool_call.sh GORILLA_GIT_DIR [--rows N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup
gorilla="${1:?usage: gym_tool_call.sh GORILLA_GIT_DIR [--rows N]}"
shift
# shellcheck source=gym_venv.sh
. scripts/compare/gym_venv.sh
cargo build -q --no-default-features --bin cascade
cargo bench -q --workspace --bench tool_call --no-run
corpus="$(mktemp --suffix=.jsonl)"
trap 'rm -f "$corpus"' EXIT
taskset -c 0 "$venv/bin/python" scripts/compare/gym_tool_call.py \
  "${CARGO_TARGET_DIR:-target}/debug/cascade" "$gorilla" --dump "$corpus" "$@"
echo
echo "== the same BFCL rows through the verifier alone (release build, one core, rows already decoded to JSON values)"
taskset -c 0 cargo bench -q --workspace --bench tool_call -- "$corpus"
