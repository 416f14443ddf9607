#!/usr/bin/env bash
# Differential test of cascade's `ifeval` env on NeMo Gym `instruction_following`
# rows against the Python reference that Gym's server imports: every id of its
# registry (IFEval's 25 and the 29 more) but the three that call a language
# detector, on generated responses (random texts and texts built on each check's
# edge), graded per instruction and per row as Gym's `verify` does.
#
#   scripts/compare/ifrl_reference.sh VERIFIABLE_INSTRUCTIONS_CHECKOUT [N] [SEED]
#
# The reference (github.com/abukharin-nv/verifiable-instructions) is not on PyPI:
# pass its checkout's path (VERIFIABLE_INSTRUCTIONS works too). Installs, once,
# the reference venv and NLTK's punkt_tab (ifeval_venv.sh). CASCADE_BIN picks an
# already built `cascade` (default: a release build). Not part of CI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
vi="${1:-${VERIFIABLE_INSTRUCTIONS:-}}"
n="${2:-6000}"
seed="${3:-1}"
if [ -z "$vi" ] || [ ! -f "$vi/verifiable_instructions/instructions.py" ]; then
  echo "usage: $0 VERIFIABLE_INSTRUCTIONS_CHECKOUT [N] [SEED] (a checkout of abukharin-nv/verifiable-instructions)" >&2
  exit 2
fi
vi="$(cd "$vi" && pwd)"
# shellcheck source=ifeval_venv.sh
. "$root/scripts/compare/ifeval_venv.sh"

cd "$root"
bin="${CASCADE_BIN:-}"
if [ -z "$bin" ]; then
  cargo build -q --release -p cascade
  bin="${CARGO_TARGET_DIR:-$root/target}/release/cascade"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
NLTK_DATA="$nltk_data" "$venv/bin/python" scripts/compare/ifrl_reference.py write "$n" "$seed" "$work/rows.jsonl" "$vi"
"$bin" score --env ifeval --input "$work/rows.jsonl" --output "$work/ours.jsonl" 2>/dev/null
NLTK_DATA="$nltk_data" "$venv/bin/python" scripts/compare/ifrl_reference.py check "$work/rows.jsonl" "$work/ours.jsonl" "$vi"
