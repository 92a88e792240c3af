//! `bbrlab`: the command line of the lab. Argument parsing and printing
//! only; the experiment machinery is the `lab` library.

// The doc comments of the command line's types are its `--help` text,
// written for a terminal (`<suite>`, `[fast]`), not for rustdoc.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod emu;
mod league;
mod list;
mod progress;
mod quic;
mod run;
mod shell;
mod sweep;

/// A laboratory for BBR-family congestion control: faithful controllers
/// (CUBIC, BBRv1-v3, oBBR, BBR-CWS, Modest BBR, adaptive BBRv2, BBR-S, B3R)
/// and a fast, deterministic packet-level simulator to run scenarios,
/// parallel sweeps and the papers' reproduction suites with HTML reports.
#[derive(Parser, Debug)]
#[command(name = "bbrlab", version, long_about = None, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one scenario file in the packet-level simulator.
    ///
    /// Prints a per-flow table and writes summary.json, flows.csv, the time
    /// series (series_flows, series_link, series_controller: Parquet, or
    /// CSV with --series-format csv) and the effective scenario.toml to the
    /// output directory.
    Run(RunArgs),
    /// Relay UDP through an emulated link in real time, like mm-link.
    ///
    /// Clients send to --listen; datagrams go to --forward through the
    /// uplink, and the server's replies come back through the link (rate,
    /// buffer, loss and delay of the simulator's model) to the client.
    /// The link comes from a scenario file's [link] or from the options.
    Emu(emu::EmuArgs),
    /// Run a command whose every IP packet crosses an emulated link, like
    /// mahimahi's mm-link and mm-delay: TCP, UDP, QUIC, any program.
    ///
    /// The command runs in a network namespace of its own; it reaches the
    /// outside at the address printed (and in $BBRLAB_BASE), and programs
    /// outside reach its servers at the inside address. Packets going in
    /// cross the link (rate, trace, buffer, token bucket, loss) and half
    /// the RTT; packets going out cross --uplink and the other half. Needs
    /// root (CAP_NET_ADMIN, /dev/net/tun). Exits with the command's status.
    Shell(shell::ShellArgs),
    /// Serve sized and bulk transfers and live streams over QUIC (s2n-quic),
    /// every connection driven by a bbrlab controller; to HTTP/3 clients
    /// (ALPN h3, e.g. curl --http3 or a browser), files under --root, a
    /// generated DASH video (/dash/manifest.mpd) and live streams
    /// (/live?bitrate=5Mbit&duration=30s).
    ///
    /// Without --cert/--key a self-signed certificate for localhost is
    /// generated and written to --cert-out for clients to trust.
    Serve(quic::ServeArgs),
    /// Fetch from a `bbrlab serve`: a sized transfer or a live stream, and
    /// print what arrived (bytes, goodput, frame delays) as JSON.
    Get(quic::GetArgs),
    /// Run every point of a scenario's [sweep] table in parallel.
    ///
    /// Results go to a store in the output directory (runs/<id>.json per
    /// run, results.csv over this sweep's runs). Runs already recorded are
    /// skipped, so an interrupted sweep resumes where it stopped.
    Sweep(SweepArgs),
    /// Every registered controller over the league's conditions, scored and ranked.
    ///
    /// Runs each condition (scenarios/league/*.toml) with every controller
    /// `bbrlab list` shows (and their declared variants) on three seeds,
    /// into a resumable results store; writes scores.csv/.parquet (every
    /// run's scores), aggregate.csv/.parquet and report.html (scoreboard,
    /// rankings, Pareto plots). See docs/LEAGUE.md.
    League(league::LeagueArgs),
    /// Recommend a controller for your path: every controller runs on it.
    ///
    /// The path is a scenario file, a trace (--trace) or --rate/--rtt/
    /// --buffer/--loss, optionally with CUBIC cross traffic (--cubic) or a
    /// live or DASH application (--app). Prints the recommendation with
    /// its numbers and the runner-up; writes advice.json and report.html.
    Advise(league::AdviseArgs),
    /// Print the oBBR paper's buffer-occupancy model (Eq. 1): Q_r curves and
    /// converge points of a BBR flow sharing a buffer with loss-based flows.
    Model {
        /// cwnd gains g (comma-separated).
        #[arg(long, value_delimiter = ',', default_values_t = [1.0, 2.0])]
        g: Vec<f64>,
        /// Buffer sizes R in BDP (comma-separated).
        #[arg(long, value_delimiter = ',', default_values_t = [0.5, 1.0, 2.0, 4.0, 16.0])]
        r: Vec<f64>,
        /// Points of p in [0, 1] for the curves (2 to 10001).
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
        /// Format of the time series kept for the analyses: parquet
        /// (compressed, the default) or csv.
        #[arg(long, value_name = "FORMAT", default_value_t = lab::table::Format::Parquet)]
        series_format: lab::table::Format,
    },
    /// Run an experiment file: its sweep, measures and claims (docs/EXPERIMENTS.md).
    ///
    /// Runs the file's sweep into a results store under the output
    /// directory (resuming what an earlier invocation recorded), judges its
    /// claims and writes report.html, claims.json and sections.json as
    /// `reproduce` does; prints each claim's verdict and the file's sha256.
    Experiment {
        /// The experiment file (TOML).
        file: PathBuf,
        /// Output directory [default: out/experiments/<id>, <id>-fast with --fast].
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Shortened runs (the sweep's [fast] table).
        #[arg(long)]
        fast: bool,
        /// Parallel runs [default: all cores].
        #[arg(long, short)]
        jobs: Option<usize>,
        /// The scenarios directory, for a file's `scenario` [default: ./scenarios, else the repository's].
        #[arg(long)]
        scenarios: Option<PathBuf>,
        /// Format of the time series kept for the measures that need them.
        #[arg(long, value_name = "FORMAT", default_value_t = lab::table::Format::Parquet)]
        series_format: lab::table::Format,
    },
    /// Write report.html for the output of `run`, `sweep` or `reproduce` (no simulation).
    ///
    /// A run: the summary and time-series plots per flow. A sweep: results
    /// in the sweep's order with mean and spread over seeds, each metric
    /// against each axis, throughput against delay. A reproduction: the
    /// suite's report, rebuilt from its stores.
    Report {
        /// An output directory of `bbrlab run`, `sweep` or `reproduce`.
        dir: PathBuf,
    },
    /// Compare runs side by side: summary differences and overlaid time series.
    Compare {
        /// Output directories of `bbrlab run` (the first is the baseline).
        #[arg(required = true, num_args = 2..)]
        dirs: Vec<PathBuf>,
        /// Where to write compare.html [default: out/compare].
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Print the claims judged by one or more `bbrlab reproduce` outputs,
    /// or write them as the reproduction document.
    ///
    /// Reads each directory's claims.json and sections.json (written with
    /// report.html). With --markdown, writes the document that
    /// docs/REPRODUCTION.md is (default-fidelity outputs only).
    Claims {
        /// Output directories of `bbrlab reproduce`, one per suite.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Write the markdown document to this file.
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
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
    /// Format of the time series: parquet (compressed, the default) or csv.
    #[arg(long, value_name = "FORMAT", default_value_t = lab::table::Format::Parquet)]
    series_format: lab::table::Format,
    /// Print only the summary JSON path (for scripts).
    #[arg(long, short)]
    quiet: bool,
    /// Run in real time instead: a real s2n-quic server and client per
    /// flow on loopback, through the link emulator; same outputs, with
    /// "mode": "emulated" in summary.json (see docs/EMULATION.md). A flow
    /// with cc = "linux:NAME" is the kernel's TCP: the whole run then goes
    /// through the emulator's shell (a network namespace; needs root).
    #[arg(long)]
    emulate: bool,
    /// Write a qlog trace per connection (sender side) into this directory,
    /// for qvis.
    #[arg(long, value_name = "DIR")]
    qlog: Option<PathBuf>,
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
    /// A key that is a [sweep] axis is an error: edit the axis instead.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<scenario::Override>,
    /// Override the seed of every run (an error if `seed` is a sweep axis).
    #[arg(long)]
    seed: Option<u64>,
    /// Also keep each run's time series (runs/<id>/series_*).
    #[arg(long)]
    series: bool,
    /// Format of the kept time series: parquet (compressed, the default) or csv.
    #[arg(long, value_name = "FORMAT", default_value_t = lab::table::Format::Parquet)]
    series_format: lab::table::Format,
    /// Run the shortened experiment of the file's [fast] table.
    #[arg(long)]
    fast: bool,
}

/// `bbrlab reproduce`: runs the suite, printing each experiment's line and
/// the report's path; fails if any run failed or any experiment could not run.
fn reproduce(
    suite: &str,
    out: Option<PathBuf>,
    fast: bool,
    jobs: Option<usize>,
    scenarios: Option<PathBuf>,
    series_format: lab::table::Format,
) -> anyhow::Result<()> {
    let options = lab::reproduce::Options {
        out,
        fast,
        jobs,
        scenarios,
        command: Some(command_line()),
        series_format,
    };
    let done = lab::reproduce::reproduce(suite, &options, &progress::Bar::default())?;
    warn_rejected(&done.rejected);
    println!(
        "{} in {:.1} s; report: {}",
        suite,
        done.seconds,
        done.report.display()
    );
    anyhow::ensure!(done.failed_runs == 0, "{} runs failed", done.failed_runs);
    anyhow::ensure!(
        done.not_run.is_empty(),
        "{} experiments not run ({}); the report says why",
        done.not_run.len(),
        done.not_run
            .iter()
            .map(|(id, _)| id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

/// `bbrlab experiment`: runs the file, prints its verdicts and hash.
fn experiment(
    file: &std::path::Path,
    out: Option<PathBuf>,
    fast: bool,
    jobs: Option<usize>,
    scenarios: Option<PathBuf>,
    series_format: lab::table::Format,
) -> anyhow::Result<()> {
    let options = lab::reproduce::Options {
        out,
        fast,
        jobs,
        scenarios,
        command: Some(command_line()),
        series_format,
    };
    let done = lab::reproduce::experiment(file, &options, &progress::Bar::default())?;
    warn_rejected(&done.rejected);
    let dir = done
        .report
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let path = dir.join("claims.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let rows: Vec<ExperimentClaim> = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{}: not a claims table: {e}", path.display()))?;
    if let Some(first) = rows.first() {
        println!(
            "experiment file {} sha256 {}",
            first.experiment_file.as_deref().unwrap_or("?"),
            first.experiment_sha256.as_deref().unwrap_or("?")
        );
    }
    for r in &rows {
        println!(
            "{:18} {:40} paper {:28} ours {:24} {}",
            r.line.verdict, r.line.id, r.line.paper_says, r.line.ours, r.line.tolerance
        );
    }
    println!("{:.1} s; report: {}", done.seconds, done.report.display());
    anyhow::ensure!(done.failed_runs == 0, "{} runs failed", done.failed_runs);
    anyhow::ensure!(
        done.not_run.is_empty(),
        "not run: {}",
        done.not_run
            .iter()
            .map(|(id, why)| format!("{id}: {why}"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    Ok(())
}

/// A row of an experiment's claims.json, as `bbrlab experiment` prints it.
#[derive(serde::Deserialize)]
struct ExperimentClaim {
    #[serde(default)]
    experiment_file: Option<String>,
    #[serde(default)]
    experiment_sha256: Option<String>,
    #[serde(flatten)]
    line: ClaimLine,
}

/// This process's command line, as a report records it.
pub(crate) fn command_line() -> String {
    let mut args = std::env::args();
    let program = args.next().map(|p| {
        std::path::Path::new(&p)
            .file_name()
            .map_or(p.clone(), |n| n.to_string_lossy().into_owned())
    });
    program
        .into_iter()
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `bbrlab report`: writes the page of any output, naming every record it left out.
fn report(dir: &std::path::Path) -> anyhow::Result<()> {
    let (path, rejected) = lab::pages::report_dir(dir)?;
    warn_rejected(&rejected);
    println!("{}", path.display());
    Ok(())
}

/// `bbrlab claims`: the claims table, or the markdown document.
fn claims(dirs: &[PathBuf], markdown: Option<&std::path::Path>) -> anyhow::Result<()> {
    if let Some(path) = markdown {
        let dirs: Vec<&std::path::Path> = dirs.iter().map(PathBuf::as_path).collect();
        let text = lab::reproduce::doc::markdown(&dirs)?;
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        println!("{}", path.display());
        return Ok(());
    }
    for dir in dirs {
        let path = dir.join("claims.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            anyhow::anyhow!(
                "cannot read {} ({e}); is {} the output of `bbrlab reproduce`?",
                path.display(),
                dir.display()
            )
        })?;
        let rows: Vec<ClaimLine> = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a claims table: {e}", path.display()))?;
        for r in rows {
            println!(
                "{:18} {:40} paper {:28} ours {:24} {}",
                r.verdict, r.id, r.paper_says, r.ours, r.tolerance
            );
        }
    }
    Ok(())
}

/// The columns `bbrlab claims` prints.
#[derive(serde::Deserialize)]
struct ClaimLine {
    id: String,
    paper_says: String,
    ours: String,
    tolerance: String,
    verdict: String,
}

fn warn_rejected(rejected: &[(PathBuf, String)]) {
    for (file, why) in rejected {
        eprintln!("warning: {}: left out of the report: {why}", file.display());
    }
}

fn main() -> ExitCode {
    // Like any Unix tool, end quietly when the reader of stdout goes away
    // (`bbrlab list | head`) instead of panicking on the broken pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    lab::provenance::set_build_commit(build_info::COMMIT);
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Sweep(args) => sweep::sweep(args),
        Command::League(args) => league::league(args),
        Command::Advise(args) => league::advise(args),
        Command::Model { g, r, points } => {
            lab::model::table(&g, &r, points).map(|table| print!("{table}"))
        }
        Command::Reproduce {
            suite,
            out,
            fast,
            jobs,
            scenarios,
            series_format,
        } => reproduce(&suite, out, fast, jobs, scenarios, series_format),
        Command::Experiment {
            file,
            out,
            fast,
            jobs,
            scenarios,
            series_format,
        } => experiment(&file, out, fast, jobs, scenarios, series_format),
        Command::Report { dir } => report(&dir),
        Command::Compare { dirs, out } => {
            let out = out.unwrap_or_else(|| PathBuf::from("out").join("compare"));
            lab::pages::compare(&dirs, &out).map(|path| println!("{}", path.display()))
        }
        Command::Claims { dirs, markdown } => claims(&dirs, markdown.as_deref()),
        Command::Emu(args) => emu::emu(args),
        Command::Shell(args) => {
            return match shell::shell(args) {
                Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
                Err(err) => {
                    eprintln!("error: {err:#}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Serve(args) => quic::serve(args),
        Command::Get(args) => quic::get(args),
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
