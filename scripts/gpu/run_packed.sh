#!/usr/bin/env bash
# On the GPU machine, from a folder made by scripts/gpu/pack.sh: cascade's sampling and
# training throughput at the Qwen2.5-0.5B shape (random weights, bf16 autocast), one
# GRPO and one MOPD step of 8 x (256 + 1024) tokens, then the transformers peer on the
# same shapes in the same run. The binary was linked against the CPU build of libtorch
# 2.11, so the machine's CUDA build of the same version is put first on the library
# path and its CUDA libraries are preloaded (they register CUDA with libtorch).
set -uo pipefail
cd "$(dirname "$0")"
python3 -c "import lzma; open('/tmp/cascade','wb').write(lzma.open('cascade.xz').read())"
chmod +x /tmp/cascade
lib=$(python3 -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))")
export LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}"
export LD_PRELOAD="$lib/libc10_cuda.so $lib/libtorch_cuda.so"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
bench() { echo "### cascade bench-model --device cuda $*"; timeout 150 /tmp/cascade bench-model --device cuda "$@"; }
# Packages the machine has (is an inference engine there, for scale-out?).
echo "### pip list (engines, kernels)"
python3 -m pip list 2>/dev/null | grep -iE '^(torch|vllm|sglang|flash|flashinfer|xformers|transformers|triton|deepspeed|accelerate|ray) ' || true
# Issue 40, before and after in one run: the older paths (every attention call masked
# with grouped heads broadcast, per-tensor AdamW, a host read every decoding step),
# then the defaults (causal flash pass, K/V heads expanded under a mask, fused AdamW,
# a host read every 8 steps). Each report names the SDPA kernel of each call.
old=(--attention masked --optimizer per-tensor --finished-check-every 1)
for b in 16 64; do
  bench --batch "$b" --prompt-len 256 --new-tokens 256 --repeats 2 "${old[@]}"
  bench --batch "$b" --prompt-len 256 --new-tokens 256 --repeats 2
done
# The proof: with the math kernel forbidden, the default paths still run.
bench --batch 16 --prompt-len 256 --new-tokens 64 --repeats 1 --no-math-sdpa
bench --train-step --batch 8 --prompt-len 256 --new-tokens 1024 --no-math-sdpa
bench --train-step --batch 8 --prompt-len 256 --new-tokens 1024 --attention masked
bench --train-step --mopd --batch 8 --prompt-len 256 --new-tokens 1024
echo "### transformers peer"
PYTHONUNBUFFERED=1 timeout 200 python3 peer_qwen05b.py 2>&1 | grep -v Warning
