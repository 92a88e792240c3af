//! `bbrlab`: run congestion-control scenarios in the simulator.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod list;
mod model;
mod output;
mod reproduce;
mod run;
mod store;
mod sweep;

/// A laboratory for BBR-family congestion control.
#[derive(Parser, Debug)]
#[command(name = "bbrlab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one scenario file in the packet-level simulator.
    ///
    /// Prints a per-flow table and writes summary.json, flows.csv,
    /// series_flows.csv, series_link.csv and the effective scenario.toml
    /// to the output directory.
    Run(RunArgs),
    /// Run every point of a scenario's [sweep] table in parallel.
    ///
    /// Results go to a store in the output directory (runs/<id>.json per
    /// run, results.csv over this sweep's runs). Runs already recorded are
    /// skipped, so an interrupted sweep resumes where it stopped.
    Sweep(SweepArgs),
    /// Print the oBBR paper's buffer-occupancy model (Eq. 1): Q_r curves and
    /// converge points of a BBR flow sharing a buffer with loss-based flows.
    Model {
        /// cwnd gains g (comma-separated).
        #[arg(long, value_delimiter = ',', default_values_t = [1.0, 2.0])]
        g: Vec<f64>,
        /// Buffer sizes R in BDP (comma-separated).
        #[arg(long, value_delimiter = ',', default_values_t = [0.5, 1.0, 2.0, 4.0, 16.0])]
        r: Vec<f64>,
        /// Points of p in [0, 1] for the curves.
        #[arg(long, default_value_t = 11)]
        points: usize,
    },
    /// Reproduce a paper's experiments and write report.html.
    ///
    /// Runs every experiment of the suite (scenario files in
    /// scenarios/<suite>/) into results stores under the output directory,
    /// resuming what an earlier invocation recorded, then writes report.html.
    Reproduce {
        /// The suite (`bbrlab list suites`).
        suite: String,
        /// Output directory [default: out/<suite>, out/<suite>-fast with --fast].
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Shortened runs (each scenario's [fast] table), e.g. for CI.
        #[arg(long)]
        fast: bool,
        /// Parallel runs [default: all cores].
        #[arg(long, short)]
        jobs: Option<usize>,
        /// The scenarios directory [default: ./scenarios, else the repository's].
        #[arg(long)]
        scenarios: Option<PathBuf>,
    },
    /// Rebuild report.html from the results of `bbrlab reproduce` (no simulation).
    Report {
        /// The output directory of `bbrlab reproduce`.
        dir: PathBuf,
    },
    /// List what bbrlab knows.
    List {
        /// What to list.
        #[arg(value_enum, default_value_t = ListWhat::Algorithms)]
        what: ListWhat,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ListWhat {
    /// Congestion-control algorithms and their parameters.
    Algorithms,
    /// Reproduction suites and their experiments.
    Suites,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The scenario file (TOML; see docs/SCENARIOS.md).
    scenario: PathBuf,
    /// Output directory [default: out/<scenario name>].
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Override a scenario value by dotted path, e.g. `flow.0.cc=cubic`,
    /// `link.loss=1%`. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<scenario::Override>,
    /// Override the seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Do not write the time series.
    #[arg(long)]
    no_series: bool,
    /// Print only the summary JSON path (for scripts).
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    /// The scenario file with a [sweep] table (see docs/SCENARIOS.md).
    scenario: PathBuf,
    /// Output directory [default: out/<scenario name>-sweep].
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Parallel runs [default: all cores].
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Override a scenario value for every run (as for `run`). Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<scenario::Override>,
    /// Override the seed of every run (a `seed` sweep axis still wins).
    #[arg(long)]
    seed: Option<u64>,
    /// Also keep each run's time series (runs/<id>/series_*.csv).
    #[arg(long)]
    series: bool,
    /// Run the shortened experiment of the file's [fast] table.
    #[arg(long)]
    fast: bool,
}

fn main() -> ExitCode {
    // Like any Unix tool, end quietly when the reader of stdout goes away
    // (`bbrlab list | head`) instead of panicking on the broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::Model { g, r, points } => model::print(&g, &r, points),
        Command::Reproduce {
            suite,
            out,
            fast,
            jobs,
            scenarios,
        } => reproduce::reproduce(&suite, out, fast, jobs, scenarios.as_deref()),
        Command::Report { dir } => reproduce::rebuild(&dir),
        Command::List { what } => {
            list::list(what);
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
