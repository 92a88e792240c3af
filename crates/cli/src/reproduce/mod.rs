//! `bbrlab reproduce`: run a paper's experiments and write a report.
//!
//! A suite is a list of experiments; an experiment is a sweep file under
//! `scenarios/<suite>/` (readable and editable) and an analysis that turns
//! its runs into a report section: our plots, the paper's numbers next to
//! ours, and a verdict. Runs go to one results store per experiment
//! (`<out>/<experiment>/`), so an interrupted reproduction resumes, and
//! `bbrlab report <out>` rebuilds the report from the stores alone.

mod bbr2;
mod cws;
mod data;
mod obbr;
mod quick;
mod verdict;

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

pub use data::Runs;

use crate::store::run_id;

/// One experiment of a suite.
pub struct Experiment {
    /// Directory name of its store, and the section anchor.
    pub id: &'static str,
    /// Its sweep file, relative to the scenarios directory.
    pub scenario: &'static str,
    /// Whether its analysis needs the runs' time series.
    pub series: bool,
    /// Turns its runs into a report section.
    pub analyze: fn(&Runs) -> report::Section,
}

/// A named suite.
pub struct Suite {
    /// The name `bbrlab reproduce` takes.
    pub name: &'static str,
    /// One line on what it covers.
    pub summary: &'static str,
    /// Its experiments, in report order.
    pub experiments: &'static [Experiment],
}

/// Every suite.
pub fn suites() -> &'static [Suite] {
    static SUITES: &[Suite] = &[
        Suite {
            name: "quick",
            summary: "a one-minute tour: one experiment from each paper and the Q_r model",
            experiments: quick::EXPERIMENTS,
        },
        Suite {
            name: "obbr",
            summary: "the oBBR paper (Bi et al.): Figs. 3-5, 7-9, 11, 12",
            experiments: obbr::EXPERIMENTS,
        },
        Suite {
            name: "cws",
            summary: "the BBR-CWS paper (Kim et al.): Figs. 8-15",
            experiments: cws::EXPERIMENTS,
        },
        Suite {
            name: "bbr2",
            summary:
                "adaptive BBRv2 (Drucker et al.): loss, harm, changing bandwidth, cellular, bounds",
            experiments: bbr2::EXPERIMENTS,
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

/// What `reproduce` records next to the stores, so `report` can rebuild.
#[derive(Serialize, Deserialize)]
struct Manifest {
    suite: String,
    fast: bool,
    scenarios: PathBuf,
}

/// `bbrlab list suites`.
pub fn list() {
    for s in suites() {
        println!("{:8}  {}", s.name, s.summary);
        for e in s.experiments {
            println!("{:8}    {} (scenarios/{})", "", e.id, e.scenario);
        }
    }
}

/// Where the scenario files are: `--scenarios`, else `./scenarios`, else the
/// repository the binary was built in.
fn scenarios_dir(given: Option<&Path>) -> anyhow::Result<PathBuf> {
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

/// An experiment's sweep, in full or shortened.
fn load(experiment: &Experiment, scenarios: &Path, fast: bool) -> anyhow::Result<scenario::Sweep> {
    let sweep = scenario::load_sweep(&scenarios.join(experiment.scenario), &[])?;
    Ok(if fast { sweep.fast()? } else { sweep })
}

/// `bbrlab reproduce <suite>`.
pub fn reproduce(
    suite: &str,
    out: Option<PathBuf>,
    fast: bool,
    jobs: Option<usize>,
    scenarios: Option<&Path>,
) -> anyhow::Result<()> {
    let suite = find_suite(suite)?;
    let scenarios = scenarios_dir(scenarios)?;
    let out = out.unwrap_or_else(|| {
        PathBuf::from("out").join(format!("{}{}", suite.name, if fast { "-fast" } else { "" }))
    });
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Validate every experiment before running any.
    let mut plans = Vec::new();
    for e in suite.experiments {
        let sweep = load(e, &scenarios, fast).with_context(|| format!("experiment {}", e.id))?;
        let runs = sweep.scenarios()?;
        plans.push((e, runs));
    }
    let started = std::time::Instant::now();
    let mut failures = 0;
    for (e, runs) in plans {
        let n = runs.len();
        let t = std::time::Instant::now();
        let report = crate::sweep::run_points(&out.join(e.id), runs, jobs, e.series)?;
        failures += report.failures.len();
        for f in &report.failures {
            eprintln!("{}: failed: {f}", e.id);
        }
        println!(
            "{:16} {:3} runs ({} recorded before) in {:.1} s",
            e.id,
            n,
            report.skipped,
            t.elapsed().as_secs_f64()
        );
    }
    let manifest = Manifest {
        suite: suite.name.to_string(),
        fast,
        scenarios: scenarios.canonicalize().unwrap_or(scenarios),
    };
    std::fs::write(
        out.join("suite.json"),
        serde_json::to_string_pretty(&manifest)?,
    )
    .with_context(|| format!("cannot write {}", out.join("suite.json").display()))?;
    let path = write_report(&out, suite, &manifest)?;
    println!(
        "{} in {:.1} s; report: {}",
        suite.name,
        started.elapsed().as_secs_f64(),
        path.display()
    );
    anyhow::ensure!(failures == 0, "{failures} runs failed");
    Ok(())
}

/// `bbrlab report <dir>`: rebuilds report.html from the stores.
pub fn rebuild(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join("suite.json");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{}: cannot read (is {} the output of `bbrlab reproduce`?)",
            path.display(),
            dir.display()
        )
    })?;
    let manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a suite manifest", path.display()))?;
    let suite = find_suite(&manifest.suite)?;
    let report = write_report(dir, suite, &manifest)?;
    println!("{}", report.display());
    Ok(())
}

