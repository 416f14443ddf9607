# Sourced by scripts/setup: NeMo Gym's workplace state for the `workplace` env.
# Gym's workplace rows name Gym's own records (emails, events, tasks, customers), so
# they are scored from Gym's CSVs, which ship inside the nemo-gym wheel on PyPI (the
# same files in 0.4.0 and 0.7.0). The wheel is taken with no dependencies, pinned by
# version and sha256, and unpacked into $CASCADE_CACHE/runtimes/nemo-gym-0.7.0/; the
# env reads resources_servers/workplace_assistant/csv_data/ there
# (cascade_envs::workplace::gym_data_dir). nemo-gym 0.7.0 declares Python >= 3.13.14,
# which only matters to pip's resolver: nothing here runs its code.

GYM_WHEEL_VERSION=0.7.0
GYM_WHEEL_SHA=cce78fc3fd048f36b4c465fe8e9fe3cc5e7afb6f6e287bfe831f156988508a70
gym_wheel_dl="$CASCADE_CACHE/downloads"
if ! ls "$gym_wheel_dl"/nemo_gym-"$GYM_WHEEL_VERSION"-*.whl >/dev/null 2>&1; then
  say "downloading nemo-gym==$GYM_WHEEL_VERSION from PyPI (its workplace CSVs)"
  python3 -m pip download -q --no-deps --only-binary=:all: --ignore-requires-python \
    -d "$gym_wheel_dl" "nemo-gym==$GYM_WHEEL_VERSION" >&2 \
    || fail "could not download nemo-gym==$GYM_WHEEL_VERSION from PyPI"
fi
GYM_WHEEL_DIR="$(fetch_wheel nemo-gym "$GYM_WHEEL_VERSION" "$GYM_WHEEL_SHA")"
[ -f "$GYM_WHEEL_DIR/resources_servers/workplace_assistant/csv_data/processed/emails.csv" ] \
  || fail "nemo-gym wheel lacks resources_servers/workplace_assistant/csv_data ($GYM_WHEEL_DIR)"
