"""The Python API: runs, sweeps (local, resumable, on Dask), reproductions,
algorithms, errors, and the GIL released while simulating."""

import json
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

import bbrlab


def test_run_from_a_path_with_overrides(repo):
    r = bbrlab.run(repo / "scenarios/examples/bbr-shallow.toml", set={"flow.0.cc": "cubic", "duration": "8s"}, seed=2)
    assert r.summary["seed"] == 2
    assert list(r.flows["cc"]) == ["cubic"]
    assert {"goodput_bps", "retransmission_ratio", "rtt_p95_ms"} <= set(r.flows.columns)
    assert {"t_s", "flow", "cwnd", "bw_estimate_bps", "mode"} <= set(r.series.columns)
    assert {"t_s", "queue_bytes", "capacity_bps"} <= set(r.link.columns)
    assert len(r.series) > 100


def test_run_from_a_dict_and_from_text_agree(small):
    a = bbrlab.run(small)
    text = 'name = "small"\nduration = "6s"\nwarmup = "1s"\n[link]\nrate = "20Mbit"\nrtt = "40ms"\nbuffer = "1bdp"\n[[flow]]\ncc = "bbr"\n'
    b = bbrlab.run(text)
    assert a.flows.equals(b.flows)
    assert a.series.equals(b.series)


def test_a_dict_is_written_as_the_toml_it_describes(small):
    tomllib = pytest.importorskip("tomllib")
    scenario = {
        **small,
        "link": {**small["link"], "loss": {"model": "gilbert-elliott", "p": "1%", "r": "10%", "loss_bad": "30%"}},
        "flow": [{"cc": "bbr"}, {"cc": "cubic:beta=0.7", "count": 2}],
        "sweep": {"link.buffer": ("0.5bdp", "2bdp"), "seeds": [1, 2]},
    }
    expected = {**scenario, "sweep": {"link.buffer": ["0.5bdp", "2bdp"], "seeds": [1, 2]}}
    assert tomllib.loads(bbrlab._dict_to_toml(scenario)) == expected
    with pytest.raises(bbrlab.BbrlabError, match="cannot write it as TOML"):
        bbrlab._dict_to_toml({**small, "warmup": None})


def test_same_seed_same_results_other_seed_differs(small):
    small = {**small, "link": {**small["link"], "loss": "1%"}}
    a, b, c = bbrlab.run(small, seed=1), bbrlab.run(small, seed=1), bbrlab.run(small, seed=2)
    assert a.flows.equals(b.flows) and a.series.equals(b.series)
    assert not a.flows.equals(c.flows)


def test_errors_carry_the_command_lines_messages(repo, small):
    with pytest.raises(bbrlab.BbrlabError, match=r"link\.rate"):
        bbrlab.run({**small, "link": {**small["link"], "rate": "fast"}})
    with pytest.raises(bbrlab.BbrlabError, match="cannot read scenario file"):
        bbrlab.run(repo / "no-such.toml")
    with pytest.raises(bbrlab.BbrlabError, match=r"use bbrlab\.sweep\(\)"):
        bbrlab.run(repo / "scenarios/examples/buffer-sweep.toml")
    with pytest.raises(bbrlab.BbrlabError, match="flow.0.cc"):
        bbrlab.run(small, set={"flow.0.cc": "nosuch"})
    with pytest.raises(bbrlab.BbrlabError, match="expected a dict"):
        bbrlab.run(small, set=["flow.0.cc=cubic"])
    with pytest.raises(bbrlab.BbrlabError, match="--jobs: expected at least 1"):
        bbrlab.sweep(small, jobs=0)


def test_sweep_rows_follow_the_axes(small_sweep):
    df = bbrlab.sweep(small_sweep, jobs=2)
    assert len(df) == 8
    assert list(df.columns[:2]) == ["flow.0.cc", "link.buffer"]
    assert list(df["flow.0.cc"]) == ["bbr"] * 4 + ["cubic"] * 4
    assert list(df["seed"]) == [1, 2] * 4
    assert df["flow0_goodput_bps"].between(1e6, 20e6).all()
    assert df.groupby("flow.0.cc")["flow0_goodput_bps"].mean().shape == (2,)


