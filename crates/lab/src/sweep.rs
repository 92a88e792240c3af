//! Running many scenarios: every point of a sweep, in parallel on a rayon
//! pool, into a results store, skipping what the store already holds so an
//! interrupted sweep resumes where it stopped.
//!
//! Results do not depend on the number of threads: each run is a pure
//! function of its scenario, and the store orders its table by run.

use std::path::Path;
use std::sync::Mutex;

use anyhow::Context;
use rayon::prelude::*;

use crate::output;
use crate::store::{run_id, RunRecord, Store};

/// The most threads a sweep may start; more than any machine's cores, and
/// few enough that asking for them cannot exhaust the process.
pub const MAX_JOBS: usize = 1024;

/// What a sweep did.
#[derive(Debug, Default)]
pub struct SweepReport {
    /// Points in the sweep.
    pub total: usize,
    /// Points already in the store.
    pub skipped: usize,
    /// Points run now.
    pub ran: usize,
    /// Points that failed, with why.
    pub failures: Vec<String>,
    /// Every point's run id, in the sweep's order.
    pub ids: Vec<String>,
}

/// Hears how a sweep progresses (a progress bar, a log). Every method has
/// an empty default; calls may come from several worker threads.
pub trait Progress: Sync {
    /// The sweep starts: `total` points, of which `skipped` are already recorded.
    fn start(&self, _total: usize, _skipped: usize) {}
    /// One point finished; `failure` says why if it failed.
    fn finished(&self, _failure: Option<&str>) {}
    /// Every point has finished.
    fn done(&self) {}
}

/// A [`Progress`] that says nothing.
pub struct Silent;
impl Progress for Silent {}

/// The number of parallel runs: `requested`, else one per core. Refuses 0
/// and anything above [`MAX_JOBS`], naming the `--jobs` flag.
pub fn jobs(requested: Option<usize>) -> anyhow::Result<usize> {
    match requested {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(0) => anyhow::bail!("--jobs: expected at least 1 parallel run, got 0"),
        Some(n) if n > MAX_JOBS => {
            anyhow::bail!("--jobs: expected at most {MAX_JOBS} parallel runs, got {n}")
        }
        Some(n) => Ok(n),
    }
}

/// Runs the points of `scenarios` not yet in the store at `out`, `jobs` at
/// a time, keeping each run's time series in the `series` format if given.
pub fn run_points(
    out: &Path,
    scenarios: Vec<(scenario::SweepPoint, scenario::Scenario)>,
    jobs: usize,
    series: Option<crate::table::Format>,
    progress: &dyn Progress,
) -> anyhow::Result<SweepReport> {
    anyhow::ensure!(
        (1..=MAX_JOBS).contains(&jobs),
        "jobs: expected 1 to {MAX_JOBS} parallel runs, got {jobs}"
    );
    let mut store = Store::open(out)?;
    let total = scenarios.len();
    let points: Vec<_> = scenarios
        .into_iter()
        .map(|(p, s)| (run_id(&s), p, s))
        .collect();
    let ids: Vec<String> = points.iter().map(|(id, _, _)| id.clone()).collect();
    store.limit_table_to(ids.iter().cloned());
    let todo: Vec<_> = points
        .into_iter()
        .filter(|(id, _, _)| !store.contains(id))
        .collect();
    let skipped = total - todo.len();
    progress.start(total, skipped);
    let failures = Mutex::new(Vec::new());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| {
        todo.par_iter().for_each(|(id, point, scenario)| {
            let outcome =
                crate::run::simulate_with(scenario, series.is_some()).and_then(|result| {
                    if let Some(format) = series {
                        let dir = store.run_dir(id);
                        std::fs::create_dir_all(&dir)
                            .with_context(|| format!("cannot create {}", dir.display()))?;
                        output::write_series(&dir, &result, format)?;
                    }
                    let record = RunRecord::new(
                        id.clone(),
                        point.params.clone(),
                        scenario.document.clone(),
                        serde_json::to_value(output::summary(scenario, &result))?,
                    );
                    store.record(record)
                });
            match outcome {
                Ok(()) => progress.finished(None),
                Err(e) => {
                    let why = format!("{point}: {e:#}");
                    progress.finished(Some(&why));
                    failures.lock().expect("failure list").push(why);
                }
            }
        });
    });
    progress.done();
    store.rewrite_table()?;
    let mut failures = failures.into_inner().expect("failure list");
    // Workers finish in any order; report failures in a stable one.
    failures.sort();
    Ok(SweepReport {
        total,
        skipped,
        ran: todo.len(),
        failures,
        ids,
    })
}

