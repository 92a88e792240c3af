//! Reproducing the papers: run a suite's experiments and write a report.
//!
//! A suite is a list of experiments; an experiment is a sweep file under
//! `scenarios/<suite>/` (readable and editable) and an analysis that turns
//! its runs into a report section: our plots, the paper's numbers next to
//! ours, and a verdict. Runs go to one results store per experiment
//! (`<out>/<experiment>/`), so an interrupted reproduction resumes, and
//! `bbrlab report <out>` rebuilds the report from the stores alone.

mod bbr2;
pub mod claims;
mod copilot;
mod cws;
pub(crate) mod data;
pub mod doc;
pub mod file;
mod measures;
mod obbr;
mod quick;
mod verdict;
pub mod why;

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use data::Runs;

use crate::store::run_id;
use crate::sweep::{self, SweepReport};

/// One experiment of a suite.
pub struct Experiment {
    /// Directory name of its store, and the section anchor.
    pub id: &'static str,
    /// Its sweep file, relative to the scenarios directory.
    pub scenario: &'static str,
    /// Whether its analysis needs the runs' time series.
    pub series: bool,
    /// Turns its runs into a report section and judges its claims.
    pub analyze: fn(&Runs) -> Analysis,
}

/// An experiment file compiled into the binary: its repository path
/// (`experiments/<suite>/<id>.toml`) and its text.
pub struct EmbeddedFile {
    /// The file's path in the repository.
    pub path: &'static str,
    /// Its bytes.
    pub text: &'static str,
    /// Its directory, for a `sweep` beside it (none for a suite's files,
    /// whose sweeps are under the scenarios directory).
    pub dir: Option<&'static Path>,
}

/// One entry of a suite's list: an experiment whose analysis is Rust, or
/// an experiment file (`reproduce::file`, docs/EXPERIMENTS.md). Both run
/// their sweep into `<out>/<id>/` and make one report section.
pub enum Entry {
    /// An experiment with its analysis in Rust.
    Rust(Experiment),
    /// An experiment file, judged by its declared measures and claims.
    File(EmbeddedFile),
    /// An experiment file judged on another sweep, under another id,
    /// title and description.
    FileOn(Retargeted),
}

/// An experiment file judged on another sweep, under another id, title
/// and description: the quick tour's shortened version of a suite's
/// experiment, with the file's measures, figures, tables and claims (a
/// value the sweep lacks leaves out what needs it; a claim without a
/// number is "not run").
pub struct Retargeted {
    /// The file.
    pub file: EmbeddedFile,
    /// Its id here.
    pub id: &'static str,
    /// Its title here.
    pub title: &'static str,
    /// Its sweep file here, relative to the scenarios directory.
    pub scenario: &'static str,
    /// Its description here.
    pub description: &'static str,
    /// The verdict's text here when every claim holds.
    pub all_reproduced: &'static str,
}

/// An [`Entry::File`] of the file at `$path` (from the repository root),
/// compiled in.
macro_rules! experiment_file {
    ($path:literal) => {
        $crate::reproduce::Entry::File($crate::reproduce::embedded_file!($path))
    };
}
pub(crate) use experiment_file;

/// An [`EmbeddedFile`] of the file at `$path` (from the repository root),
/// compiled in.
macro_rules! embedded_file {
    ($path:literal) => {
        $crate::reproduce::EmbeddedFile {
            path: $path,
            text: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../", $path)),
            dir: None,
        }
    };
}
pub(crate) use embedded_file;

/// How an experiment's runs become its section.
enum Analyzer {
    Rust(fn(&Runs) -> Analysis),
    File(Box<file::ExperimentFile>),
}

/// An entry made ready to run: its id, sweep, series need and analysis.
struct Resolved {
    id: String,
    /// The sweep file as the report names it.
    scenario_label: String,
    series: bool,
    analyzer: Analyzer,
    /// The Rust experiment's sweep file (relative to the scenarios directory).
    rust_scenario: Option<&'static str>,
}

impl Entry {
    /// What `bbrlab list` and errors call it: its id, or its file's path.
    pub fn name(&self) -> &str {
        match self {
            Entry::Rust(e) => e.id,
            Entry::File(f) => f.path,
            Entry::FileOn(r) => r.id,
        }
    }

