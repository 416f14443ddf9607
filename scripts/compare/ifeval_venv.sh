# Sourced by ifeval_reference.sh and ifrl_reference.sh: the reference venv and
# NLTK data under ${CASCADE_CACHE:-~/.cache/cascade}/ifeval-ref/, installed once.
#
# The venv holds lm-eval (--no-deps; its IFEval copy), langdetect, nltk,
# immutabledict, packaging and absl-py (what lm-eval's and the
# verifiable_instructions package's checks import). NLTK's punkt_tab comes from
# the llama-index-core 0.14.25 wheel (the only PyPI file that ships it; offline,
# the references' own download fails), checked by sha256.
# Sets: cache, venv, nltk_data.
cache="${CASCADE_CACHE:-$HOME/.cache/cascade}/ifeval-ref"
venv="$cache/venv"
nltk_data="$cache/nltk_data"
punkt_sha=e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106

mkdir -p "$cache"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import lm_eval, langdetect, nltk, immutabledict, packaging, absl" 2>/dev/null; then
  echo "reference venv: already installed"
else
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-deps lm-eval || { echo "missing: lm-eval from PyPI" >&2; exit 2; }
  "$venv/bin/pip" install -q langdetect nltk immutabledict packaging absl-py \
    || { echo "missing: langdetect/nltk/immutabledict/packaging/absl-py" >&2; exit 2; }
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
