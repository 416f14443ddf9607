#!/usr/bin/env bash
# One GRPO training step of a Qwen2.5-0.5B-shaped model on the CPU, taken by cascade
# and by transformers + TRL 1.16 from the same random weights and the same batch:
# their loss, gradient norm and mean response log-prob must agree (the two compute
# the same step), and their seconds, training tokens/s and peak resident memory show
# what cascade's step costs beside the usual PyTorch trainer's.
#
#   scripts/compare/trl_step_05b.sh [BATCH] [RESPONSE_LEN] [PROMPT_LEN] [CASCADE_FLAGS...]
#                                                        # default 4 1024 128
#
# CASCADE_FLAGS go to `cascade bench-model` (e.g. --recompute, --logit-chunk-mb N);
# the TRL side recomputes too when cascade did. Each side runs in its own process, so
# each peak RSS (VmHWM) is its own. TRL's side runs with the intra-op thread count
# cascade's report names (libtorch's default there). Installs TRL into its own
# cache venv on first use (scripts/setup.d/trainer.sh). Needs about 1 GB of /tmp for
# the saved checkpoint (bf16-representable weights, read as float32 by both).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
batch="${1:-4}"
response_len="${2:-1024}"
prompt_len="${3:-128}"
shift $(( $# < 3 ? $# : 3 ))
# shellcheck source=scripts/setup
source scripts/setup
install_trl_venv
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo build -q --release --bin cascade
cascade="${CARGO_TARGET_DIR:-target}/release/cascade"
say "cascade bench-model: one GRPO step, batch $batch x ($prompt_len prompt + $response_len response), CPU"
"$cascade" bench-model --device cpu --train-step --batch "$batch" --prompt-len "$prompt_len" \
  --new-tokens "$response_len" --save-step "$work" "$@"
say "transformers + TRL $TRL_VERSION: the same step from the same weights and batch"
"$CASCADE_TRL_VENV/bin/python" scripts/compare/trl_step_05b.py --step "$work" --threads "$(grep -o '"threads":[0-9]*' "$work/cascade.json" | cut -d: -f2)"
