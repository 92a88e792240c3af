//! What `bbrlab run` writes and prints.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sim::RunResult;

use crate::table::{self, Format};

/// The summary as written to summary.json: the run's results plus where
/// they came from.
#[derive(Serialize)]
struct Summary<'a> {
    #[serde(flatten)]
    result: &'a RunResult,
    scenario_file: String,
    bbrlab_version: &'static str,
    /// The git commit the binary was built from ("unknown" outside a checkout).
    bbrlab_commit: &'static str,
}

/// The summary.json contents of a run.
pub fn summary<'a>(scenario: &scenario::Scenario, result: &'a RunResult) -> impl Serialize + 'a {
    let (bbrlab_version, bbrlab_commit) = crate::provenance::build_id();
    Summary {
        result,
        scenario_file: scenario.source.display().to_string(),
        bbrlab_version,
        bbrlab_commit,
    }
}

/// How a run's results came about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The packet-level simulator.
    Simulated,
    /// Real QUIC connections through the real-time link emulator.
    Emulated,
}

/// A run's summary.json: the summary and its mode.
#[derive(Serialize)]
struct RunSummary<S: Serialize> {
    mode: Mode,
    #[serde(flatten)]
    summary: S,
}

/// What a summary.json records beside the results: how and by which
/// build they came about. Each is absent from some outputs (a sweep's
/// records carry no mode; older versions wrote no commit).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct SummaryOrigin {
    /// Simulated or emulated.
    pub mode: Option<Mode>,
    /// The scenario file run.
    pub scenario_file: Option<String>,
    /// The bbrlab version that wrote the summary.
    pub bbrlab_version: Option<String>,
    /// The git commit of that build.
    pub bbrlab_commit: Option<String>,
}

impl SummaryOrigin {
    /// The origin a summary's JSON records; a field that is not what it
    /// should be (a version that is not text) counts as not recorded.
    pub fn of(summary: &serde_json::Value) -> SummaryOrigin {
        SummaryOrigin::deserialize(summary).unwrap_or_default()
    }

    /// The build the summary records: "0.1.0 (commit abc123)", "0.1.0
    /// (commit not recorded)" or "unknown".
    pub fn build(&self) -> String {
        match (&self.bbrlab_version, &self.bbrlab_commit) {
            (Some(v), Some(c)) => format!("{v} (commit {c})"),
            (Some(v), None) => format!("{v} (commit not recorded)"),
            _ => "unknown".to_string(),
        }
    }
}

/// A run's summary.json read back as types: the simulator's
/// [`RunResult`] (an emulated run's too: the emulator reports in the
/// simulator's type) and its [`SummaryOrigin`].
#[derive(Clone, Debug)]
pub struct SummaryFile {
    /// The run's results (without time series, which are files of their own).
    pub result: RunResult,
    /// How and by which build they came about.
    pub origin: SummaryOrigin,
}

impl SummaryFile {
    /// Reads the summary.json at `path`.
    ///
    /// # Errors
    /// The file cannot be read, is not JSON, or is not a run result this
    /// version reads (a summary of another version, with other fields):
    /// the message names the file, the field or the line and column, and
    /// the build that wrote it.
    pub fn read(path: &Path) -> anyhow::Result<SummaryFile> {
        let text =
            fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        SummaryFile::parse(&text, path)
    }

    /// Parses a summary.json's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> anyhow::Result<SummaryFile> {
        let json: serde_json::Value = serde_json::from_str(text)
            .with_context(|| format!("{}: not a run summary (invalid JSON)", path.display()))?;
        anyhow::ensure!(
            json.get("flows").is_some_and(serde_json::Value::is_array),
            "{}: not a run summary (no `flows` list)",
            path.display()
        );
        let origin = SummaryOrigin::of(&json);
        // From the text, so that an error names its line and column.
        let result: RunResult = serde_json::from_str(text).with_context(|| {
            format!(
                "{}: a run summary this version of bbrlab cannot read (written by bbrlab {}); \
                 run its scenario again with this version",
                path.display(),
                origin.build()
            )
        })?;
        anyhow::ensure!(
            !result.flows.is_empty(),
            "{}: not a run summary (its `flows` list is empty)",
            path.display()
        );
        Ok(SummaryFile { result, origin })
    }
}

