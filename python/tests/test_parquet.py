"""Parquet outputs: a run's time series and a sweep's results table, read by
pandas, polars and DuckDB with the same values as the CSV and the API."""

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pytest

import bbrlab


def test_a_runs_parquet_series_hold_what_the_api_returns(small, tmp_path):
    r = bbrlab.run(small, out=tmp_path / "run")
    path = tmp_path / "run" / "series_flows.parquet"
    assert path.is_file() and not (tmp_path / "run" / "series_flows.csv").exists()
    by_pandas = pd.read_parquet(path)
    pd.testing.assert_frame_equal(by_pandas, r.series, check_dtype=False)
    assert by_pandas["cwnd"].dtype.kind in "iu" and by_pandas["t_s"].dtype.kind == "f"
    by_polars = pl.read_parquet(path)
    assert by_polars.columns == list(r.series.columns)
    assert by_polars["cwnd"].to_list() == r.series["cwnd"].to_list()
    mean_cwnd = duckdb.execute(f"select avg(cwnd) from read_parquet('{path}')").fetchall()[0][0]
    assert mean_cwnd == pytest.approx(r.series["cwnd"].mean())
    link = pd.read_parquet(tmp_path / "run" / "series_link.parquet")
    pd.testing.assert_frame_equal(link, r.link, check_dtype=False)
    controller = pd.read_parquet(tmp_path / "run" / "series_controller.parquet")
    assert {"t_s", "flow", "name", "value"} <= set(controller.columns)


def test_csv_series_stay_available(small, tmp_path):
    r = bbrlab.run(small, out=tmp_path / "run", series_format="csv")
    csv = pd.read_csv(tmp_path / "run" / "series_flows.csv")
    pd.testing.assert_frame_equal(csv, r.series)
    with pytest.raises(bbrlab.BbrlabError, match="series_format: unknown table format"):
        bbrlab.run(small, out=tmp_path / "x", series_format="xlsx")


def test_a_sweeps_results_table_as_parquet(small_sweep, tmp_path):
    df = bbrlab.sweep(small_sweep, jobs=2, out=tmp_path / "store")
    table = pd.read_parquet(tmp_path / "store" / "results.parquet")
    csv = pd.read_csv(tmp_path / "store" / "results.csv")
    assert list(table.columns) == list(csv.columns)
    assert list(table["run_id"]) == list(csv["run_id"])
    for column in ["flow0_goodput_bps", "flow0_retransmission_ratio", "link_utilization"]:
        np.testing.assert_allclose(table[column].to_numpy(float), csv[column].to_numpy(float))
        np.testing.assert_allclose(table[column].to_numpy(float), df[column].to_numpy(float))
    assert list(table["flow0_cc"]) == list(df["flow0_cc"]), "text columns stay text"
    by_duckdb = duckdb.execute(f"select count(*) from read_parquet('{tmp_path / 'store' / 'results.parquet'}')").fetchall()[0][0]
    assert by_duckdb == len(df)
    assert pl.read_parquet(tmp_path / "store" / "results.parquet").height == len(df)
