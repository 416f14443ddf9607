# shellcheck shell=bash
# Setup fragment for the `swe` environment, sourced by scripts/setup.
# - Real pytest for the test guests: the pure-Python wheels pinned (name, version,
#   sha256) in envs/src/swe/pytest_wheels.txt, downloaded from PyPI, checked and
#   unpacked into $CASCADE_CACHE/runtimes/NAME-VERSION/ by fetch_wheel; the `wasi`
#   and `native` backends mount them read-only.
# - The `native` test backend needs bubblewrap (confinement) and python3 (the runner);
#   the applier cross-check script needs GNU patch.
# Idempotent: check, then install.

swe_pytest_wheels() {
    local name version sha
    while read -r name version sha; do
        case "$name" in ''|'#'*) continue ;; esac
        fetch_wheel "$name" "$version" "$sha" >/dev/null
        [ -f "$CASCADE_CACHE/runtimes/$name-$version/.complete" ] \
            || fail "swe: the $name==$version wheel did not unpack into $CASCADE_CACHE/runtimes"
    done < "$CASCADE_ROOT/envs/src/swe/pytest_wheels.txt"
}

swe_setup() {
    local missing=()
    command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
    command -v python3 >/dev/null 2>&1 || missing+=(python3)
    command -v patch >/dev/null 2>&1 || missing+=(patch)
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "swe: bubblewrap, python3 and patch already installed"
    else
        echo "swe: installing ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}"; }; then
            echo "swe: could not install ${missing[*]} (apt-get failed); install them by hand" >&2
            return 1
        fi
    fi
    # bubblewrap needs unprivileged user namespaces; say so plainly when they are off.
    if ! bwrap --ro-bind / / --unshare-all true >/dev/null 2>&1; then
        echo "swe: bwrap is installed but cannot create a sandbox here (user namespaces disabled?);" >&2
        echo "swe: the native backend will not run; set CASCADE_SWE_SKIP_NATIVE=1 to skip its tests" >&2
        return 1
    fi
}

swe_pytest_wheels
swe_setup