/// Writes summary.json (with `"mode"`), flows.csv, scenario.toml and, in
/// `series` format if given, the time series.
pub fn write_all(
    dir: &Path,
    scenario: &scenario::Scenario,
    result: &RunResult,
    mode: Mode,
    series: Option<Format>,
) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(&RunSummary {
        mode,
        summary: summary(scenario, result),
    })
    .context("serialising summary")?;
    write(dir, "summary.json", json + "\n")?;
    write(dir, "scenario.toml", scenario.document.clone())?;
    table::write(
        dir,
        "flows",
        Format::Csv,
        result.flows.iter().map(FlowRow::from),
    )?;
    if let Some(format) = series {
        write_series(dir, result, format)?;
    }
    Ok(())
}

/// Writes series_flows, series_link and series_controller (`.parquet` or
/// `.csv` by `format`), and series_dash when a DASH player logged its
/// decisions (`sim::app::dash::log`).
pub fn write_series(dir: &Path, result: &RunResult, format: Format) -> anyhow::Result<()> {
    table::write(dir, "series_flows", format, result.series.flows.iter())?;
    table::write(dir, "series_link", format, result.series.link.iter())?;
    if !result.series.dash.is_empty() {
        table::write(dir, "series_dash", format, result.series.dash.iter())?;
    }
    table::write(
        dir,
        "series_controller",
        format,
        result.series.flows.iter().flat_map(|s| {
            s.controller
                .iter()
                .map(move |&(name, value)| ControllerRow {
                    t_s: s.t_s,
                    flow: s.flow,
                    name: name.into(),
                    value,
                })
        }),
    )?;
    Ok(())
}

/// One series_controller row: a controller state variable at one instant
/// (written from a run's samples, read back by the experiments' measures).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct ControllerRow {
    /// Time, seconds.
    pub t_s: f64,
    /// Flow index.
    pub flow: usize,
    /// The variable's name (`Snapshot::extra`, e.g. `inflight_hi`).
    pub name: std::borrow::Cow<'static, str>,
    /// Its value.
    pub value: f64,
}

fn write(dir: &Path, name: &str, content: String) -> anyhow::Result<()> {
    let path = dir.join(name);
    fs::write(&path, content).with_context(|| format!("cannot write {}", path.display()))
}

fn csv_text<T: Serialize>(rows: impl Iterator<Item = T>) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The flow and link time series as CSV text, exactly as series_flows.csv
/// and series_link.csv hold them (for callers that keep them in memory).
pub fn series_csv(result: &RunResult) -> anyhow::Result<(String, String)> {
    Ok((
        csv_text(result.series.flows.iter())?,
        csv_text(result.series.link.iter())?,
    ))
}

/// One flows.csv row: the summary with the RTT percentiles flattened.
#[derive(Serialize)]
struct FlowRow<'a> {
    id: usize,
    cc: &'a str,
    start_s: f64,
    base_rtt_ms: f64,
    goodput_bps: f64,
    retransmission_ratio: f64,
    loss_ratio: f64,
    bytes_sent: u64,
    bytes_delivered: u64,
    bytes_retransmitted: u64,
    bytes_lost: u64,
    bytes_dropped: u64,
    rtt_p50_ms: f64,
    rtt_p95_ms: f64,
    rtt_p99_ms: f64,
    mean_cwnd_bytes: f64,
    completion_time_s: Option<f64>,
    startup_exit_s: Option<f64>,
    padding_bytes: u64,
    bw_sample_rmse_bps: Option<f64>,
    late_frame_ratio: Option<f64>,
}

