//! `bbrlab._bbrlab`: the native half of the Python package. It exposes the
//! lab's machinery with plain Python values (strings, tuples, lists;
//! summaries as JSON text) and releases the GIL while it simulates; the
//! pure-Python half (`bbrlab/__init__.py`) turns results into pandas
//! DataFrames and distributes sweeps on Dask.
//!
//! Every error becomes `bbrlab.BbrlabError` carrying the message the
//! command line would print.

use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _bbrlab,
    BbrlabError,
    PyException,
    "A bbrlab error: a bad scenario, override, trace or argument, or a failed run. The message names the file, line or key and what was expected."
);

fn err(e: impl std::fmt::Display) -> PyErr {
    BbrlabError::new_err(e.to_string())
}

fn anyhow_err(e: anyhow::Error) -> PyErr {
    BbrlabError::new_err(format!("{e:#}"))
}

/// `--set`-style overrides, plus the seed.
fn overrides(set: Vec<(String, String)>, seed: Option<u64>) -> Vec<scenario::Override> {
    let mut all: Vec<_> = set
        .into_iter()
        .map(|(k, v)| scenario::Override::new(k, v))
        .collect();
    if let Some(seed) = seed {
        all.push(scenario::Override::seed(seed));
    }
    all
}

/// A sweep point's parameters, `(key, value)` in axis order, each value
/// as its label (`"0.25bdp"`): what the override carries and results
/// tables show.
type Params = Vec<(String, String)>;

/// A point's parameters as Python receives them: the values' labels.
fn labels(point: scenario::SweepPoint) -> Params {
    point
        .params
        .into_iter()
        .map(|(k, v)| (k, v.into_label()))
        .collect()
}

/// The scenario's points: `(params, effective document)` per run.
type Points = Vec<(Params, String)>;

/// Per point, `(params, summary JSON)`.
type Summaries = Vec<(Params, String)>;

/// An algorithm: `(name, summary, [(param, default, kind, doc)])`.
type AlgorithmRow = (String, String, Vec<(String, String, String, String)>);

/// Expands a scenario text (with or without a `[sweep]` table) into runs.
fn expand(
    text: &str,
    origin: &str,
    set: Params,
    seed: Option<u64>,
    fast: bool,
) -> Result<Vec<(scenario::SweepPoint, scenario::Scenario)>, PyErr> {
    let overrides = overrides(set, seed);
    let mut sweep = scenario::sweep_from_str(text, Path::new(origin), &overrides).map_err(err)?;
    if fast {
        sweep = sweep.fast().map_err(err)?;
    }
    sweep.scenarios().map_err(err)
}

/// Runs one scenario given as TOML text. `origin` names it in errors and
/// is where relative trace paths start. Returns the summary (JSON), and the
/// flow and link time series (CSV text) when `series` is set. With `out`,
/// also writes the run's outputs there as `bbrlab run --out` does, time
/// series in `series_format` ("parquet" or "csv").
#[pyfunction]
#[pyo3(signature = (text, origin, set, seed=None, series=true, out=None, series_format="parquet"))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    text: &str,
    origin: &str,
    set: Params,
    seed: Option<u64>,
    series: bool,
    out: Option<PathBuf>,
    series_format: &str,
) -> PyResult<(String, Option<String>, Option<String>)> {
    let format: lab::table::Format = series_format
        .parse()
        .map_err(|e: String| BbrlabError::new_err(format!("series_format: {e}")))?;
    let clock = lab::provenance::Clock::start(Some("Python: bbrlab.run(...)".to_string()), false);
    let overrides = overrides(set, seed);
    let sweep = scenario::sweep_from_str(text, Path::new(origin), &overrides).map_err(err)?;
    if !sweep.axes.is_empty() {
        return Err(BbrlabError::new_err(format!(
            "{origin}: has a [sweep] table ({} runs); use bbrlab.sweep()",
            sweep
                .count()
                .map_or("more than 2^64".to_string(), |n| n.to_string())
        )));
    }
    let scenario = scenario::from_str(text, Path::new(origin), &overrides).map_err(err)?;
    py.detach(|| -> anyhow::Result<_> {
        let result = lab::run::simulate_with(&scenario, series)?;
        if let Some(out) = &out {
            std::fs::create_dir_all(out).map_err(|e| {
                anyhow::anyhow!("cannot create output directory {}: {e}", out.display())
            })?;
            lab::output::write_all(
                out,
                &scenario,
                &result,
                lab::output::Mode::Simulated,
                series.then_some(format),
            )?;
            lab::provenance::write(out, &clock.finish(0))?;
        }
        let summary = serde_json::to_string(&lab::output::summary(&scenario, &result))?;
        if !series {
            return Ok((summary, None, None));
        }
        let (flows, link) = lab::output::series_csv(&result)?;
        Ok((summary, Some(flows), Some(link)))
    })
    .map_err(anyhow_err)
}