    /// Its id (its file's path for an experiment file that does not parse).
    pub fn id(&self) -> String {
        self.resolve()
            .map_or_else(|_| self.name().to_string(), |r| r.id)
    }

    /// Its sweep file, as `bbrlab list` shows it (a file's own path for an
    /// experiment file whose text does not parse).
    pub fn scenario_label(&self) -> String {
        match self.resolve() {
            Ok(r) => r.scenario_label,
            Err(_) => self.name().to_string(),
        }
    }

    fn resolve(&self) -> anyhow::Result<Resolved> {
        Ok(match self {
            Entry::Rust(e) => Resolved {
                id: e.id.to_string(),
                scenario_label: format!("scenarios/{}", e.scenario),
                series: e.series,
                analyzer: Analyzer::Rust(e.analyze),
                rust_scenario: Some(e.scenario),
            },
            Entry::File(f) => {
                Resolved::of_file(file::ExperimentFile::parse(f.path, f.text, f.dir)?)
            }
            Entry::FileOn(r) => Resolved::of_file(
                file::ExperimentFile::parse(r.file.path, r.file.text, r.file.dir)?.retarget(r),
            ),
        })
    }
}

impl Resolved {
    /// An experiment file made ready to run.
    fn of_file(parsed: file::ExperimentFile) -> Resolved {
        Resolved {
            id: parsed.id().to_string(),
            scenario_label: parsed.scenario_label(),
            series: parsed.series(),
            analyzer: Analyzer::File(Box::new(parsed)),
            rust_scenario: None,
        }
    }

    /// Its sweep, in full or shortened.
    fn sweep(&self, scenarios: &Path, fast: bool) -> anyhow::Result<scenario::Sweep> {
        match (&self.analyzer, self.rust_scenario) {
            (Analyzer::File(f), _) => f.sweep(scenarios, fast),
            (Analyzer::Rust(_), Some(s)) => {
                let sweep = scenario::load_sweep(&scenarios.join(s), &[])?;
                Ok(if fast { sweep.fast()? } else { sweep })
            }
            (Analyzer::Rust(_), None) => anyhow::bail!("{}: no sweep", self.id),
        }
    }

    fn analyze(&self, runs: &Runs) -> Analysis {
        match &self.analyzer {
            Analyzer::Rust(f) => f(runs),
            Analyzer::File(f) => f.analyze(runs),
        }
    }

    /// The experiment file's name and hash, for claims.json.
    fn file(&self) -> Option<(String, String)> {
        match &self.analyzer {
            Analyzer::File(f) => Some((f.name.clone(), f.sha256.clone())),
            Analyzer::Rust(_) => None,
        }
    }
}

/// What an analysis makes of an experiment's runs: its report section and
/// the claims it judged on them.
pub struct Analysis {
    /// The report section (figures, tables, verdict).
    pub section: report::Section,
    /// The claims judged, in the order of the section's claims table.
    pub claims: Vec<claims::Judged>,
}

impl Analysis {
    /// A section judged by its claims: the verdict is computed from them
    /// (`all_reproduced` is its text when every claim holds) and the
    /// claims table is added after the section's own tables.
    pub fn judged(
        section: report::Section,
        judged: Vec<claims::Judged>,
        all_reproduced: &str,
    ) -> Analysis {
        let status = claims::section_verdict(&judged);
        let text = claims::verdict_text(&judged, all_reproduced);
        let section = section
            .table(claims::claims_table(&judged))
            .verdict(status, text);
        Analysis {
            section,
            claims: judged,
        }
    }
}

/// A named suite.
pub struct Suite {
    /// The name `bbrlab reproduce` takes.
    pub name: &'static str,
    /// One line on what it covers.
    pub summary: &'static str,
    /// Its experiments, in report order.
    pub experiments: &'static [Entry],
    /// Its claims-not-run file ([`file::NotRunFile`]): the paper's claims
    /// that no experiment of the suite judges.
    pub outside: Option<EmbeddedFile>,
}

