#!/usr/bin/env bash
# recipes/smollm2.toml's IF-RL stage on SmolLM2-135M-Instruct, run by cascade and by
# TRL 1.16's GRPOTrainer (trl_smollm2.py) with the same model, rows, reward (cascade's
# ifeval env via cascade_rewards.trl) and settings, SEEDS seeds each, one after the
# other on the same machine; prints both reward curves and steps/s.
#
#   scripts/compare/trl_smollm2.sh [SEEDS]     # default 3
#   CASCADE_BIN=path/to/cascade scripts/compare/trl_smollm2.sh   # an existing build
#
# Installs TRL into its own cache venv on first use (scripts/setup.d/trainer.sh) and
# the cascade-rewards package into it (pip install ./python: maturin builds it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seeds="${1:-3}"
# shellcheck source=scripts/setup
source scripts/setup
install_trl_venv
"$CASCADE_TRL_VENV/bin/python" -c 'import cascade_rewards' 2>/dev/null \
  || "$CASCADE_TRL_VENV/bin/python" -m pip install -q ./python >&2
# CASCADE_BIN: a cascade binary built with torch (default: a release build here).
cascade="${CASCADE_BIN:-}"
if [ -z "$cascade" ]; then
  cargo build -q --release --bin cascade
  cascade="${CARGO_TARGET_DIR:-target}/release/cascade"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The IF-RL stage alone: [run], the ifeval eval set and the first [[stage]].
python3 - "$work/ifrl.toml" <<'PY'
import re, sys
text = open("recipes/smollm2.toml").read()
head, *stages = re.split(r"(?m)^\[\[stage\]\]\n", text)
head = re.sub(r"(?ms)^\[\[eval\]\]\ndomain = \"(?!ifeval).*?(?=^\[\[|\Z)", "", head)
head = head.replace('"../', '"' + __import__("os").getcwd() + "/")
stage = stages[0].replace('"../', '"' + __import__("os").getcwd() + "/")
open(sys.argv[1], "w").write(head + "[[stage]]\n" + stage)
PY
# The stage's own settings, so both sides train alike.
stage_key() { grep "^$1 = " "$work/ifrl.toml" | tail -1 | sed 's/^[a-z_]* = //; s/ *#.*//; s/"//g'; }
steps="$(stage_key steps)"
trl_args=(--steps "$steps" --prompts-per-step "$(stage_key prompts_per_step)"
          --group-size "$(stage_key group_size)" --max-new-tokens "$(stage_key max_new_tokens)"
          --lr "$(stage_key lr)" --temperature "$(stage_key temperature)"
          --data "$(stage_key dataset)")
for seed in $(seq 0 $((seeds - 1))); do
  sed "s/^seed = .*/seed = $seed/" "$work/ifrl.toml" > "$work/ifrl-$seed.toml"
  say "cascade, seed $seed"
  start=$(date +%s.%N)
  "$cascade" train --recipe "$work/ifrl-$seed.toml" --output "$work/cascade-$seed" >/dev/null
  python3 - "$work/cascade-$seed/metrics.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
steps = [l for l in lines if "reward_mean" in l]
secs = sum(l.get("step_s", 0) for l in steps)
print("cascade rewards: " + " ".join(f"{l['reward_mean']:.3f}" for l in steps))
print(f"cascade GRPO: {len(steps)} steps in {secs:.1f}s = {len(steps) / secs:.4f} steps/s")
PY
  say "TRL, seed $seed"
  "$CASCADE_TRL_VENV/bin/python" scripts/compare/trl_smollm2.py --model "$CASCADE_SMOLLM2" \
    "${trl_args[@]}" --seed "$seed" 2>/dev/null
done
