#!/usr/bin/env bash
# Checks that vendor/wasmtime is exactly crates.io's wasmtime 48.0.8 plus
# vendor/wasmtime-48.0.8-pagemap.patch (vendor/README.md): the published crate (from
# cargo's download cache, else crates.io), checked against the registry index's
# checksum, unpacked without the files vendor/ drops, patched, and compared byte for
# byte. Prints nothing and exits 0 when equal; names every difference otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=wasmtime version=48.0.8
# crates.io's index entry for wasmtime 48.0.8 (https://index.crates.io/wa/sm/wasmtime).
sha256=a2afcadb2e7d0417cb8f3f322c66eff49338b288f22290c0ca0bd3e9570732aa
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

crate="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$name-$version.crate" 2>/dev/null | head -n1 || true)"
if [ -z "$crate" ]; then
  crate="$work/$name-$version.crate"
  curl -sSfL -o "$crate" "https://static.crates.io/crates/$name/$name-$version.crate"
fi
echo "$sha256  $crate" | sha256sum --check --quiet -

tar -xzf "$crate" -C "$work"
upstream="$work/$name-$version"
rm -f "$upstream"/{.cargo_vcs_info.json,.cargo-ok,Cargo.lock,Cargo.toml.orig}
patch --quiet --batch --forward -p1 -d "$upstream" < "$root/vendor/$name-$version-pagemap.patch"
if ! diff -r "$upstream" "$root/vendor/$name"; then
  echo "vendor/$name differs from crates.io $name $version plus vendor/$name-$version-pagemap.patch" >&2
  exit 1
fi
