"""Benchmark: a sweep of many short runs, local (rayon) against a Dask
LocalCluster of worker processes. Prints a table; docs/BENCHMARKS.md
records it.

    target/python-venv/bin/python python/bench/dask_vs_local.py [--runs 1000] [--workers 2]
"""

import argparse
import time

import bbrlab


def scenario(runs: int) -> dict:
    return {
        "name": "short-runs",
        "duration": "2s",
        "warmup": "0.5s",
        "link": {"rate": "10Mbit", "rtt": "20ms", "buffer": "1bdp"},
        "flow": [{"cc": "bbr"}],
        "sweep": {"flow.0.cc": ["bbr", "cubic"], "seeds": list(range(1, runs // 2 + 1))},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    from dask.distributed import Client, LocalCluster

    s = scenario(args.runs)
    t = time.perf_counter()
    local = bbrlab.sweep(s, jobs=args.workers)
    local_s = time.perf_counter() - t
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            client.run(lambda: __import__("bbrlab"))  # workers import the package before timing
            t = time.perf_counter()
            remote = bbrlab.sweep(s, client=client)
            dask_s = time.perf_counter() - t
    same = [c for c in local.columns if c != "wall_time_s"]
    identical = local[same].equals(remote[same])
    print(f"| runs | workers | local (rayon) s | Dask LocalCluster s | ratio | identical |")
    print(f"|---|---|---|---|---|---|")
    print(f"| {len(local)} | {args.workers} | {local_s:.2f} | {dask_s:.2f} | {dask_s / local_s:.2f} | {identical} |")


if __name__ == "__main__":
    main()
