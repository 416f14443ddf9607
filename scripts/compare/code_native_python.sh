#!/usr/bin/env bash
# Peer 1: native python3, one subprocess per sample with a timeout (no sandbox), on the
# 164 canonical HumanEval solutions. Prints samples/s on 1 core and on all cores.
#   scripts/compare/code_native_python.sh [TIMEOUT_S]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="$("$here/code_humaneval_data.sh")"
python3 - "$data" "${1:-3}" <<'PY'
import json, os, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
data, timeout = sys.argv[1], float(sys.argv[2])
problems = [json.loads(l) for l in open(data) if l.strip()]
programs = [p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + "\n" + f"check({p['entry_point']})\n" for p in problems]
def run(src):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.py")
        open(path, "w").write(src)
        try:
            r = subprocess.run([sys.executable, path], cwd=d, capture_output=True, timeout=timeout)
            return r.returncode == 0
        except subprocess.TimeoutExpired:
            return False
for workers in (1, os.cpu_count() or 1):
    t = time.perf_counter()
    with ThreadPoolExecutor(workers) as ex:
        ok = sum(ex.map(run, programs))
    dt = time.perf_counter() - t
    print(f"native python3 subprocess: {workers} worker(s): {len(programs)/dt:.1f} samples/s, {ok}/{len(programs)} passed")
PY
