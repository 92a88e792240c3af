//! `bbrlab`: run congestion-control scenarios in the simulator.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod list;
mod output;
mod run;

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
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
