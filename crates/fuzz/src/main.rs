//! `bbrlab-fuzz`: long fuzz campaigns over bbrlab's inputs (see the `fuzz`
//! library and `scripts/fuzz.sh`). Prints a table per target and writes
//! every kept crashing input to a file; exits 1 if anything crashed.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use fuzz::{run_campaign, Target};

/// Fuzz bbrlab's scenario files, traces, spec strings and --set paths.
#[derive(Parser)]
#[command(version)]
struct Args {
    /// Inputs per target.
    #[arg(long, default_value_t = 10_000)]
    cases: u64,
    /// Seed of the input generator (a campaign is reproducible from it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Targets to run (repeatable): scenario, mahimahi, irish5g, spec, set-path. Default: all.
    #[arg(long = "target")]
    targets: Vec<Target>,
    /// Directory for crashing inputs (one file each).
    #[arg(long, default_value = "target/fuzz-crashes")]
    crashes: PathBuf,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let targets = if args.targets.is_empty() {
        Target::ALL.to_vec()
    } else {
        args.targets.clone()
    };
    println!(
        "| {:<9} | {:>9} | {:>9} | {:>7} | {:>8} | {:>13} |",
        "target", "cases", "accepted", "crashes", "wall s", "slowest ms"
    );
    println!(
        "|{:-<11}|{:->11}|{:->11}|{:->9}|{:->10}|{:->15}|",
        "", "", "", "", "", ""
    );
    let mut crashed = 0;
    for target in targets {
        let c = run_campaign(target, args.cases, args.seed);
        println!(
            "| {:<9} | {:>9} | {:>9} | {:>7} | {:>8.1} | {:>13.1} |",
            target.name(),
            c.cases,
            c.accepted,
            c.crash_count,
            c.wall.as_secs_f64(),
            c.slowest.as_secs_f64() * 1e3
        );
        for (i, crash) in c.crashes.iter().enumerate() {
            std::fs::create_dir_all(&args.crashes)
                .with_context(|| format!("cannot create {}", args.crashes.display()))?;
            let file = args
                .crashes
                .join(format!("{}-seed{}-{i}.txt", target.name(), args.seed));
            std::fs::write(&file, &crash.input)
                .with_context(|| format!("cannot write {}", file.display()))?;
            eprintln!("{crash}\nsaved as {}\n", file.display());
        }
        crashed += c.crash_count;
    }
    if crashed > 0 {
        anyhow::bail!("{crashed} crashing input(s)");
    }
    Ok(())
}
