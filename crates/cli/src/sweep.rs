//! `bbrlab sweep`: every point of a scenario's `[sweep]` into a results
//! store (see `lab::sweep`), resuming where an earlier invocation stopped.

use std::path::PathBuf;

use crate::progress::Bar;
use crate::SweepArgs;

pub fn sweep(args: SweepArgs) -> anyhow::Result<()> {
    let clock = lab::provenance::Clock::start(Some(crate::command_line()), args.fast);
    let jobs = lab::sweep::jobs(args.jobs)?;
    let mut overrides = args.set.clone();
    if let Some(seed) = args.seed {
        overrides.push(scenario::Override::seed(seed));
    }
    let mut sweep = scenario::load_sweep(&args.scenario, &overrides)?;
    if args.fast {
        sweep = sweep.fast()?;
    }
    let scenarios = sweep.scenarios()?;
    for (_, scenario) in &scenarios {
        scenario.check_simulable()?;
    }
    let name = scenarios
        .first()
        .map(|(_, s)| s.name.clone())
        .unwrap_or_default();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(format!("{name}-sweep")));
    let report = lab::sweep::run_points(
        &out,
        scenarios,
        jobs,
        args.series.then_some(args.series_format),
        &Bar::default(),
    )?;
    lab::provenance::write(&out, &clock.finish(report.skipped))?;
    print!("{}", lab::sweep::table(&out, &report.ids)?);
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
