"""bbrlab from Python: BBR-family congestion control in a fast deterministic
packet-level simulator.

Runs and sweeps take a scenario file's path, its TOML text, or a dict with
the same structure (docs/SCENARIOS.md), and return pandas objects::

    import bbrlab
    r = bbrlab.run("scenarios/examples/bbr-shallow.toml", set={"flow.0.cc": "cubic"})
    r.summary["link"]["utilization"]      # the summary.json contents
    r.flows                               # one row per flow
    r.series                              # the time series, one row per sample and flow

    df = bbrlab.sweep("scenarios/examples/buffer-sweep.toml", jobs=2)
    df.groupby(["flow.0.cc", "link.buffer"])["flow0_goodput_bps"].mean()

With a ``dask.distributed.Client`` the runs of a sweep are spread over its
workers, with results identical to a local sweep (a run is a pure function
of its scenario and seed). Errors raise :class:`BbrlabError` with the
message the command line prints. The GIL is released while simulating.
"""

from __future__ import annotations

import io
import json
import os
import time
from datetime import datetime, timezone
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

import pandas as pd
import tomli_w

from . import _bbrlab
from ._bbrlab import BbrlabError

__all__ = [
    "BbrlabError",
    "RunResult",
    "Reproduction",
    "algorithms",
    "run",
    "sweep",
    "reproduce",
    "decision_tree",
    "__version__",
]

__version__ = _bbrlab.__version__

Source = Union[str, os.PathLike, Mapping[str, Any]]


@dataclass
class RunResult:
    """One run's results.

    Attributes:
        summary: the run's summary, as ``summary.json`` holds it (dict).
        flows: one row per flow (goodput, ratios, bytes, RTT percentiles).
        series: the time series of every flow (one row per sample and flow),
            empty when the run was made with ``series=False``.
        link: the bottleneck's time series (queue, capacity, forwarded bytes).
    """

    summary: dict
    flows: pd.DataFrame
    series: pd.DataFrame
    link: pd.DataFrame


@dataclass
class Reproduction:
    """A reproduced suite: where its report is, and its judged claims."""

    report: Path
    claims: pd.DataFrame