def test_sweep_with_a_store_resumes(small_sweep, tmp_path):
    first = bbrlab.sweep(small_sweep, out=tmp_path / "store", jobs=2)
    records = sorted((tmp_path / "store" / "runs").glob("*.json"))
    assert len(records) == 8
    stamps = [r.stat().st_mtime_ns for r in records]
    again = bbrlab.sweep(small_sweep, out=tmp_path / "store", jobs=2)
    assert [r.stat().st_mtime_ns for r in records] == stamps, "nothing reran"
    assert first.equals(again)
    assert (tmp_path / "store" / "results.csv").exists()


def test_dask_sweep_is_identical_to_a_local_one(small_sweep, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = bbrlab.sweep(small_sweep, jobs=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = bbrlab.sweep(small_sweep, client=client)
            stored = bbrlab.sweep(small_sweep, client=client, out=tmp_path / "store")
            resumed = bbrlab.sweep(small_sweep, client=client, out=tmp_path / "store")
    same = [c for c in local.columns if c != "wall_time_s"]
    pd.testing.assert_frame_equal(local[same], remote[same])
    pd.testing.assert_frame_equal(local[same], stored[same])
    pd.testing.assert_frame_equal(stored, resumed)


def test_python_m_bbrlab_sweep_on_a_local_cluster(small_sweep, tmp_path, repo):
    pytest.importorskip("distributed")
    scenario = tmp_path / "sweep.toml"
    scenario.write_text(bbrlab._dict_to_toml(small_sweep))
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "bbrlab", "sweep", str(scenario), "--workers", "2", "--out", str(out), "--set", "duration=4s"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "8 runs; results in" in done.stdout
    assert len(list((out / "runs").glob("*.json"))) == 8
    bad = subprocess.run(
        [sys.executable, "-m", "bbrlab", "sweep", str(scenario), "--set", "nokey"],
        capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 2 and "expected KEY=VALUE" in bad.stderr


def test_algorithms_list_the_papers_controllers():
    algos = bbrlab.algorithms()
    names = set(algos["name"])
    assert {"cubic", "bbr", "bbr2", "bbr3", "obbr", "bbr-cws", "modest-bbr", "bbr-s", "b3r"} <= names
    mu = algos[(algos["name"] == "obbr") & (algos["param"] == "mu")]
    assert len(mu) == 1


def test_reproduce_quick_returns_its_claims(tmp_path):
    done = bbrlab.reproduce("quick", out=tmp_path / "quick", fast=True)
    assert done.report.exists()
    assert {"id", "paper_says", "ours", "tolerance", "verdict"} <= set(done.claims.columns)
    assert "obbr.fig7.five-fold" in set(done.claims["id"])
    with pytest.raises(bbrlab.BbrlabError, match="unknown suite"):
        bbrlab.reproduce("nosuch", out=tmp_path / "x")


def test_the_gil_is_released_while_simulating(small):
    long = {**small, "duration": "40s", "link": {**small["link"], "rate": "200Mbit"}}
    ticks = 0
    done = threading.Event()

    def simulate():
        bbrlab.run(long, series=False)
        done.set()

    worker = threading.Thread(target=simulate)
    start = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - start
    assert elapsed > 0.05, "the run must take long enough to measure"
    # With the GIL held for the whole run this loop could not tick at all.
    assert ticks > 10, (ticks, elapsed)


def test_decision_tree_picks_the_winner_per_condition(small):
    pytest.importorskip("sklearn")
    grid = {**small, "sweep": {"flow.0.cc": ["bbr", "cubic"], "link.loss": ["0", "2%"], "link.buffer": ["0.5bdp", "4bdp"]}}
    df = bbrlab.sweep(grid, jobs=2)
    tree, features, winners = bbrlab.decision_tree(df, ["link.loss", "link.buffer"])
    assert features == ["link.loss", "link.buffer"]
    assert len(winners) == 4
    # CUBIC collapses under 2% random loss; BBR does not.
    lossy = winners[winners["link.loss"] == "2%"]
    assert set(lossy["flow.0.cc"]) == {"bbr"}
    assert set(tree.classes_) <= {"bbr", "cubic"}
    with pytest.raises(bbrlab.BbrlabError, match="columns not in the results"):
        bbrlab.decision_tree(df, ["link.nosuch"])
