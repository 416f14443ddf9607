# shellcheck shell=bash
# Setup fragment for the `swe` environment, sourced by scripts/setup.
# The `native` test backend needs bubblewrap (confinement) and python3 (the runner);
# the applier cross-check script needs GNU patch. Idempotent: check, then install.

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

swe_setup
