#!/usr/bin/env bash
# cascade side by side with NeMo Gym 0.7.0's own verifiers, in-process, on the same
# rows: instruction_following (IF-RL), ifbench, mcqa, structured_outputs,
# workplace_assistant, xlam_fc, single_step and math_with_judge's symbolic part.
# Prints agreement per subset and every difference; writes runs/gym/summary.json
# and runs/gym/<subset>.differences.jsonl (every difference, with its documented
# reason or NOT DOCUMENTED). Not part of CI.
#
#   scripts/compare/gym_all.sh VERIFIABLE_INSTRUCTIONS_CHECKOUT [--ifbench IFBENCH_CHECKOUT]
#                              [--rows N] [--only SUBSET,...] [--results DIR]
#
# verifiable_instructions (what Gym's instruction_following server imports) is not on
# PyPI: pass a checkout of the public repository abukharin-nv/verifiable-instructions.
# ifbench runs only with --ifbench: a checkout of allenai/IFBench at the commit Gym
# pins (c6767a19), its `download('en_core_web_sm')` line commented out as Gym's
# setup_ifbench does (spaCy, emoji, syllapy and unicodedata2 are then installed into
# the venv once); without it, ifbench is reported as not run.
# Installs the Gym venv once (gym_venv.sh) and NLTK's punkt_tab (ifeval_venv.sh).
# CASCADE_BIN picks an already built `cascade` (default: a release build, torch-free).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
vi="${1:?usage: gym_all.sh VERIFIABLE_INSTRUCTIONS_CHECKOUT [--ifbench DIR] [--rows N] [--only SUBSETS]}"
shift
[ -f "$vi/verifiable_instructions/instructions.py" ] || { echo "not a verifiable-instructions checkout: $vi" >&2; exit 2; }
vi="$(cd "$vi" && pwd)"
# shellcheck source=gym_venv.sh
. "$root/scripts/compare/gym_venv.sh"
# shellcheck source=ifeval_venv.sh
. "$root/scripts/compare/ifeval_venv.sh" >/dev/null
case " $* " in
  *" --ifbench "*)
    "$gym_python" -c 'import spacy, emoji, syllapy, unicodedata2' 2>/dev/null \
      || "$venv/bin/pip" install -q --ignore-requires-python spacy emoji syllapy unicodedata2 ;;
esac
cd "$root"
bin="${CASCADE_BIN:-}"
if [ -z "$bin" ]; then
  cargo build -q --release --no-default-features --bin cascade
  bin="${CARGO_TARGET_DIR:-$root/target}/release/cascade"
fi
NLTK_DATA="$nltk_data" "$gym_python" scripts/compare/gym_all.py "$bin" --vi "$vi" "$@"
