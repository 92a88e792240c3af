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
/// a time, keeping each run's time series when `series` is set.
pub fn run_points(
    out: &Path,
    scenarios: Vec<(scenario::SweepPoint, scenario::Scenario)>,
    jobs: usize,
    series: bool,
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
    store.limit_table_to(points.iter().map(|(id, _, _)| id.clone()));
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
            let outcome = crate::run::simulate(scenario).and_then(|result| {
                if series {
                    let dir = store.run_dir(id);
                    std::fs::create_dir_all(&dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                    output::write_series(&dir, &result)?;
                }
                let record = RunRecord {
                    id: id.clone(),
                    params: point.params.clone(),
                    scenario: scenario.document.clone(),
                    summary: serde_json::to_value(output::summary(scenario, &result))?,
                };
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
    })
}
