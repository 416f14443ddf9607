#!/usr/bin/env bash
# Packs cascade for a GPU machine that has PyTorch 2.11 (CUDA) but no Rust toolchain,
# such as the workplace's lent device: builds `cascade` with the trainer here (against
# the CPU libtorch 2.11 that scripts/setup installs), strips it, and writes
# .gpu/cascade.xz beside run_packed.sh and the transformers peer. Carry `.gpu` there and
# run `bash .gpu/run_packed.sh` (.gitignore leaves the folder out).
#
#   scripts/gpu/pack.sh [--release]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/setup
source scripts/setup
profile=debug
flags=()
if [ "${1:-}" = "--release" ]; then profile=release; flags=(--release); fi
cargo build -q "${flags[@]}" --bin cascade --features train
mkdir -p .gpu
strip -o .gpu/cascade "${CARGO_TARGET_DIR:-target}/$profile/cascade"
xz -T0 -6 -f .gpu/cascade
cp scripts/gpu/run_packed.sh scripts/gpu/peer_qwen05b.py .gpu/
du -sh .gpu
