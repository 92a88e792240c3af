//! Report pages for a user's own outputs: a run (`bbrlab run`), a sweep
//! (`bbrlab sweep`), several runs side by side (`bbrlab compare`). The
//! papers' suites have their own pages (`reproduce`); [`report_dir`]
//! recognises all three kinds of output directory.

pub mod compare;
pub mod run;
pub mod series;
pub mod sweep;

use std::path::{Path, PathBuf};

use anyhow::Context;

/// What kind of output a directory holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// `bbrlab run`: summary.json and the time series.
    Run,
    /// `bbrlab sweep`: a results store (runs/ and results.csv).
    Sweep,
    /// `bbrlab reproduce`: one store per experiment and suite.json.
    Suite,
    /// `bbrlab league` or `bbrlab advise`: a store with scores.csv and
    /// aggregate.csv; its page is written by the command itself.
    League,
}

/// Recognises an output directory by the files it holds.
pub fn kind(dir: &Path) -> anyhow::Result<OutputKind> {
    anyhow::ensure!(dir.is_dir(), "{}: not a directory", dir.display());
    if dir.join("suite.json").is_file() {
        Ok(OutputKind::Suite)
    } else if dir.join("scores.csv").is_file() && dir.join("aggregate.csv").is_file() {
        Ok(OutputKind::League)
    } else if dir.join("summary.json").is_file() {
        Ok(OutputKind::Run)
    } else if dir.join("results.csv").is_file() && dir.join("runs").is_dir() {
        Ok(OutputKind::Sweep)
    } else {
        anyhow::bail!(
            "{}: not a bbrlab output directory (expected summary.json from `bbrlab run`, \
             results.csv and runs/ from `bbrlab sweep`, or suite.json from `bbrlab reproduce`)",
            dir.display()
        )
    }
}

/// Writes `report.html` for the output in `dir`, whatever its kind, and
/// returns its path and the run records left out as unusable, `(file, why)`.
pub fn report_dir(dir: &Path) -> anyhow::Result<(PathBuf, Vec<(PathBuf, String)>)> {
    match kind(dir)? {
        OutputKind::Suite => crate::reproduce::rebuild(dir),
        OutputKind::League => anyhow::bail!(
            "{}: the output of `bbrlab league` or `bbrlab advise`, whose page needs its conditions \
             and weights: run the same command again with --out {} (every recorded run is reused, \
             nothing is simulated again)",
            dir.display(),
            dir.display()
        ),
        OutputKind::Run => {
            let run = run::RunOutput::read(dir)?;
            let path = write(dir, &run::page(&run))?;
            Ok((path, Vec::new()))
        }
        OutputKind::Sweep => {
            let (records, rejected) = sweep::records(dir)?;
            anyhow::ensure!(
                !records.is_empty(),
                "{}: the sweep has no usable run records{}",
                dir.display(),
                if rejected.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        rejected
                            .iter()
                            .map(|(f, why)| format!("{}: {why}", f.display()))
                            .collect::<Vec<_>>()
                            .join("; ")
                    )
                }
            );
            let path = write(dir, &sweep::page(dir, &records, &rejected))?;
            Ok((path, rejected))
        }
    }
}

/// Writes the comparison of the runs in `dirs` to `out`/compare.html.
pub fn compare(dirs: &[PathBuf], out: &Path) -> anyhow::Result<PathBuf> {
    anyhow::ensure!(
        dirs.len() >= 2,
        "expected at least two run directories to compare, got {}",
        dirs.len()
    );
    let mut runs = Vec::new();
    for dir in dirs {
        anyhow::ensure!(
            kind(dir)? == OutputKind::Run,
            "{}: not the output of `bbrlab run` (compare takes run directories)",
            dir.display()
        );
        runs.push(run::RunOutput::read(dir)?);
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join("compare.html");
    std::fs::write(&path, report::render_html(&compare::page(&runs)))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

fn write(dir: &Path, page: &report::Report) -> anyhow::Result<PathBuf> {
    let path = dir.join("report.html");
    std::fs::write(&path, report::render_html(page))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Adds the provenance of the output in `dir` (its invocation.json) to
/// `report`; `build` names the build the results themselves record, shown
/// when the invocation was not recorded (outputs of older versions).
pub(crate) fn with_invocation(
    mut report: report::Report,
    dir: &Path,
    build: String,
) -> report::Report {
    let rows = match crate::provenance::read(dir) {
        Ok(Some(invocation)) => crate::provenance::rows(&invocation),
        Ok(None) => crate::provenance::unrecorded_rows(
            build,
            format!("not recorded (no {})", crate::provenance::FILE),
        ),
        Err(err) => crate::provenance::unrecorded_rows(build, format!("not recorded ({err:#})")),
    };
    for (key, value) in rows {
        report = report.provenance(key, value);
    }
    report
}