/// Every suite.
pub fn suites() -> &'static [Suite] {
    static SUITES: &[Suite] = &[
        Suite {
            name: "quick",
            summary: "a one-minute tour: one experiment from each paper and the Q_r model",
            experiments: quick::EXPERIMENTS,
            outside: None,
        },
        Suite {
            name: "obbr",
            summary: "the oBBR paper (Bi et al.): Figs. 3-5, 7-9, 11, 12, and Fig. 14's DASH video",
            experiments: obbr::EXPERIMENTS,
            outside: Some(embedded_file!("experiments/obbr/not-run.toml")),
        },
        Suite {
            name: "cws",
            summary: "the BBR-CWS paper (Kim et al.): Figs. 8-15",
            experiments: cws::EXPERIMENTS,
            outside: Some(embedded_file!("experiments/cws/not-run.toml")),
        },
        Suite {
            name: "copilot",
            summary: "BBR-Copilot (Yan et al.): live streams' Startup exit and ProbeBW tracking, Figs. 6-9",
            experiments: copilot::EXPERIMENTS,
            outside: Some(embedded_file!("experiments/copilot/not-run.toml")),
        },
        Suite {
            name: "bbr2",
            summary:
                "adaptive BBRv2 (Drucker et al.): loss, harm, changing bandwidth, cellular, bounds, DASH video",
            experiments: bbr2::EXPERIMENTS,
            outside: Some(embedded_file!("experiments/bbr2/not-run.toml")),
        },
    ];
    SUITES
}

fn find_suite(name: &str) -> anyhow::Result<&'static Suite> {
    suites().iter().find(|s| s.name == name).with_context(|| {
        let known: Vec<_> = suites().iter().map(|s| s.name).collect();
        format!("unknown suite `{name}`; known suites: {}", known.join(", "))
    })
}

/// The section with a table of the reasons (`why.toml`) for its Differs
/// and Partly rows, as docs/REPRODUCTION.md prints them; a row without one
/// says so.
fn with_reasons(
    section: report::Section,
    experiment: &str,
    judged: &[claims::Judged],
) -> anyhow::Result<report::Section> {
    let reasons = why::reasons()?;
    let unsettled: Vec<&claims::Judged> = judged
        .iter()
        .filter(|j| {
            matches!(
                j.verdict,
                report::VerdictStatus::Differs | report::VerdictStatus::Partly
            )
        })
        .collect();
    if unsettled.is_empty() {
        return Ok(section);
    }
    let mut table = report::Table::new(
        "Why the rows that differ or partly differ do",
        ["claim", "verdict", "reason", "see"],
    );
    for j in unsettled {
        let (text, see) = match why::lookup(reasons, experiment, j.claim.id()) {
            Some(r) => (r.text.trim().to_string(), r.see.trim().to_string()),
            None => ("no reason recorded yet".to_string(), String::new()),
        };
        table = table.row([
            report::Cell::text(j.claim.id()),
            report::Cell::text(j.verdict.label()),
            report::Cell::text(text),
            report::Cell::text(see),
        ]);
    }
    Ok(section.table(table))
}

/// What `reproduce` records next to the stores, so `report` can rebuild.
#[derive(Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub(crate) suite: String,
    pub(crate) fast: bool,
    pub(crate) scenarios: PathBuf,
    /// Where the results come from (absent in outputs of older versions).
    #[serde(default)]
    pub(crate) provenance: Option<crate::provenance::Invocation>,
    /// The experiment file of `bbrlab experiment` (then `suite` is
    /// [`EXPERIMENT_SUITE`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) experiment_file: Option<PathBuf>,
}

/// The suite name `bbrlab experiment` records in suite.json.
const EXPERIMENT_SUITE: &str = "experiment";

fn leak<T: ?Sized>(value: Box<T>) -> &'static T {
    Box::leak(value)
}

/// A suite of one experiment file read at run time (`bbrlab experiment`);
/// the file is parsed here, so its errors (file, line, key) come first.
fn file_suite(path: &Path) -> anyhow::Result<&'static Suite> {
    let parsed = file::ExperimentFile::load(path)?;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read experiment file {}", path.display()))?;
    let entry = Entry::File(EmbeddedFile {
        path: leak(path.display().to_string().into_boxed_str()),
        text: leak(text.into_boxed_str()),
        dir: path
            .parent()
            .map(|d| leak(d.to_path_buf().into_boxed_path())),
    });
    Ok(leak(Box::new(Suite {
        name: EXPERIMENT_SUITE,
        summary: leak(format!("experiment {} ({})", parsed.id(), path.display()).into_boxed_str()),
        experiments: leak(vec![entry].into_boxed_slice()),
        outside: None,
    })))
}

