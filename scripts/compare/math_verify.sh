#!/usr/bin/env bash
# Compares cascade's math verifier with HuggingFace Math-Verify on the same labelled
# corpus, side by side: accuracy, false accepts/rejects, checks/s and latency.
#
#   scripts/compare/math_verify.sh [CORPUS.jsonl]
#
# Installs math-verify (pinned) into a venv under $CASCADE_CACHE (default
# ~/.cache/cascade) on first use; later runs reuse it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CORPUS="${1:-$ROOT/datasets/math/bench_corpus.jsonl}"
CASCADE_CACHE="${CASCADE_CACHE:-$HOME/.cache/cascade}"
MV_VERSION="0.8.0"
VENV="$CASCADE_CACHE/venv-math-verify-$MV_VERSION"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import math_verify" 2>/dev/null; then
    echo "installing math-verify $MV_VERSION into $VENV" >&2
    python3 -m venv "$VENV" || { echo "missing: python3 venv support (apt-get install python3-venv)" >&2; exit 1; }
    "$VENV/bin/pip" install --quiet "math-verify==$MV_VERSION" \
        || { echo "missing: math-verify $MV_VERSION from PyPI" >&2; exit 1; }
else
    echo "math-verify $MV_VERSION already installed in $VENV" >&2
fi

cd "$ROOT"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "== cascade (cargo bench -p cascade-verifiers --bench math)"
cargo bench --quiet -p cascade-verifiers --bench math -- "$CORPUS"
CASCADE_JSON="$(cargo bench --quiet -p cascade-verifiers --bench math -- "$CORPUS" --json)"
echo
for config in default reward; do
    echo "== math-verify $MV_VERSION ($config config)"
    "$VENV/bin/python" "$ROOT/scripts/compare/math_verify_compare.py" "$CORPUS" --config "$config" \
        --json-out "$TMP/mv.json" --max-listed 15
    MV_JSON="$(cat "$TMP/mv.json")"
    echo
    python3 - "$CASCADE_JSON" "$MV_JSON" "$CORPUS" <<'PY'
import json, sys
c, m = json.loads(sys.argv[1]), json.loads(sys.argv[2])
rows = [json.loads(l) for l in open(sys.argv[3], encoding="utf-8") if l.strip()]
print(f"{'':22}{'cascade':>14}{m['tool']:>28}")
print(f"{'accuracy':22}{100*c['accuracy']:>13.2f}%{100*m['accuracy']:>27.2f}%")
print(f"{'false accepts':22}{c['false_accepts']:>14}{m['false_accepts']:>28}")
print(f"{'false rejects':22}{c['false_rejects']:>14}{m['false_rejects']:>28}")
print(f"{'checks/s, 1 thread':22}{c['checks_per_s_1']:>14.0f}{m['checks_per_s_1']:>28.0f}")
print(f"{'checks/s, all cores':22}{c['checks_per_s_all']:>14.0f}{'(main thread only)':>28}")
print(f"{'p50 latency (us)':22}{c['p50_us']:>14.1f}{m['p50_us']:>28.1f}")
print(f"{'p99 latency (us)':22}{c['p99_us']:>14.1f}{m['p99_us']:>28.1f}")
print(f"{'max, <=64KB (us)':22}{c['max_us']:>14.1f}{m['max_us']:>28.1f}")
print(f"{'adversarial p99 (us)':22}{c['adversarial_p99_us']:>14.1f}{'(not run: no limits)':>28}")
print(f"{'adversarial max (us)':22}{c['adversarial_max_us']:>14.1f}{'(not run: no limits)':>28}")
print(f"single-thread speed-up: {c['checks_per_s_1'] / m['checks_per_s_1']:.0f}x")
cw, mw = c.get("wrong_by_category", {}), m.get("wrong_by_category", {})
# The answer-form classes of issues 13 and 36 (`gen_issue13`, `gen_issue36` in math_corpus.py).
groups = {
    "13": ["rounded_decimal", "truncated", "complex_polar", "degrees_trig", "unicode",
           "plain_units", "set_difference", "inequality_join", "choice_value", "set_repeats",
           "big_integer"],
    "36": ["think_final", "truncated_think", "cut_box", "hedge", "end_tokens", "bold_option",
           "gold_units", "repeating_decimal", "named_lhs", "sci_unit", "conjunction"],
}
for issue, new in groups.items():
    count = {k: sum(r["category"] == k for r in rows) for k in new}
    print(f"\nnew cases (issue {issue}), wrong / cases: {'cascade':>10}{m['tool']:>22}")
    for k in new:
        print(f"  {k:20}{cw.get(k, 0):>6} / {count[k]:<4}{mw.get(k, 0):>16} / {count[k]}")
    total = sum(count.values())
    print(f"  {'all new cases':20}{sum(cw.get(k, 0) for k in new):>6} / {total:<4}"
          f"{sum(mw.get(k, 0) for k in new):>16} / {total}")
PY
    echo
done