/// The runs of a scenario: `(params, effective document)` for each point
/// of its `[sweep]` (one point without parameters if it has none).
#[pyfunction]
#[pyo3(signature = (text, origin, set, seed=None, fast=false))]
fn points(
    text: &str,
    origin: &str,
    set: Params,
    seed: Option<u64>,
    fast: bool,
) -> PyResult<Points> {
    Ok(expand(text, origin, set, seed, fast)?
        .into_iter()
        .map(|(p, s)| (labels(p), s.document))
        .collect())
}

/// Runs effective documents (as `points` returns them, all from `origin`)
/// `jobs` at a time; returns each run's summary as JSON, in order. This is
/// what a Dask task calls on a batch of points.
#[pyfunction]
#[pyo3(signature = (documents, origin, jobs=1))]
fn run_documents(
    py: Python<'_>,
    documents: Vec<String>,
    origin: &str,
    jobs: usize,
) -> PyResult<Vec<String>> {
    let scenarios = documents
        .iter()
        .map(|d| scenario::from_str(d, Path::new(origin), &[]).map_err(err))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| -> anyhow::Result<Vec<String>> {
        lab::sweep::run_all(&scenarios, jobs)?
            .into_iter()
            .map(|r| Ok(serde_json::to_string(&r?)?))
            .collect()
    })
    .map_err(anyhow_err)
}

/// Runs a sweep on this machine, `jobs` at a time. With `out`, through the
/// results store there (resuming what it holds, like `bbrlab sweep`).
/// Returns `(params, summary JSON)` per point, in the sweep's order.
#[pyfunction]
#[pyo3(signature = (text, origin, set, seed=None, fast=false, jobs=None, out=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    text: &str,
    origin: &str,
    set: Params,
    seed: Option<u64>,
    fast: bool,
    jobs: Option<usize>,
    out: Option<PathBuf>,
) -> PyResult<Summaries> {
    let jobs = lab::sweep::jobs(jobs).map_err(anyhow_err)?;
    let runs = expand(text, origin, set, seed, fast)?;
    py.detach(|| -> anyhow::Result<_> {
        match out {
            Some(out) => {
                let clock = lab::provenance::Clock::start(Some(PYTHON_SWEEP.to_string()), fast);
                let params: Vec<_> = runs.iter().map(|(p, _)| labels(p.clone())).collect();
                let report = lab::sweep::run_points(&out, runs, jobs, None, &lab::sweep::Silent)?;
                lab::provenance::write(&out, &clock.finish(report.skipped))?;
                anyhow::ensure!(
                    report.failures.is_empty(),
                    "{} of {} runs failed: {}",
                    report.failures.len(),
                    report.total,
                    report.failures.join("; ")
                );
                let store = lab::store::Store::open(&out)?;
                params
                    .into_iter()
                    .zip(report.ids)
                    .map(|(p, id)| {
                        let record = store
                            .get(&id)
                            .ok_or_else(|| anyhow::anyhow!("run {id} has no record"))?;
                        Ok((p, serde_json::to_string(&record.summary)?))
                    })
                    .collect()
            }
            None => {
                let scenarios: Vec<_> = runs.iter().map(|(_, s)| s.clone()).collect();
                let results = lab::sweep::run_all(&scenarios, jobs)?;
                runs.into_iter()
                    .zip(results)
                    .map(|((p, _), r)| Ok((labels(p), serde_json::to_string(&r?)?)))
                    .collect()
            }
        }
    })
    .map_err(anyhow_err)
}

/// The command a sweep's invocation.json names when Python ran it.
const PYTHON_SWEEP: &str = "Python: bbrlab.sweep(...)";

/// Records a Dask sweep's invocation in the results store at `out`: it
/// started at `started` (UTC, RFC 3339) and took `wall_time_s`, reusing
/// `resumed_runs` recorded runs.
#[pyfunction]
fn write_invocation(
    out: PathBuf,
    started: String,
    fast: bool,
    wall_time_s: f64,
    resumed_runs: usize,
) -> PyResult<()> {
    let invocation = lab::provenance::Invocation::of_this_build(
        started,
        Some(format!("{PYTHON_SWEEP} on a Dask cluster")),
        fast,
        wall_time_s,
        resumed_runs,
    );
    lab::provenance::write(&out, &invocation).map_err(anyhow_err)
}

