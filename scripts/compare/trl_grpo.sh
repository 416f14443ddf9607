#!/usr/bin/env bash
# Issue 7's toy GRPO task, run by cascade and then by TRL on the same warmed-up model
# and the same data, in one go; prints both reward curves and steps/s.
#
#   scripts/compare/trl_grpo.sh [STEPS]      # default 800
#
# Installs TRL into its own cache venv on first use (scripts/setup.d/trainer.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
steps="${1:-800}"
# shellcheck source=scripts/setup
source scripts/setup
install_trl_venv
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
say "cascade bench-grpo ($steps steps), saving the warmed-up model for TRL"
cargo run -q --release --bin cascade -- bench-grpo --steps "$steps" --save-warm-model "$work/warm" | tee "$work/cascade.txt"
say "TRL $TRL_VERSION GRPOTrainer on the same model and data"
"$CASCADE_TRL_VENV/bin/python" scripts/compare/trl_grpo.py --model "$work/warm" --steps "$steps" | tee "$work/trl.txt"
echo
echo "== cascade: $(grep 'steps/s' "$work/cascade.txt")"
echo "== TRL:     $(grep 'steps/s' "$work/trl.txt")"
