#!/usr/bin/env bash
# Issue 7's toy GRPO task, run by cascade and then by TRL on the same warmed-up model
# and the same data, in one go; prints both reward curves and steps/s. Then replays a
# 20-step cascade run through TRL's update (trl_grpo_replay.py) to show both take the
# same GRPO step from the same batch.
#
#   scripts/compare/trl_grpo.sh [STEPS] [SEED] [TEMPERATURE]   # default 800, 0, 1.0
#
# Both run with one intra-op thread (the faster setting for this tiny model on both
# sides). Installs TRL into its own cache venv on first use (scripts/setup.d/trainer.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
steps="${1:-800}"
seed="${2:-0}"
temperature="${3:-1.0}"
# shellcheck source=scripts/setup
source scripts/setup
install_trl_venv
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo build -q --release --bin cascade
cascade="${CARGO_TARGET_DIR:-target}/release/cascade"
say "cascade bench-grpo ($steps steps, GRPO seed $seed, temperature $temperature), saving the warmed-up model for TRL"
"$cascade" bench-grpo --steps "$steps" --grpo-seed "$seed" --temperature "$temperature" --every 100 --save-warm-model "$work/warm" | tee "$work/cascade.txt"
say "TRL $TRL_VERSION GRPOTrainer on the same model and data"
"$CASCADE_TRL_VENV/bin/python" scripts/compare/trl_grpo.py --model "$work/warm" --steps "$steps" --seed "$seed" --temperature "$temperature" --every 100 --threads 1 | tee "$work/trl.txt"
say "the same 20 GRPO steps through cascade's and TRL's update"
"$cascade" bench-grpo --steps 20 --grpo-seed "$seed" --temperature "$temperature" --save-warm-model "$work/w20" --save-final-model "$work/f20" --metrics "$work/m20.jsonl" >/dev/null
"$CASCADE_TRL_VENV/bin/python" scripts/compare/trl_grpo_replay.py --warm "$work/w20" --final "$work/f20" --metrics "$work/m20.jsonl" --temperature "$temperature" 2>/dev/null
echo
echo "== cascade: $(grep 'steps/s' "$work/cascade.txt")"
echo "== TRL:     $(grep 'steps/s' "$work/trl.txt")"
