#!/usr/bin/env bash
# For a GPU machine: a randomly initialised model with Qwen2.5-0.5B's shape (no weights
# are downloaded), bf16 autocast on CUDA; prints sampling tokens/s, training tokens/s
# and model FLOPs utilisation (against 989 TFLOP/s dense bf16, H100/H200).
#
#   scripts/gpu/bench_qwen05b.sh [extra cascade bench-model flags]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup
cargo build -q --release --bin cascade
bin="${CARGO_TARGET_DIR:-target}/release/cascade"
for batch in 16 64; do
  "$bin" bench-model --device cuda --batch "$batch" --prompt-len 256 --new-tokens 256 --repeats 3 "$@"
done
