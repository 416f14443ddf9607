#!/usr/bin/env bash
# Runs training tests under settings that imitate other CPUs and prints, per test and
# setting, pass/fail and the hash of the trajectory (metrics lines and final weights)
# that the test recorded (CASCADE_TRAJECTORY_HASH_FILE; trainer/src/numerics.rs).
#
#   scripts/numerics_matrix.sh                         # the default tests below
#   scripts/numerics_matrix.sh rlhf:reward_model_training runner:tiny_recipe
#   SETTINGS='pinned' scripts/numerics_matrix.sh ...   # only settings whose label matches
#
# A test is BINARY:FILTER (a trainer test binary and a test-name filter). Pinned rows
# must all show one hash per test: the pin (ATen AVX2 kernels, MKL COMPATIBLE,STRICT,
# oneDNN capped at AVX2, one thread) overrides what the environment or the CPU would
# choose. Native rows (CASCADE_NUMERICS=native) show what the pin removes: there the
# same knobs change the trajectory. On an AMD CPU MKL honours no Intel branch
# (MKL_CBWR=AVX2/AVX512 fall back to AUTO, MKL_ENABLE_INSTRUCTIONS changes nothing),
# so those rows cannot imitate an Intel CPU's MKL path; COMPATIBLE is the one branch
# MKL promises on both. Slow: every cell is a whole training test, run one at a time.
set -euo pipefail
# shellcheck source=scripts/setup
source "$(dirname "${BASH_SOURCE[0]}")/setup" >/dev/null
cd "$CASCADE_ROOT"

tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(
  rlhf:reward_model_training_then_grpo
  runner:tiny_recipe
  learning:grpo_raises
  mopd_recovery:mopd_recovers
  multi_turn:grpo_raises
)
# label | environment
settings=(
  "pinned|"
  "pinned, env as an AVX-512+AMX Xeon|ATEN_CPU_CAPABILITY=avx512 MKL_CBWR=AUTO MKL_ENABLE_INSTRUCTIONS=AVX512_E4 ONEDNN_MAX_CPU_ISA=AVX512_CORE_AMX"
  "pinned, env as an AVX2 CPU|ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2"
  "pinned, env as baseline x86-64, 2 threads|ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=SSE4_2 OMP_NUM_THREADS=2 MKL_NUM_THREADS=2"
  "native (avx512 here)|CASCADE_NUMERICS=native"
  "native, ATen avx2|CASCADE_NUMERICS=native ATEN_CPU_CAPABILITY=avx2"
  "native, ATen default|CASCADE_NUMERICS=native ATEN_CPU_CAPABILITY=default"
)

# The test binaries, built once as scripts/test builds them (--workspace: the same
# features, so no rebuild), "tests/NAME.rs (.../deps/NAME-HASH)" in cargo's output, and
# copied: a build during the long run cannot swap a binary between two cells.
build_log=$(cargo test --workspace --tests --no-run 2>&1) || { echo "$build_log"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
binary() {
  local built
  built=$(grep -oE "tests/$1\.rs \([^)]*/deps/$1-[0-9a-f]+\)" <<< "$build_log" | sed -E 's/.*\((.*)\)/\1/')
  [ -n "$built" ] || return 0
  cp "$built" "$work/$1" && echo "$work/$1"
}

printf '| test | setting | result | trajectory hash | seconds |\n| --- | --- | --- | --- | --- |\n'
for t in "${tests[@]}"; do
  bin=$(binary "${t%%:*}")
  [ -n "$bin" ] || { echo "no test binary ${t%%:*}" >&2; exit 2; }
  for s in "${settings[@]}"; do
    label="${s%%|*}"; vars="${s#*|}"
    [[ "$label" =~ ${SETTINGS:-.} ]] || continue
    hashes="$work/hashes"; : > "$hashes"
    start=$SECONDS
    # shellcheck disable=SC2086 # $vars is a list of NAME=VALUE words
    if env -u CASCADE_NUMERICS $vars CASCADE_TRAJECTORY_HASH_FILE="$hashes" \
        "$bin" "${t#*:}" --test-threads=1 >"$work/out" 2>&1; then
      result=pass
    else
      result=FAIL
      { echo "--- $t, $label:"; grep -E "panicked|assert" "$work/out" | head -n 5; } >&2
    fi
    hash=$(awk '{print $2}' "$hashes" | paste -sd, -)
    printf '| %s | %s | %s | `%s` | %d |\n' "$t" "$label" "$result" "${hash:-none}" $((SECONDS - start))
  done
done
