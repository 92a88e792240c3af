//! Where an output came from: the build, the date, the command line, the
//! fidelity and the wall time of the invocation that wrote it.
//!
//! `bbrlab run` and `bbrlab sweep` write it as `invocation.json` beside
//! their results; `bbrlab reproduce` keeps it in `suite.json`. Every report
//! page shows it, so a figure pasted into a paper can be traced back to the
//! commit and command that made it. It is kept apart from `summary.json`
//! and the run records on purpose: those must be identical for the same
//! scenario and seed, and a date never is.

use std::path::Path;
use std::time::{Instant, SystemTime};

use anyhow::Context;
use serde::{Deserialize, Serialize};

/// The file `run` and `sweep` outputs keep their [`Invocation`] in.
pub const FILE: &str = "invocation.json";

/// The git commit of the running binary, as it set it.
static BUILD_COMMIT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Records the git commit the running binary was built from (its
/// `build_info::COMMIT`); binaries call it first thing. The commit is not
/// compiled into this crate, so a commit does not rebuild it and all that
/// links it. A second call is ignored: one binary, one commit.
pub fn set_build_commit(commit: &'static str) {
    let _ = BUILD_COMMIT.set(commit);
}

/// This build's version and the git commit it was built from ("unknown"
/// outside a checkout, or in a program that did not say, such as a unit
/// test).
pub fn build_id() -> (&'static str, &'static str) {
    let commit = BUILD_COMMIT.get().copied().unwrap_or("unknown");
    (env!("CARGO_PKG_VERSION"), commit)
}

/// How and when an output was written.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Invocation {
    /// bbrlab's version.
    pub version: String,
    /// The git commit it was built from.
    pub commit: String,
    /// When the invocation started (UTC, RFC 3339).
    pub started: String,
    /// The command line, if the caller gave it.
    pub command: Option<String>,
    /// Whether the shortened runs of the scenarios' `[fast]` tables ran.
    #[serde(default)]
    pub fast: bool,
    /// Wall time of the invocation, seconds.
    pub wall_time_s: f64,
    /// Runs recorded by earlier invocations (resumed, not rerun).
    pub resumed_runs: usize,
}

/// An invocation under way: [`Clock::finish`] turns it into its record.
#[derive(Debug)]
pub struct Clock {
    started: String,
    at: Instant,
    command: Option<String>,
    fast: bool,
}

impl Clock {
    /// Starts timing an invocation of `command` (the command line as the
    /// user typed it, if there is one).
    pub fn start(command: Option<String>, fast: bool) -> Clock {
        Clock {
            started: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
            at: Instant::now(),
            command,
            fast,
        }
    }

    /// Seconds since the invocation started.
    pub fn elapsed_s(&self) -> f64 {
        self.at.elapsed().as_secs_f64()
    }

    /// The record of the invocation so far: its wall time is the time
    /// until now.
    pub fn finish(&self, resumed_runs: usize) -> Invocation {
        Invocation::of_this_build(
            self.started.clone(),
            self.command.clone(),
            self.fast,
            self.elapsed_s(),
            resumed_runs,
        )
    }
}

impl Invocation {
    /// The record of an invocation of this build timed by its caller (a
    /// front end whose work spans processes, like a Dask sweep).
    pub fn of_this_build(
        started: String,
        command: Option<String>,
        fast: bool,
        wall_time_s: f64,
        resumed_runs: usize,
    ) -> Invocation {
        let (version, commit) = build_id();
        Invocation {
            version: version.to_string(),
            commit: commit.to_string(),
            started,
            command,
            fast,
            wall_time_s,
            resumed_runs,
        }
    }
}

/// Writes `invocation` to `dir`/invocation.json.
pub fn write(dir: &Path, invocation: &Invocation) -> anyhow::Result<()> {
    let path = dir.join(FILE);
    std::fs::write(&path, serde_json::to_string_pretty(invocation)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Reads `dir`/invocation.json: `Ok(None)` if there is none (outputs of
/// older versions), an error naming the file if it cannot be read.
pub fn read(dir: &Path) -> anyhow::Result<Option<Invocation>> {
    let path = dir.join(FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .map(Some)
        .with_context(|| format!("{}: not an invocation record", path.display()))
}

/// The rows a report's provenance block shows for `invocation`: build,
/// date, command, fidelity and wall time.
pub fn rows(p: &Invocation) -> Vec<(String, String)> {
    let mut rows = vec![
        (
            "bbrlab".into(),
            format!("{} (commit {})", p.version, p.commit),
        ),
        ("date".into(), p.started.clone()),
    ];
    if let Some(command) = &p.command {
        rows.push(("command".into(), command.clone()));
    }
    rows.push(("fidelity".into(), fidelity(p.fast).into()));
    rows.push((
        "wall time".into(),
        if p.resumed_runs > 0 {
            format!(
                "{:.1} s ({} runs recorded by earlier invocations were reused)",
                p.wall_time_s, p.resumed_runs
            )
        } else {
            format!("{:.1} s", p.wall_time_s)
        },
    ));
    rows
}

/// The rows for an output whose invocation was not recorded (written by an
/// older version, or its record unreadable): the `build` its results name
/// and what `date` shows instead, rather than a guess.
pub fn unrecorded_rows(build: String, date: String) -> Vec<(String, String)> {
    vec![("bbrlab".into(), build), ("date".into(), date)]
}

/// How a fidelity reads in a report.
pub fn fidelity(fast: bool) -> &'static str {
    if fast {
        "--fast (the scenarios' shortened runs)"
    } else {
        "default (the scenarios' full runs)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invocation_round_trips_through_its_file() {
        let dir = std::env::temp_dir().join(format!("bbrlab-provenance-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(read(&dir).unwrap(), None);
        let invocation = Clock::start(Some("bbrlab sweep x.toml --fast".into()), true).finish(3);
        write(&dir, &invocation).unwrap();
        assert_eq!(read(&dir).unwrap(), Some(invocation.clone()));
        let rows = rows(&invocation);
        let value = |key: &str| rows.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        assert_eq!(
            value("command").as_deref(),
            Some("bbrlab sweep x.toml --fast")
        );
        assert!(value("fidelity").unwrap().starts_with("--fast"));
        assert!(value("wall time").unwrap().contains("3 runs recorded"));
        assert!(value("date").unwrap().ends_with('Z'));
        std::fs::write(dir.join(FILE), "{\"version\": 1").unwrap();
        let err = format!("{:#}", read(&dir).unwrap_err());
        assert!(
            err.contains("invocation.json: not an invocation record"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
