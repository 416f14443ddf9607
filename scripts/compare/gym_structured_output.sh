#!/usr/bin/env bash
# Differential test + one-core benchmark of `structured_output` against NeMo Gym 0.4.0's
# structured_outputs verifier (in-process, no server). Not in CI: needs the nemo-gym venv
# (scripts/compare/nemo_gym.sh makes it) and two of Gym's pinned dependencies the
# venv lacks (openapi-schema-validator, xmltodict), installed beside it, not into it.
#   scripts/compare/gym_structured_output.sh [CASCADE_BIN] [N_CORPUS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${CASCADE_CACHE:-$HOME/.cache/cascade}"
venv="$cache/venv-nemo-gym-0.4.0"
deps="$cache/gym-structured-outputs-deps"
bin="${1:-${CARGO_TARGET_DIR:-$here/../../target}/debug/cascade}"
[ -x "$venv/bin/python" ] || { echo "no nemo-gym venv at $venv: run scripts/compare/nemo_gym.sh first" >&2; exit 2; }
[ -x "$bin" ] || { echo "no cascade binary at $bin (cargo build first)" >&2; exit 2; }
if [ ! -f "$deps/xmltodict.py" ] || [ ! -d "$deps/openapi_schema_validator" ]; then
  "$venv/bin/pip" install -q --no-deps --target "$deps" \
    openapi-schema-validator==0.6.3 xmltodict==1.0.2 rfc3339-validator==0.1.4 tomli-w==1.2.0
fi
PYTHONPATH="$deps" "$venv/bin/python" "$here/gym_structured_output.py" "$bin" "${2:-2000}"