def _plain(value: Any) -> Any:
    """A scenario value with every mapping a dict and every tuple a list,
    the types the TOML writer takes."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _dict_to_toml(scenario: Mapping[str, Any]) -> str:
    """A scenario dict as TOML text (tomli_w: scalars first, then tables,
    then arrays of tables such as ``flow``)."""
    try:
        return tomli_w.dumps(_plain(scenario))
    except (TypeError, ValueError) as e:
        raise BbrlabError(f"scenario dict: cannot write it as TOML: {e}") from None


def _source(source: Source) -> tuple[str, str]:
    """(TOML text, origin) of a path, a TOML string or a dict. The origin
    names the scenario in errors and anchors relative trace paths."""
    if isinstance(source, Mapping):
        return _dict_to_toml(source), "<dict>"
    # A string holding a newline or "=" is TOML text; any other is a path.
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and "=" not in source):
        path = Path(source)
        try:
            return path.read_text(), str(path.resolve())
        except OSError as e:
            raise BbrlabError(f"{path}: cannot read scenario file: {e.strerror or e}") from None
    if isinstance(source, str):
        return source, "<string>"
    raise BbrlabError(f"expected a scenario path, TOML text or dict, got {type(source).__name__}")


def _overrides(set: Optional[Mapping[str, Any]]) -> list[tuple[str, str]]:
    if set is None:
        return []
    if not isinstance(set, Mapping):
        raise BbrlabError(f"set: expected a dict of KEY: VALUE overrides, got {type(set).__name__}")
    out = []
    for key, value in set.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        out.append((str(key), str(value)))
    return out


def _flows_frame(summary: dict) -> pd.DataFrame:
    rows = []
    for f in summary.get("flows", []):
        row = {k: v for k, v in f.items() if k != "rtt_ms"}
        for p, v in (f.get("rtt_ms") or {}).items():
            row[f"rtt_{p}_ms"] = v
        rows.append(row)
    return pd.DataFrame(rows)


def run(
    source: Source,
    set: Optional[Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    series: bool = True,
    out: Optional[Union[str, os.PathLike]] = None,
    series_format: str = "parquet",
) -> RunResult:
    """Runs one scenario in the simulator.

    Args:
        source: a scenario file's path, its TOML text, or a dict of the same
            structure.
        set: overrides by dotted path, as ``--set`` takes them, e.g.
            ``{"flow.0.cc": "cubic", "link.loss": "1%"}``.
        seed: overrides the scenario's seed.
        series: keep the time series (``RunResult.series`` and ``.link``).
        out: also write the run's outputs to this directory, as ``bbrlab
            run --out`` does (summary.json, flows.csv, the time series,
            scenario.toml, invocation.json); ``bbrlab report`` draws them.
        series_format: the written time series' format: ``"parquet"``
            (compressed; ``pd.read_parquet``, polars, DuckDB) or ``"csv"``.

    Returns:
        a :class:`RunResult`.

    Raises:
        BbrlabError: the scenario, an override or a trace is invalid (the
            message names the key and what was expected), or the scenario
            has a ``[sweep]`` table (use :func:`sweep`).

    Example::

        r = bbrlab.run({"name": "x", "duration": "10s",
                        "link": {"rate": "20Mbit", "rtt": "40ms", "buffer": "1bdp"},
                        "flow": [{"cc": "bbr"}]})
        print(r.flows[["cc", "goodput_bps"]])
    """
    text, origin = _source(source)
    summary, flows_csv, link_csv = _bbrlab.run(
        text, origin, _overrides(set), seed, series, os.fspath(out) if out is not None else None, series_format
    )
    summary = json.loads(summary)
    series_df = pd.read_csv(io.StringIO(flows_csv)) if flows_csv else pd.DataFrame()
    link_df = pd.read_csv(io.StringIO(link_csv)) if link_csv else pd.DataFrame()
    return RunResult(summary=summary, flows=_flows_frame(summary), series=series_df, link=link_df)


def _rows(points: Iterable[tuple[list, str]]) -> pd.DataFrame:
    rows = []
    for params, summary in points:
        row = {k: v for k, v in params if k != "seed"}
        row.update(json.loads(_bbrlab.flatten(summary)))
        rows.append(row)
    return pd.DataFrame(rows)


def _run_batch(documents: list[str], origin: str) -> list[str]:
    """A Dask task: run a batch of effective scenario documents."""
    from . import _bbrlab as native

    return native.run_documents(documents, origin, 1)


def sweep(
    source: Source,
    set: Optional[Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    fast: bool = False,
    jobs: Optional[int] = None,
    client: Any = None,
    out: Optional[Union[str, os.PathLike]] = None,
    batch: Optional[int] = None,
) -> pd.DataFrame:
    """Runs every point of a scenario's ``[sweep]`` table.

    Args:
        source: a scenario path, TOML text or dict with a ``[sweep]`` table
            (a scenario without one is a sweep of one point).
        set: overrides applied to every point.
        seed: overrides every point's seed (a ``seed`` axis still wins).
        fast: use the scenario's ``[fast]`` table (shortened runs).
        jobs: parallel runs on this machine [default: one per core].
        client: a ``dask.distributed.Client``: run the points on its
            workers instead (in batches of ``batch`` points per task).
        out: a results store directory, as ``bbrlab sweep --out`` writes
            it: points already recorded there are not run again, and new
            results are recorded.
        batch: points per Dask task [default: enough for about four tasks
            per worker, so scheduling overhead stays small for short runs].

    Returns:
        a DataFrame with one row per point in the sweep's order: the sweep's
        axes as columns (``seed`` among the metrics), then the columns of
        ``results.csv`` (link metrics, ``flow<i>_<metric>``).

    Example::

        df = bbrlab.sweep("scenarios/examples/buffer-sweep.toml", jobs=2)
        df.groupby("flow.0.cc")["flow0_retransmission_ratio"].mean()
    """
    text, origin = _source(source)
    overrides = _overrides(set)
    if client is None:
        return _rows(_bbrlab.sweep(text, origin, overrides, seed, fast, jobs, os.fspath(out) if out is not None else None))
    started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    clock = time.monotonic()
    points = _bbrlab.points(text, origin, overrides, seed, fast)
    documents = [doc for _, doc in points]
    todo = list(range(len(points)))
    if out is not None:
        todo = _bbrlab.missing(os.fspath(out), documents, origin)
    if batch is None:
        workers = max(1, len(client.scheduler_info().get("workers", {})) or 1)
        batch = max(1, -(-len(todo) // (4 * workers)))
    batches = [todo[i : i + batch] for i in range(0, len(todo), batch)]
    futures = client.map(_run_batch, [[documents[i] for i in b] for b in batches], origin=origin, pure=True)
    finished: dict[int, str] = {}
    for b, result in zip(batches, client.gather(futures)):
        finished.update(zip(b, result))
    if out is not None:
        summaries = _bbrlab.record(
            os.fspath(out),
            [(points[i][0], documents[i], s) for i, s in sorted(finished.items())],
            documents,
            origin,
        )
        _bbrlab.write_invocation(os.fspath(out), started, fast, time.monotonic() - clock, len(points) - len(todo))
    else:
        summaries = [finished[i] for i in range(len(points))]
    return _rows((params, s) for (params, _), s in zip(points, summaries))


def reproduce(suite: str, out: Optional[Union[str, os.PathLike]] = None, fast: bool = False, jobs: Optional[int] = None) -> Reproduction:
    """Reproduces one paper suite (``bbrlab.algorithms()`` lists controllers;
    the suites are ``quick``, ``obbr``, ``cws``, ``bbr2``) into ``out``
    [default: out/<suite>, out/<suite>-fast with ``fast``], resuming what it
    holds, and writes its report.

    Returns:
        a :class:`Reproduction`: the report's path and the judged claims
        (paper's number, ours, tolerance, verdict) as a DataFrame.
    """
    report, claims = _bbrlab.reproduce(suite, os.fspath(out) if out is not None else None, fast, jobs)
    return Reproduction(report=Path(report), claims=pd.DataFrame(json.loads(claims)))


def algorithms() -> pd.DataFrame:
    """Every congestion-control algorithm and its parameters, one row per
    parameter (an algorithm without parameters has one row with ``param``
    empty). Use them in spec strings such as ``"obbr:mu=0.75"``."""
    rows = []
    for name, summary, params in _bbrlab.algorithms():
        if not params:
            rows.append({"name": name, "summary": summary, "param": None, "default": None, "kind": None, "doc": None})
        for param, default, kind, doc in params:
            rows.append({"name": name, "summary": summary, "param": param, "default": default, "kind": kind, "doc": doc})
    return pd.DataFrame(rows)


def decision_tree(results: pd.DataFrame, conditions: list[str], by: str = "flow.0.cc", metric: str = "flow0_goodput_bps", max_depth: int = 3):
    """Fits a decision tree (Drucker et al.'s Fig. 1) that predicts which
    controller wins ``metric`` (highest mean over seeds) from the link
    ``conditions`` (sweep axes, e.g. ``["link.rate", "link.buffer",
    "link.loss"]``).

    Returns ``(tree, features, table)``: the fitted
    ``sklearn.tree.DecisionTreeClassifier``, the feature names, and the
    per-condition winners it was fitted on. Draw it with
    ``sklearn.tree.plot_tree(tree, feature_names=features, class_names=tree.classes_)``.
    Needs scikit-learn (``pip install 'bbrlab[tree]'``).
    """
    from sklearn.tree import DecisionTreeClassifier

    missing = [c for c in [*conditions, by, metric] if c not in results.columns]
    if missing:
        raise BbrlabError(f"decision_tree: columns not in the results: {', '.join(missing)} (have: {', '.join(results.columns)})")
    means = results.groupby([*conditions, by], sort=False)[metric].mean().reset_index()
    winners = means.loc[means.groupby(conditions, sort=False)[metric].idxmax()].reset_index(drop=True)
    features = pd.DataFrame({c: winners[c].map(_number) for c in conditions})
    tree = DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    tree.fit(features.values, winners[by].values)
    return tree, list(conditions), winners


def _number(value: Any) -> float:
    """A sweep value as a number for the tree: "20Mbit" -> 2e7, "2%" ->
    0.02, "0.5bdp" -> 0.5, "40ms" -> 0.04."""
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip().lower()
    for suffix, scale in [
        ("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0),
        ("bdp", 1.0), ("%", 0.01), ("ms", 1e-3), ("us", 1e-6), ("s", 1.0),
        ("mb", 1e6), ("kb", 1e3), ("pkt", 1.0), ("b", 1.0),
    ]:
        if text.endswith(suffix):
            try:
                return float(text[: -len(suffix)]) * scale
            except ValueError:
                break
    try:
        return float(text)
    except ValueError:
        raise BbrlabError(f"decision_tree: cannot read {value!r} as a number (expected e.g. 20Mbit, 2%, 0.5bdp, 40ms)") from None
