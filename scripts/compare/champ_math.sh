#!/usr/bin/env bash
# cascade's math verifier and Math-Verify side by side on CHAMP's ~19,000 real model
# responses (the `champ-dataset` package: 270 competition problems with gold answers):
# agreement figures, and a seeded sample of disagreements for adjudication by hand.
#
#   scripts/compare/champ_math.sh [OUT_DIR]     (default: $CASCADE_CACHE/champ)
#
# Installs champ-dataset and math-verify (pinned) into a venv under $CASCADE_CACHE
# (default ~/.cache/cascade) on first use; later runs reuse it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CASCADE_CACHE="${CASCADE_CACHE:-$HOME/.cache/cascade}"
CHAMP_VERSION="1.0.0"
MV_VERSION="0.8.0"
VENV="$CASCADE_CACHE/venv-champ-$CHAMP_VERSION-mv-$MV_VERSION"
OUT="${1:-$CASCADE_CACHE/champ}"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import champ_dataset, math_verify" 2>/dev/null; then
    echo "installing champ-dataset $CHAMP_VERSION and math-verify $MV_VERSION into $VENV" >&2
    python3 -m venv "$VENV" || { echo "missing: python3 venv support" >&2; exit 1; }
    "$VENV/bin/pip" install --quiet "champ-dataset==$CHAMP_VERSION" "math-verify==$MV_VERSION" \
        || { echo "missing: champ-dataset / math-verify from PyPI" >&2; exit 1; }
fi

mkdir -p "$OUT"
PY="$ROOT/scripts/compare/champ_math.py"
"$VENV/bin/python" "$PY" rows "$OUT/rows.jsonl"
cd "$ROOT"
cargo run --quiet --release -p cascade-verifiers --example math_verdicts \
    < "$OUT/rows.jsonl" > "$OUT/cascade.jsonl"
[ -s "$OUT/mv.jsonl" ] && [ "$(wc -l < "$OUT/mv.jsonl")" = "$(wc -l < "$OUT/rows.jsonl")" ] \
    || "$VENV/bin/python" "$PY" mv "$OUT/rows.jsonl" "$OUT/mv.jsonl"
"$VENV/bin/python" "$PY" compare "$OUT/rows.jsonl" "$OUT/cascade.jsonl" "$OUT/mv.jsonl" \
    "$OUT/disagreements.sample.jsonl" --seed 36 --n 120