/// Runs the experiment file at `path` (resuming what an earlier call
/// recorded) and writes its report, claims.json and sections.json, as
/// `reproduce` does for a suite. The output directory defaults to
/// `out/experiments/<id>` (`-fast` with `fast`).
pub fn experiment(
    path: &Path,
    options: &Options,
    observer: &dyn Observer,
) -> anyhow::Result<Reproduction> {
    let suite = file_suite(path)?;
    let id = suite.experiments[0].id();
    let out = options.out.clone().unwrap_or_else(|| {
        PathBuf::from("out")
            .join("experiments")
            .join(format!("{id}{}", if options.fast { "-fast" } else { "" }))
    });
    let options = Options {
        out: Some(out),
        ..options.clone()
    };
    run_suite(suite, &options, observer, Some(path))
}

/// Where the scenario files are: `--scenarios`, else `./scenarios`, else the
/// repository the binary was built in.
pub fn scenarios_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(dir) = given {
        anyhow::ensure!(
            dir.is_dir(),
            "--scenarios {}: not a directory",
            dir.display()
        );
        return Ok(dir.to_path_buf());
    }
    let candidates = [
        PathBuf::from("scenarios"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"),
    ];
    candidates.iter().find(|d| d.is_dir()).cloned().with_context(|| {
        format!(
            "cannot find the scenarios directory (tried {}); run from the repository or pass --scenarios DIR",
            candidates.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    })
}

/// Hears how a reproduction progresses: each experiment's sweep (through
/// [`sweep::Progress`]) and its end. Every method has an empty default.
pub trait Observer: sweep::Progress {
    /// An experiment's runs have finished (or were all recorded before).
    fn experiment_done(&self, _id: &str, _report: &SweepReport, _seconds: f64) {}
    /// An experiment cannot run (e.g. a trace file is missing); the report
    /// marks it "not run" with this reason and the others go on.
    fn experiment_not_run(&self, _id: &str, _reason: &str) {}
}

/// An [`Observer`] that says nothing.
impl Observer for sweep::Silent {}

/// What `reproduce` did.
#[derive(Debug)]
pub struct Reproduction {
    /// The report written.
    pub report: PathBuf,
    /// Runs that failed, over every experiment.
    pub failed_runs: usize,
    /// Experiments that could not run, with why.
    pub not_run: Vec<(String, String)>,
    /// Run records the report left out as unusable: `(file, why)`.
    pub rejected: Vec<(PathBuf, String)>,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// How to reproduce a suite.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Output directory (default: out/SUITE, or out/SUITE-fast with `fast`).
    pub out: Option<PathBuf>,
    /// Shortened runs (each scenario's `[fast]` table).
    pub fast: bool,
    /// Parallel runs [default: one per core].
    pub jobs: Option<usize>,
    /// The scenarios directory [default: ./scenarios, else the repository's].
    pub scenarios: Option<PathBuf>,
    /// The command line that asked for this, recorded in the report.
    pub command: Option<String>,
    /// The format of the time series kept for the analyses that need them.
    pub series_format: crate::table::Format,
}

/// Runs every experiment of `suite` (resuming what an earlier call
/// recorded) and writes `report.html`. An experiment whose sweep cannot be
/// loaded is reported as not run; the others run.
pub fn reproduce(
    suite: &str,
    options: &Options,
    observer: &dyn Observer,
) -> anyhow::Result<Reproduction> {
    run_suite(find_suite(suite)?, options, observer, None)
}

fn run_suite(
    suite: &Suite,
    options: &Options,
    observer: &dyn Observer,
    experiment_file: Option<&Path>,
) -> anyhow::Result<Reproduction> {
    let jobs = sweep::jobs(options.jobs)?;
    let scenarios = scenarios_dir(options.scenarios.as_deref())?;
    let fast = options.fast;
    let out = options.out.clone().unwrap_or_else(|| {
        PathBuf::from("out").join(format!("{}{}", suite.name, if fast { "-fast" } else { "" }))
    });
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    // Load every experiment before running any, so a broken one is known
    // at once rather than after the others' minutes of simulation.
    let mut plans = Vec::new();
    let mut not_run = Vec::new();
    for entry in suite.experiments {
        let planned = entry.resolve().and_then(|e| {
            let runs = e.sweep(&scenarios, fast)?.scenarios()?;
            Ok((e, runs))
        });
        match planned {
            Ok(plan) => plans.push(plan),
            Err(err) => {
                let reason = format!("{err:#}");
                let id = entry
                    .resolve()
                    .map_or_else(|_| entry.name().to_string(), |e| e.id);
                observer.experiment_not_run(&id, &reason);
                not_run.push((id, reason));
            }
        }
    }
    let clock = crate::provenance::Clock::start(options.command.clone(), fast);
    let mut failed_runs = 0;
    let mut resumed_runs = 0;
    for (e, runs) in plans {
        let t = std::time::Instant::now();
        let series = e.series.then_some(options.series_format);
        let report = sweep::run_points(&out.join(&e.id), runs, jobs, series, observer)?;
        failed_runs += report.failures.len();
        resumed_runs += report.skipped;
        observer.experiment_done(&e.id, &report, t.elapsed().as_secs_f64());
    }
    let manifest = Manifest {
        suite: suite.name.to_string(),
        fast,
        scenarios: scenarios.canonicalize().unwrap_or(scenarios),
        provenance: Some(clock.finish(resumed_runs)),
        experiment_file: experiment_file.map(|p| p.canonicalize().unwrap_or(p.to_path_buf())),
    };
    std::fs::write(
        out.join("suite.json"),
        serde_json::to_string_pretty(&manifest)?,
    )
    .with_context(|| format!("cannot write {}", out.join("suite.json").display()))?;
    let (report, rejected) = write_report(&out, suite, &manifest)?;
    Ok(Reproduction {
        report,
        rejected,
        failed_runs,
        not_run,
        seconds: clock.elapsed_s(),
    })
}

/// Rebuilds `report.html` from the stores `reproduce` left in `dir` (no
/// simulation); returns its path and the run records it left out as
/// unusable, `(file, why)`.
///
/// The experiments' sweeps are read from the scenarios directory the
/// reproduction recorded; if that is gone (the store was copied to another
/// machine, or the checkout moved), from this checkout's (see
/// [`scenarios_dir`]). Runs are found by the hash of their scenario, so a
/// scenario that differs there finds no runs rather than the wrong ones.
pub fn rebuild(dir: &Path) -> anyhow::Result<(PathBuf, Vec<(PathBuf, String)>)> {
    let path = dir.join("suite.json");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{}: cannot read (is {} the output of `bbrlab reproduce`?)",
            path.display(),
            dir.display()
        )
    })?;
    let mut manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a suite manifest", path.display()))?;
    if !manifest.scenarios.is_dir() {
        manifest.scenarios = scenarios_dir(None).with_context(|| {
            format!(
                "{}: the scenarios directory it names, {}, is gone",
                path.display(),
                manifest.scenarios.display()
            )
        })?;
    }
    let suite = match &manifest.experiment_file {
        Some(path) if manifest.suite == EXPERIMENT_SUITE => file_suite(path)?,
        _ => find_suite(&manifest.suite)?,
    };
    write_report(dir, suite, &manifest)
}

