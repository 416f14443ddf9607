# Sourced by scripts/setup (which defines say, fail, CASCADE_CACHE, CASCADE_TORCH_VENV
# and exports LIBTORCH_USE_PYTORCH=1 + the venv's python first on PATH for tch's build).
#
# The trainer (cascade-trainer, on tch 0.24 = libtorch 2.11) needs:
#   - the torch + transformers venv that scripts/setup creates (libtorch for the build
#     and run time; transformers for the parity tests). The binaries carry an rpath to
#     its torch/lib (trainer/build.rs, build.rs), so no LD_LIBRARY_PATH at run time.
#   - optionally, for scripts/compare/trl_grpo.sh only, a TRL venv layered on it:
#     CASCADE_WITH_TRL=1 scripts/setup (kept out of CI: nothing there needs TRL).
TRL_VERSION="${TRL_VERSION:-1.16.0}"
export CASCADE_TRL_VENV="$CASCADE_CACHE/venv-trl-$TRL_VERSION"

if "$CASCADE_TORCH_VENV/bin/python" -c 'import torch, transformers, safetensors' 2>/dev/null; then
  say "trainer: torch venv already installed ($CASCADE_TORCH_VENV)"
else
  fail "trainer: torch/transformers/safetensors do not import from $CASCADE_TORCH_VENV; delete it and re-run scripts/setup"
fi

# install_trl_venv: a venv that sees the torch venv's packages (through a .pth file)
# and adds TRL and what it needs, without touching the torch venv itself.
install_trl_venv() {
  local marker="$CASCADE_TRL_VENV/.complete"
  if [ -f "$marker" ] && [ "$(cat "$marker")" = "trl==$TRL_VERSION" ]; then
    say "trainer: TRL venv (trl==$TRL_VERSION) already installed"
    return
  fi
  say "trainer: creating the TRL venv in $CASCADE_TRL_VENV"
  "$CASCADE_TORCH_VENV/bin/python" -m venv "$CASCADE_TRL_VENV" || fail "python -m venv failed for $CASCADE_TRL_VENV"
  local site torch_site
  site="$("$CASCADE_TRL_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  torch_site="$("$CASCADE_TORCH_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$torch_site" > "$site/cascade-torch-venv.pth"
  "$CASCADE_TRL_VENV/bin/python" -m pip install -q "trl==$TRL_VERSION" >&2 \
    || fail "pip could not install trl==$TRL_VERSION into $CASCADE_TRL_VENV"
  "$CASCADE_TRL_VENV/bin/python" -c 'import trl' || fail "trl does not import in $CASCADE_TRL_VENV"
  echo "trl==$TRL_VERSION" > "$marker"
}

if [ "${CASCADE_WITH_TRL:-0}" = "1" ]; then
  install_trl_venv
fi