impl<'a> From<&'a sim::FlowSummary> for FlowRow<'a> {
    fn from(f: &'a sim::FlowSummary) -> Self {
        FlowRow {
            id: f.id,
            cc: &f.cc,
            start_s: f.start_s,
            base_rtt_ms: f.base_rtt_ms,
            goodput_bps: f.goodput_bps,
            retransmission_ratio: f.retransmission_ratio,
            loss_ratio: f.loss_ratio,
            bytes_sent: f.bytes_sent,
            bytes_delivered: f.bytes_delivered,
            bytes_retransmitted: f.bytes_retransmitted,
            bytes_lost: f.bytes_lost,
            bytes_dropped: f.bytes_dropped,
            rtt_p50_ms: f.rtt_ms.p50,
            rtt_p95_ms: f.rtt_ms.p95,
            rtt_p99_ms: f.rtt_ms.p99,
            mean_cwnd_bytes: f.mean_cwnd_bytes,
            completion_time_s: f.completion_time_s,
            startup_exit_s: f.startup_exit_s,
            padding_bytes: f.padding_bytes,
            bw_sample_rmse_bps: f.bw_sample_rmse_bps,
            late_frame_ratio: f.live.as_ref().map(|l| l.late_frame_ratio),
        }
    }
}

/// The human-readable table printed after a run.
pub fn table(scenario: &scenario::Scenario, r: &RunResult, mode: Mode) -> String {
    let mut s = String::new();
    let speed = if r.wall_time_s > 0.0 {
        r.sim_time_s / r.wall_time_s
    } else {
        f64::INFINITY
    };
    match mode {
        Mode::Simulated => {
            let _ = writeln!(
                s,
                "{} (seed {}): {:.1} s simulated in {:.2} s ({:.0}x real time), {} events",
                scenario.name, r.seed, r.sim_time_s, r.wall_time_s, speed, r.events
            );
        }
        Mode::Emulated => {
            let stacks = if !scenario.has_kernel_flows() {
                "s2n-quic through the link emulator"
            } else if scenario.config.flows.iter().all(|f| f.kernel.is_some()) {
                "the kernel's TCP through the link emulator's shell"
            } else {
                "the kernel's TCP and s2n-quic through the link emulator's shell"
            };
            let _ = writeln!(
                s,
                "{} (seed {}): {:.1} s emulated in real time ({stacks})",
                scenario.name, r.seed, r.sim_time_s
            );
        }
    }
    let _ = writeln!(
        s,
        "link: capacity {:.2} Mbit/s, utilization {:.1}%, queueing delay p50 {:.1} ms p95 {:.1} ms, Jain {:.3}",
        r.link.capacity_bps / 1e6,
        r.link.utilization * 100.0,
        r.link.queue_delay_ms.p50,
        r.link.queue_delay_ms.p95,
        r.jain_index
    );
    let width = r.flows.iter().map(|f| f.cc.len()).max().unwrap_or(2).max(2);
    let _ = writeln!(
        s,
        "{:>4}  {:width$}  {:>13}  {:>8}  {:>8}  {:>9}  {:>9}  {:>9}  {:>10}",
        "flow",
        "cc",
        "goodput Mb/s",
        "retx %",
        "loss %",
        "rtt p50",
        "rtt p95",
        "rtt p99",
        "done (s)"
    );
    for f in &r.flows {
        let done = f
            .completion_time_s
            .map_or("-".to_string(), |t| format!("{t:.2}"));
        let _ = writeln!(
            s,
            "{:>4}  {:width$}  {:>13.2}  {:>8.3}  {:>8.3}  {:>9.1}  {:>9.1}  {:>9.1}  {:>10}",
            f.id,
            f.cc,
            f.goodput_bps / 1e6,
            f.retransmission_ratio * 100.0,
            f.loss_ratio * 100.0,
            f.rtt_ms.p50,
            f.rtt_ms.p95,
            f.rtt_ms.p99,
            done
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short simulated run and its summary.json text, as `bbrlab run`
    /// writes it in `mode`.
    fn summary_text(mode: Mode) -> (RunResult, String) {
        let text = "name = \"s\"\nduration = \"2s\"\n[link]\nrate = \"10Mbit\"\nrtt = \"20ms\"\n\
                    buffer = \"1bdp\"\n[[flow]]\ncc = \"bbr\"\n";
        let scenario = scenario::from_str(text, Path::new("s.toml"), &[]).unwrap();
        let result = crate::run::simulate_with(&scenario, false).unwrap();
        let json = serde_json::to_string_pretty(&RunSummary {
            mode,
            summary: summary(&scenario, &result),
        })
        .unwrap();
        (result, json)
    }

    #[test]
    fn a_summary_reads_back_as_the_result_written_with_its_origin() {
        for mode in [Mode::Simulated, Mode::Emulated] {
            let (result, text) = summary_text(mode);
            let read = SummaryFile::parse(&text, Path::new("summary.json")).unwrap();
            // Every field of the file but the origin's is the result's
            // (numbers as JSON text reads them, to the last digit).
            let mut written: serde_json::Value = serde_json::from_str(&text).unwrap();
            for origin in ["mode", "scenario_file", "bbrlab_version", "bbrlab_commit"] {
                written.as_object_mut().unwrap().remove(origin);
            }
            assert_eq!(serde_json::to_value(&read.result).unwrap(), written);
            assert_eq!(read.result.flows[0].bytes_sent, result.flows[0].bytes_sent);
            assert_eq!(read.origin.mode, Some(mode));
            assert_eq!(read.origin.scenario_file.as_deref(), Some("s.toml"));
            let (version, commit) = crate::provenance::build_id();
            assert_eq!(read.origin.build(), format!("{version} (commit {commit})"));
        }
        // A sweep's record has no mode; a summary of an older version no commit.
        let mut json: serde_json::Value =
            serde_json::from_str(&summary_text(Mode::Simulated).1).unwrap();
        let object = json.as_object_mut().unwrap();
        object.remove("mode");
        object.remove("bbrlab_commit");
        let origin = SummaryOrigin::of(&json);
        assert_eq!(origin.mode, None);
        assert!(
            origin.build().ends_with("(commit not recorded)"),
            "{}",
            origin.build()
        );
        assert_eq!(
            SummaryOrigin::of(&serde_json::Value::Null).build(),
            "unknown"
        );
    }

    #[test]
    fn a_summary_it_cannot_read_is_named_with_the_field_and_its_build() {
        let (_, text) = summary_text(Mode::Simulated);
        let path = Path::new("out/summary.json");
        let error = |text: &str| format!("{:#}", SummaryFile::parse(text, path).unwrap_err());
        // An older version's summary, without a field this one has.
        let older = text.replacen("\"capacity_peak_bps\"", "\"peak_bps\"", 1);
        let e = error(&older);
        assert!(
            e.starts_with("out/summary.json: a run summary this version of bbrlab cannot read (written by bbrlab ")
                && e.contains("missing field `capacity_peak_bps`")
                && e.contains("line "),
            "{e}"
        );
        // A number that is not one.
        let garbled = text.replacen("\"goodput_bps\": ", "\"goodput_bps\": \"fast\", \"x\": ", 1);
        let e = error(&garbled);
        assert!(
            e.contains("invalid type: string \"fast\", expected f64"),
            "{e}"
        );
        assert_eq!(
            error("{ truncated"),
            "out/summary.json: not a run summary (invalid JSON): key must be a string at line 1 column 3"
        );
        assert_eq!(
            error("{\"scenario\": \"s\"}"),
            "out/summary.json: not a run summary (no `flows` list)"
        );
        let no_flows = serde_json::to_string(&{
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["flows"] = serde_json::json!([]);
            v
        })
        .unwrap();
        assert_eq!(
            error(&no_flows),
            "out/summary.json: not a run summary (its `flows` list is empty)"
        );
    }
}
