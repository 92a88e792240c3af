"""``python -m bbrlab sweep FILE``: run a sweep on a Dask cluster.

    python -m bbrlab sweep scenarios/examples/buffer-sweep.toml --scheduler tcp://10.0.0.5:8786 --out out/buffer-sweep
    python -m bbrlab sweep FILE                  # a LocalCluster on this machine

Without ``--scheduler`` a ``LocalCluster`` with one worker process per core
runs the sweep. The results go to a results store (``--out``, resumable,
the same layout as ``bbrlab sweep``) and the table is printed. Trace files
named by the scenario must exist at the same path on every worker.
"""

from __future__ import annotations

import argparse
import sys

import bbrlab


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bbrlab", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sweep = commands.add_parser("sweep", help="run a scenario's [sweep] on a Dask cluster")
    sweep.add_argument("scenario", help="the scenario file with a [sweep] table")
    sweep.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://HOST:PORT); default: a LocalCluster")
    sweep.add_argument("--workers", type=int, default=None, help="LocalCluster worker processes [default: one per core]")
    sweep.add_argument("--out", help="results store directory [default: out/<scenario name>-sweep]")
    sweep.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a value for every run (repeatable)")
    sweep.add_argument("--seed", type=int, help="override every run's seed")
    sweep.add_argument("--fast", action="store_true", help="use the scenario's [fast] table")
    args = parser.parse_args(argv)

    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"--set {item!r}: expected KEY=VALUE")
        overrides[key] = value
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("error: Dask is not installed: pip install 'bbrlab[dask]'", file=sys.stderr)
        return 1
    out = args.out
    if out is None:
        import pathlib

        out = str(pathlib.Path("out") / f"{pathlib.Path(args.scenario).stem}-sweep")
    cluster = None
    try:
        if args.scheduler:
            client = Client(args.scheduler, timeout="30s")
        else:
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
        with client:
            df = bbrlab.sweep(args.scenario, set=overrides, seed=args.seed, fast=args.fast, client=client, out=out)
    except bbrlab.BbrlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: cannot reach the Dask scheduler {args.scheduler}: {e}", file=sys.stderr)
        return 1
    finally:
        if cluster is not None:
            cluster.close()
    print(df.to_string(max_rows=200))
    print(f"{len(df)} runs; results in {out}/results.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