/// The most rows [`table`] prints; results.csv has them all.
pub const TABLE_ROWS: usize = 200;

/// The sweep's results as a text table, one row per recorded run in the
/// sweep's order: its parameters, then total goodput, the retransmission
/// ratio over all flows (retransmitted / delivered bytes), link
/// utilization, Jain's index and the worst flow's p95 RTT.
pub fn table(out: &Path, ids: &[String]) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let store = Store::open(out)?;
    let records: Vec<RunRecord> = ids.iter().filter_map(|id| store.get(id)).collect();
    let Some(first) = records.first() else {
        return Ok("no runs recorded\n".to_string());
    };
    let keys: Vec<&str> = first.params.iter().map(|(k, _)| k.as_str()).collect();
    let widths: Vec<usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            records
                .iter()
                .filter_map(|r| r.params.get(i).map(|(_, v)| v.label().len()))
                .chain([k.len()])
                .max()
                .unwrap_or(0)
                .min(40)
        })
        .collect();
    let mut text = String::new();
    for (k, w) in keys.iter().zip(&widths) {
        let _ = write!(text, "{k:w$}  ");
    }
    let _ = writeln!(
        text,
        "{:>13}  {:>8}  {:>7}  {:>6}  {:>12}",
        "goodput Mb/s", "retx %", "util %", "Jain", "rtt p95 ms"
    );
    for r in records.iter().take(TABLE_ROWS) {
        for ((_, v), w) in r.params.iter().zip(&widths) {
            let v: String = v.label().chars().take(*w).collect();
            let _ = write!(text, "{v:w$}  ");
        }
        let s = &r.summary;
        let flows = s["flows"].as_array().map(Vec::as_slice).unwrap_or_default();
        let sum = |key: &str| flows.iter().filter_map(|f| f[key].as_f64()).sum::<f64>();
        let delivered = sum("bytes_delivered");
        let retx = if delivered > 0.0 {
            100.0 * sum("bytes_retransmitted") / delivered
        } else {
            f64::NAN
        };
        let p95 = flows
            .iter()
            .filter_map(|f| f["rtt_ms"]["p95"].as_f64())
            .fold(f64::NAN, f64::max);
        let _ = writeln!(
            text,
            "{:>13.2}  {:>8.3}  {:>7.1}  {:>6.3}  {:>12.1}",
            sum("goodput_bps") / 1e6,
            retx,
            s["link"]["utilization"].as_f64().unwrap_or(f64::NAN) * 100.0,
            s["jain_index"].as_f64().unwrap_or(f64::NAN),
            p95
        );
    }
    if records.len() > TABLE_ROWS {
        let _ = writeln!(
            text,
            "... {} more rows in results.csv",
            records.len() - TABLE_ROWS
        );
    }
    Ok(text)
}

/// Runs `scenarios` `jobs` at a time without a store, for callers that
/// keep results themselves (the Python package): each run's summary (what
/// summary.json holds) or why it failed, in the order given.
pub fn run_all(
    scenarios: &[scenario::Scenario],
    jobs: usize,
) -> anyhow::Result<Vec<anyhow::Result<serde_json::Value>>> {
    anyhow::ensure!(
        (1..=MAX_JOBS).contains(&jobs),
        "jobs: expected 1 to {MAX_JOBS} parallel runs, got {jobs}"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("cannot start worker threads")?;
    Ok(pool.install(|| {
        scenarios
            .par_iter()
            .map(|scenario| {
                let result = crate::run::simulate_with(scenario, false)?;
                Ok(serde_json::to_value(output::summary(scenario, &result))?)
            })
            .collect()
    }))
}
