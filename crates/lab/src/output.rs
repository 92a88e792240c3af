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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
