#!/usr/bin/env bash
# Checks that vendor/wasmtime is exactly crates.io's wasmtime 48.0.8 plus
# vendor/wasmtime-48.0.8-pagemap.patch (vendor/README.md): the published crate (from
# cargo's download cache, else crates.io), checked against the registry index's
# checksum, unpacked without the files vendor/ drops, patched, and compared byte for
# byte. Prints nothing and exits 0 when equal; names every difference otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name=wasmtime version=48.0.8
# The checksum of wasmtime 48.0.8 in crates.io's registry index (its `cksum`).
sha256=a2afcadb2e7d0417cb8f3f322c66eff49338b288f22290c0ca0bd3e9570732aa
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

crate="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$name-$version.crate" 2>/dev/null | head -n1 || true)"
if [ -z "$crate" ]; then
  # Not in cargo's cache (the workspace builds the vendored copy): let cargo fetch the
  # published crate for a throwaway manifest that depends on it alone.
  mkdir -p "$work/fetch/src" && : > "$work/fetch/src/lib.rs"
  printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' \
    "$name" "$version" > "$work/fetch/Cargo.toml"
  cargo fetch -q --manifest-path "$work/fetch/Cargo.toml" >&2
  crate="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$name-$version.crate" | head -n1)"
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
