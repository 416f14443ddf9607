#!/usr/bin/env bash
# cascade's workplace env vs NeMo Gym's workplace assistant is_correct, on rows whose
# initial state is Gym's CSVs (read from the installed package, never copied here).
#   scripts/compare/gym_workplace.sh [N_REFERENCES]
# Needs: the Gym 0.4.0 venv (VENV, default below) and a built cascade (CASCADE).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${VENV:-/root/.cache/cascade/venv-nemo-gym-0.4.0}"
cascade="${CASCADE:-${CARGO_TARGET_DIR:-$here/../../target}/debug/cascade}"
package="$venv/lib/python3.12/site-packages/resources_servers/workplace_assistant"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
taskset -c 0 "$venv/bin/python" "$here/gym_workplace.py" "$cascade" "$package" "$out" "${1:-60}"