/// Which of `documents` the results store at `out` does not hold yet.
#[pyfunction]
fn missing(out: PathBuf, documents: Vec<String>, origin: &str) -> PyResult<Vec<usize>> {
    let store = lab::store::Store::open(&out).map_err(anyhow_err)?;
    documents
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let s = scenario::from_str(d, Path::new(origin), &[]).map_err(err)?;
            Ok((!store.contains(&lab::store::run_id(&s))).then_some(i))
        })
        .filter_map(|r| r.transpose())
        .collect()
}

/// Records finished runs `(params, document, summary JSON)` in the results
/// store at `out`, and returns each point's summary JSON in the order of
/// `documents` (read from the store).
#[pyfunction]
fn record(
    out: PathBuf,
    finished: Vec<(Params, String, String)>,
    documents: Vec<String>,
    origin: &str,
) -> PyResult<Vec<String>> {
    let mut store = lab::store::Store::open(&out).map_err(anyhow_err)?;
    let ids = documents
        .iter()
        .map(|d| {
            let s = scenario::from_str(d, Path::new(origin), &[]).map_err(err)?;
            Ok(lab::store::run_id(&s))
        })
        .collect::<PyResult<Vec<_>>>()?;
    store.limit_table_to(ids.iter().cloned());
    for (params, document, summary) in finished {
        let s = scenario::from_str(&document, Path::new(origin), &[]).map_err(err)?;
        let record = lab::store::RunRecord::new(
            lab::store::run_id(&s),
            params.into_iter().map(|(k, v)| (k, v.into())).collect(),
            s.document,
            serde_json::from_str(&summary).map_err(err)?,
        );
        store.record(record).map_err(anyhow_err)?;
    }
    store.rewrite_table().map_err(anyhow_err)?;
    ids.iter()
        .map(|id| {
            let record = store
                .get(id)
                .ok_or_else(|| BbrlabError::new_err(format!("run {id} has no record")))?;
            serde_json::to_string(&record.summary).map_err(err)
        })
        .collect()
}

/// A run summary (JSON) flattened to results.csv's columns (JSON).
#[pyfunction]
fn flatten(summary: &str) -> PyResult<String> {
    let value: serde_json::Value = serde_json::from_str(summary).map_err(err)?;
    serde_json::to_string(&lab::store::summary_columns(&value)).map_err(err)
}

/// Reproduces a paper suite into `out`; returns the report's path and the
/// claims table (JSON).
#[pyfunction]
#[pyo3(signature = (suite, out=None, fast=false, jobs=None))]
fn reproduce(
    py: Python<'_>,
    suite: &str,
    out: Option<PathBuf>,
    fast: bool,
    jobs: Option<usize>,
) -> PyResult<(String, String)> {
    let options = lab::reproduce::Options {
        series_format: lab::table::Format::default(),
        out,
        fast,
        jobs,
        scenarios: None,
        command: Some(format!(
            "bbrlab.reproduce({suite:?}, fast={})",
            if fast { "True" } else { "False" }
        )),
    };
    py.detach(|| -> anyhow::Result<_> {
        let done = lab::reproduce::reproduce(suite, &options, &lab::sweep::Silent)?;
        let dir = done
            .report
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let claims = std::fs::read_to_string(dir.join("claims.json"))?;
        anyhow::ensure!(done.failed_runs == 0, "{} runs failed", done.failed_runs);
        Ok((done.report.display().to_string(), claims))
    })
    .map_err(anyhow_err)
}

/// Every algorithm: `(name, summary, [(param, default, kind, doc)])`.
#[pyfunction]
fn algorithms() -> Vec<AlgorithmRow> {
    cc::algorithms()
        .iter()
        .map(|a| {
            let params = a
                .params
                .iter()
                .map(|p| {
                    (
                        p.name.to_string(),
                        p.default_text(),
                        p.kind.to_string(),
                        p.doc.to_string(),
                    )
                })
                .collect();
            (a.name.to_string(), a.summary.to_string(), params)
        })
        .collect()
}

/// The native module.
#[pymodule]
fn _bbrlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    lab::provenance::set_build_commit(build_info::COMMIT);
    m.add("BbrlabError", m.py().get_type::<BbrlabError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(points, m)?)?;
    m.add_function(wrap_pyfunction!(run_documents, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(missing, m)?)?;
    m.add_function(wrap_pyfunction!(record, m)?)?;
    m.add_function(wrap_pyfunction!(write_invocation, m)?)?;
    m.add_function(wrap_pyfunction!(flatten, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    Ok(())
}