fn write_report(out: &Path, suite: &Suite, manifest: &Manifest) -> anyhow::Result<PathBuf> {
    let mut report = report::Report::new(
        format!("bbrlab: reproducing the papers ({} suite)", suite.name),
        format!(
            "{}{} · bbrlab {}",
            suite.summary,
            if manifest.fast {
                " · --fast (shortened runs)"
            } else {
                ""
            },
            env!("CARGO_PKG_VERSION")
        ),
    );
    for e in suite.experiments {
        let sweep = load(e, &manifest.scenarios, manifest.fast)?;
        let ids: Vec<_> = sweep
            .scenarios()?
            .into_iter()
            .map(|(p, s)| {
                let id = run_id(&s);
                (p, id)
            })
            .collect();
        let runs = Runs::collect(&out.join(e.id), sweep.axes.clone(), &ids)?;
        let mut section = if runs.points.is_empty() {
            report::Section::new(e.id, e.id)
                .verdict(report::VerdictStatus::NotRun, "no runs recorded")
        } else {
            (e.analyze)(&runs)
        };
        if runs.missing > 0 {
            section.description.push_str(&format!(
                " ({} of {} runs missing.)",
                runs.missing,
                ids.len()
            ));
        }
        section
            .description
            .push_str(&format!(" Scenario: scenarios/{}.", e.scenario));
        report = report.section(section);
    }
    for note in [
        "Goodput: application bytes delivered in order to the receiver / measurement time.",
        "Retransmission ratio: retransmitted bytes / delivered bytes (the oBBR paper's definition). Loss ratio: bytes dropped anywhere / bytes sent.",
        "BDP: bottleneck rate x base RTT. R: buffer size / BDP. Jain's index: (sum x)^2 / (n sum x^2) over per-flow goodputs.",
        "Paper numbers are read from the papers' text (shared/papers); docs/REPRODUCTION.md lists them with ours.",
    ] {
        report = report.note(note);
    }
    let path = out.join("report.html");
    std::fs::write(&path, report::render_html(&report))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