type Rejected = Vec<(PathBuf, String)>;

fn write_report(
    out: &Path,
    suite: &Suite,
    manifest: &Manifest,
) -> anyhow::Result<(PathBuf, Rejected)> {
    let mut rejected = Vec::new();
    let mut claims = Vec::new();
    let mut verdicts = Vec::new();
    let title = if suite.name == EXPERIMENT_SUITE {
        format!("bbrlab: {}", suite.summary)
    } else {
        format!("bbrlab: reproducing the papers ({} suite)", suite.name)
    };
    let mut report = report::Report::new(title, suite.summary);
    let mut seeds = std::collections::BTreeSet::new();
    for entry in suite.experiments {
        let e = match entry.resolve() {
            Ok(e) => e,
            Err(err) => {
                let id = entry.name();
                let section = report::Section::new(id, id)
                    .verdict(report::VerdictStatus::NotRun, format!("not run: {err:#}"));
                verdicts.push(SectionVerdict::of(id, &section));
                report = report.section(section);
                continue;
            }
        };
        let loaded = e
            .sweep(&manifest.scenarios, manifest.fast)
            .and_then(|sweep| {
                let scenarios = sweep.scenarios()?;
                Ok((sweep, scenarios))
            });
        let (sweep, scenarios) = match loaded {
            Ok(loaded) => loaded,
            Err(err) => {
                let section = report::Section::new(e.id.clone(), e.id.clone())
                    .verdict(report::VerdictStatus::NotRun, format!("not run: {err:#}"))
                    .description(format!("Scenario: {}.", e.scenario_label));
                verdicts.push(SectionVerdict::of(&e.id, &section));
                report = report.section(section);
                continue;
            }
        };
        let ids: Vec<_> = scenarios
            .into_iter()
            .map(|(p, s)| {
                let id = run_id(&s);
                (p, id)
            })
            .collect();
        let runs = Runs::collect(&out.join(&e.id), sweep.axes.clone(), &ids, e.series)?;
        seeds.extend(
            runs.points
                .iter()
                .filter_map(|(_, r)| r.result().ok().map(|r| r.seed)),
        );
        let mut section = if runs.points.is_empty() {
            report::Section::new(e.id.clone(), e.id.clone())
                .verdict(report::VerdictStatus::NotRun, "no runs recorded")
        } else {
            let analysis = e.analyze(&runs);
            claims.extend(
                analysis
                    .claims
                    .iter()
                    .map(|j| (e.id.clone(), j.record(), e.file())),
            );
            with_reasons(analysis.section, &e.id, &analysis.claims)?
        };
        if !runs.rejected.is_empty() {
            section.description.push_str(&format!(
                " Left out {} unusable run record(s): {}.",
                runs.rejected.len(),
                runs.rejected
                    .iter()
                    .map(|(file, why)| format!("{}: {why}", file.display()))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        rejected.extend(runs.rejected.iter().cloned());
        verdicts.push(SectionVerdict::of(&e.id, &section));
        if runs.missing > 0 {
            section.description.push_str(&format!(
                " ({} of {} runs missing.)",
                runs.missing,
                ids.len()
            ));
        }
        section
            .description
            .push_str(&format!(" Scenario: {}.", e.scenario_label));
        report = report.section(section);
    }
    for note in [
        "Goodput: application bytes delivered in order to the receiver / measurement time.",
        "Retransmission ratio: retransmitted bytes / delivered bytes (the oBBR paper's definition). Loss ratio: bytes dropped anywhere / bytes sent.",
        "BDP: bottleneck rate x base RTT. R: buffer size / BDP. Jain's index: (sum x)^2 / (n sum x^2) over per-flow goodputs.",
        "Paper numbers are read from the papers' text; docs/REPRODUCTION.md lists them with ours.",
    ] {
        report = report.note(note);
    }
    report = with_provenance(report, manifest, &seeds);
    if let Some(outside) = &suite.outside {
        let not_run = file::NotRunFile::parse(outside.path, outside.text)?;
        let judged = not_run.judged();
        let from = (not_run.name.clone(), not_run.sha256.clone());
        claims.extend(
            judged
                .iter()
                .map(|j| (OUTSIDE_ID.to_string(), j.record(), Some(from.clone()))),
        );
        let section = Analysis::judged(
            report::Section::new(OUTSIDE_ID, "Claims not run").description(format!(
                "Claims of the paper that no experiment of this suite judges: those that need something a \
                 simulated dumbbell is not (a real Internet or WAN path, production logs, a condition the \
                 paper does not give), and those that are runnable but not yet judged (a new sweep, or an \
                 analysis of runs the suite already has). Each says what judging it needs; they are listed \
                 so the claims table is complete. Claims file: {} (sha256 {}).",
                not_run.name, not_run.sha256
            )),
            judged,
            "",
        )
        .section;
        verdicts.push(SectionVerdict::of(OUTSIDE_ID, &section));
        report = report.section(section);
    }
    let differs: Vec<String> = claims
        .iter()
        .filter(|(_, c, _)| c.verdict == report::VerdictStatus::Differs.label())
        .map(|(_, c, _)| format!("{} (paper {}, ours {})", c.statement, c.paper_says, c.ours))
        .collect();
    if !differs.is_empty() {
        report = report.note(format!(
            "Where our numbers differ from the paper's ({} claims; the claims tables give each tolerance): {}.",
            differs.len(),
            differs.join("; ")
        ));
    }
    write_claims(out, &claims)?;
    let path = out.join("sections.json");
    std::fs::write(&path, serde_json::to_string_pretty(&verdicts)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    let path = out.join("report.html");
    std::fs::write(&path, report::render_html(&report))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((path, rejected))
}

/// The report's provenance block: build, date, command, fidelity, wall
/// time and seeds.
fn with_provenance(
    mut report: report::Report,
    manifest: &Manifest,
    seeds: &std::collections::BTreeSet<u64>,
) -> report::Report {
    // suite.json's own `fast` is the fidelity (invocation records of
    // older versions lack theirs).
    let invocation = manifest
        .provenance
        .clone()
        .map(|p| crate::provenance::Invocation {
            fast: manifest.fast,
            ..p
        });
    let rows = match &invocation {
        Some(invocation) => crate::provenance::rows(invocation),
        None => {
            let mut rows = crate::provenance::unrecorded_rows(
                "unknown (suite.json records no build: written by an older version)".into(),
                "not recorded".into(),
            );
            rows.push((
                "fidelity".into(),
                crate::provenance::fidelity(manifest.fast).into(),
            ));
            rows
        }
    };
    for (key, value) in rows {
        report = report.provenance(key, value);
    }
    let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
    report.provenance(
        "seeds",
        if seeds.is_empty() {
            "none recorded".to_string()
        } else {
            seeds.join(", ")
        },
    )
}

/// The section id of the claims no experiment can run.
const OUTSIDE_ID: &str = "outside-the-simulator";

/// One row of sections.json: a report section's verdict.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SectionVerdict {
    /// The experiment id (the section's anchor).
    pub id: String,
    /// The section title.
    pub title: String,
    /// The verdict label.
    pub verdict: String,
    /// The verdict text.
    pub text: String,
}

impl SectionVerdict {
    fn of(id: &str, section: &report::Section) -> SectionVerdict {
        let (verdict, text) = section
            .verdict
            .as_ref()
            .map_or(("—".to_string(), String::new()), |v| {
                (v.status.label().to_string(), v.text.clone())
            });
        SectionVerdict {
            id: id.to_string(),
            title: section.title.clone(),
            verdict,
            text,
        }
    }
}

/// One row of claims.json / claims.csv: the experiment and its judged claim.
#[derive(Serialize)]
struct ClaimRow<'a> {
    experiment: &'a str,
    /// The experiment file that declared the claim, for claims of files.
    #[serde(skip_serializing_if = "Option::is_none")]
    experiment_file: Option<&'a str>,
    /// That file's SHA-256: a changed tolerance changes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    experiment_sha256: Option<&'a str>,
    #[serde(flatten)]
    claim: &'a claims::ClaimRecord,
}

/// A judged claim of an experiment, with the experiment file (name,
/// sha256) that declared it, if a file did.
type ClaimOf = (String, claims::ClaimRecord, Option<(String, String)>);

/// Writes claims.json and claims.csv: every claim the analyses judged.
fn write_claims(out: &Path, claims: &[ClaimOf]) -> anyhow::Result<()> {
    let rows: Vec<ClaimRow> = claims
        .iter()
        .map(|(experiment, claim, file)| ClaimRow {
            experiment,
            experiment_file: file.as_ref().map(|f| f.0.as_str()),
            experiment_sha256: file.as_ref().map(|f| f.1.as_str()),
            claim,
        })
        .collect();
    let json = out.join("claims.json");
    std::fs::write(&json, serde_json::to_string_pretty(&rows)? + "\n")
        .with_context(|| format!("cannot write {}", json.display()))?;
    let path = out.join("claims.csv");
    let mut w = csv::Writer::from_path(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    w.write_record([
        "experiment",
        "id",
        "paper",
        "place",
        "statement",
        "about",
        "metric",
        "paper_says",
        "ours",
        "tolerance",
        "tolerance_reason",
        "origin",
        "precondition",
        "verdict",
    ])?;
    for (experiment, c, _) in claims {
        w.serialize((
            experiment,
            c.id,
            serde_json::to_value(c.paper)?.as_str().unwrap_or_default(),
            c.place,
            c.statement,
            c.about,
            c.metric,
            c.paper_says,
            &c.ours,
            &c.tolerance,
            c.tolerance_reason,
            serde_json::to_value(c.origin)?.as_str().unwrap_or_default(),
            c.precondition.unwrap_or_default(),
            c.verdict,
        ))
        .with_context(|| format!("cannot write {}", path.display()))?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
