# The peer of `cascade bench-plugins`: the same reward function called the way TRL and
# verl call a Python reward function, in the trainer's own process with no sandbox.
# argv: SAMPLES.jsonl PLUGIN.py JOBS. Prints one JSON line of figures.
import importlib.util
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor


def load(path):
    spec = importlib.util.spec_from_file_location("plugin", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.verify


def timed(args):
    path, samples = args
    verify = load(path)
    latencies, rewards = [], []
    for sample in samples:
        started = time.perf_counter()
        rewards.append(float(verify(sample)))
        latencies.append(time.perf_counter() - started)
    return latencies, rewards


def main():
    samples_path, plugin, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(samples_path) as f:
        samples = [json.loads(line) for line in f]
    started = time.perf_counter()
    if jobs == 1:
        parts = [timed((plugin, samples))]
    else:
        # The GIL serialises threads: more than one core needs processes (verl's
        # reward workers), each with its own copy of the function.
        chunks = [samples[i::jobs] for i in range(jobs)]
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(timed, [(plugin, c) for c in chunks]))
    wall = time.perf_counter() - started
    latencies = sorted(l for part, _ in parts for l in part)
    total = sum(r for _, part in parts for r in part)
    print(json.dumps({
        "wall_s": wall,
        "p50_us": latencies[len(latencies) // 2] * 1e6,
        "p99_us": latencies[int(len(latencies) * 0.99)] * 1e6,
        "reward_sum": total,
    }))


if __name__ == "__main__":
    main()
