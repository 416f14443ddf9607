#!/usr/bin/env bash
# Differential test + one-core benchmark of `structured_output` against NeMo Gym 0.7.0's
# structured_outputs verifier (in-process, no server). Not in CI: needs the nemo-gym venv
# with Gym's pinned parsers (scripts/compare/gym_venv.sh installs both).
#   scripts/compare/gym_structured_output.sh [CASCADE_BIN] [N_CORPUS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=gym_venv.sh
. "$here/gym_venv.sh"
bin="${1:-${CARGO_TARGET_DIR:-$here/../../target}/debug/cascade}"
[ -x "$bin" ] || { echo "no cascade binary at $bin (cargo build first)" >&2; exit 2; }
"$venv/bin/python" "$here/gym_structured_output.py" "$bin" "${2:-2000}"
