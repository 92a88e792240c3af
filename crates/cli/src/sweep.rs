//! `bbrlab sweep`: run every point of a scenario's `[sweep]` in parallel
//! into a results store, resuming where an earlier invocation stopped.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::output;
use crate::store::{run_id, RunRecord, Store};
use crate::SweepArgs;

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

pub fn sweep(args: SweepArgs) -> anyhow::Result<()> {
    let mut overrides = args.set.clone();
    if let Some(seed) = args.seed {
        overrides.push(scenario::Override::seed(seed));
    }
    let mut sweep = scenario::load_sweep(&args.scenario, &overrides)?;
    if args.fast {
        sweep = sweep.fast()?;
    }
    let scenarios = sweep.scenarios()?;
    let name = scenarios
        .first()
        .map(|(_, s)| s.name.clone())
        .unwrap_or_default();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(format!("{name}-sweep")));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let report = run_points(&out, scenarios, jobs, args.series)?;
    println!(
        "{}: {} runs ({} already recorded, {} run now, {} failed); results in {}",
        name,
        report.total,
        report.skipped,
        report.ran,
        report.failures.len(),
        out.join("results.csv").display()
    );
    if !report.failures.is_empty() {
        for f in &report.failures {
            eprintln!("failed: {f}");
        }
        anyhow::bail!("{} of {} runs failed", report.failures.len(), report.total);
    }
    Ok(())
}

/// Runs the points not yet in the store at `out` with `jobs` threads.
pub fn run_points(
    out: &std::path::Path,
    scenarios: Vec<(scenario::SweepPoint, scenario::Scenario)>,
    jobs: usize,
    series: bool,
) -> anyhow::Result<SweepReport> {
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
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, ETA {eta} {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    bar.set_position(skipped as u64);
    let failed = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| {
        todo.par_iter().for_each(|(id, point, scenario)| {
            let outcome =
                std::panic::catch_unwind(|| sim::Simulation::new(scenario.config.clone()).run())
                    .map_err(|panic| {
                        let what = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "unknown panic".to_string());
                        anyhow::anyhow!("simulation panicked: {what}")
                    })
                    .and_then(|result| {
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
            if let Err(e) = outcome {
                let n = failed.fetch_add(1, Ordering::Relaxed) + 1;
                bar.set_message(format!("({n} failed)"));
                failures
                    .lock()
                    .expect("failure list")
                    .push(format!("{point}: {e:#}"));
            }
            bar.inc(1);
        });
    });
    bar.finish_and_clear();
    store.rewrite_table()?;
    Ok(SweepReport {
        total,
        skipped,
        ran: todo.len(),
        failures: failures.into_inner().expect("failure list"),
    })
}
