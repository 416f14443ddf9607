#!/usr/bin/env bash
# cascade's workplace env vs NeMo Gym's workplace assistant is_correct, on rows whose
# initial state is Gym's CSVs (read from the installed package, never copied here).
#   scripts/compare/gym_workplace.sh [N_REFERENCES]
# Needs: the Gym 0.7.0 venv (gym_venv.sh installs it) and a built cascade (CASCADE).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=gym_venv.sh
. "$here/gym_venv.sh"
cascade="${CASCADE:-${CARGO_TARGET_DIR:-$here/../../target}/debug/cascade}"
package="$gym_package/workplace_assistant"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
taskset -c 0 "$venv/bin/python" "$here/gym_workplace.py" "$cascade" "$package" "$out" "${1:-60}"
