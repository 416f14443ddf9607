#!/usr/bin/env bash
# For a GPU machine: a randomly initialised model with Qwen2.5-0.5B's shape (no weights
# are downloaded), bf16 autocast on CUDA; prints sampling tokens/s, training tokens/s
# and model FLOPs utilisation (against 989 TFLOP/s dense bf16, H100/H200), then the
# transformers peer on the same shapes (scripts/gpu/peer_qwen05b.py) when python3 has it.
# On a GPU machine without Rust, use scripts/gpu/pack.sh and run_packed.sh instead.
#
#   scripts/gpu/bench_qwen05b.sh [extra cascade bench-model flags]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup
cargo build -q --release --bin cascade
bin="${CARGO_TARGET_DIR:-target}/release/cascade"
# Issue 40's before and after in one run: the older paths first, then the defaults.
for batch in 16 64; do
  "$bin" bench-model --device cuda --batch "$batch" --prompt-len 256 --new-tokens 256 --repeats 2 \
    --attention masked --optimizer per-tensor --finished-check-every 1 "$@"
  "$bin" bench-model --device cuda --batch "$batch" --prompt-len 256 --new-tokens 256 --repeats 2 "$@"
done
# No call may need the math SDPA kernel.
"$bin" bench-model --device cuda --batch 16 --prompt-len 256 --new-tokens 64 --repeats 1 --no-math-sdpa "$@"
if python3 -c "import transformers, torch" 2>/dev/null; then
  python3 scripts/gpu/peer_qwen05b.py
fi
