//! The page of one run (`bbrlab run`'s output directory): the summary
//! table and, when the time series were kept, one figure per quantity with
//! a line per flow: goodput, cwnd, bytes in flight, pacing rate, bandwidth
//! estimate against the link capacity, RTT, pacing gain, and the
//! bottleneck's queue, with the time each controller spent in each mode.

use std::path::Path;

use report::{Cell, Figure, Line, LineStyle, Report, Section, Table};
use sim::RunResult;

use crate::output::SummaryFile;

use sim::{FlowColumn, FlowSample, LinkColumn, LinkSample};

use super::series::{flow_modes, mode_shares, rate_mbps, split_by_mode};

/// A run's outputs, read back.
pub struct RunOutput {
    /// The directory.
    pub dir: std::path::PathBuf,
    /// summary.json, as types.
    pub summary: SummaryFile,
    /// The flows' time series (series_flows), if written, as the
    /// simulator's rows.
    pub flows: Option<Vec<FlowSample>>,
    /// The bottleneck's time series (series_link), if written.
    pub link: Option<Vec<LinkSample>>,
}

impl RunOutput {
    /// Reads a run's directory; the time series are optional (`--no-series`).
    ///
    /// # Errors
    /// summary.json cannot be read ([`SummaryFile::read`]), or a series
    /// file's row does not fit the simulator's row (a truncated file, a
    /// column another version wrote differently): named with its line or row.
    pub fn read(dir: &Path) -> anyhow::Result<RunOutput> {
        let summary = SummaryFile::read(&dir.join("summary.json"))?;
        Ok(RunOutput {
            dir: dir.to_path_buf(),
            flows: optional_rows(dir, "series_flows")?,
            link: optional_rows(dir, "series_link")?,
            summary,
        })
    }

    /// The run's results.
    pub fn result(&self) -> &RunResult {
        &self.summary.result
    }

    /// The scenario's name.
    pub fn name(&self) -> String {
        self.result().scenario.clone()
    }

    /// `flow i (cc)` labels, in flow order.
    pub fn flow_labels(&self) -> Vec<(usize, String)> {
        self.result()
            .flows
            .iter()
            .map(|f| (f.id, format!("flow {} ({})", f.id, f.cc)))
            .collect()
    }

    /// The simulated duration, seconds.
    pub fn duration_s(&self) -> f64 {
        self.result().sim_time_s
    }
}

/// The rows of a run's series `stem` (its Parquet or CSV file), if it has one.
fn optional_rows<T: serde::de::DeserializeOwned>(
    dir: &Path,
    stem: &str,
) -> anyhow::Result<Option<Vec<T>>> {
    crate::table::find(dir, stem)
        .map(|path| crate::table::read_rows(&path))
        .transpose()
}

/// The run's page.
pub fn page(run: &RunOutput) -> Report {
    let s = run.result();
    let origin = &run.summary.origin;
    let mut report = Report::new(
        format!("bbrlab run: {}", run.name()),
        format!(
            "seed {}, {:.1} s simulated in {:.2} s",
            s.seed,
            run.duration_s(),
            s.wall_time_s
        ),
    )
    .provenance("directory", run.dir.display().to_string());
    report = super::with_invocation(report, &run.dir, origin.build())
        .provenance(
            "scenario",
            origin
                .scenario_file
                .clone()
                .unwrap_or_else(|| "unknown".to_string()),
        )
        .provenance("seed", s.seed.to_string());
    report = report.section(summary_section(run));
    report = match (&run.flows, &run.link) {
        (Some(flows), link) => report.section(series_section(run, flows, link.as_deref())),
        (None, _) => report.section(Section::new("time-series", "Time series").description(
            "This run kept no time series (it ran with --no-series); rerun without it to see them.",
        )),
    };
    report.note(
        "Goodput: application bytes delivered in order / measurement time. Retransmission ratio: retransmitted / delivered bytes. \
         Loss ratio: bytes dropped anywhere / bytes sent. Jain's index over per-flow goodputs.",
    )
}

fn summary_section(run: &RunOutput) -> Section {
    let s = run.result();
    let link = &s.link;
    let mut flows = Table::new(
        "Per flow, over the measurement window",
        [
            "flow",
            "controller",
            "goodput",
            "retransmission ratio",
            "loss ratio",
            "RTT p50",
            "RTT p95",
            "RTT p99",
            "completion",
        ],
    );
    for f in &s.flows {
        flows = flows.row([
            Cell::text(f.id.to_string()),
            Cell::text(f.cc.as_str()),
            Cell::fixed(f.goodput_bps / 1e6, 2).with_unit("Mbit/s"),
            Cell::percent(f.retransmission_ratio, 3),
            Cell::percent(f.loss_ratio, 3),
            Cell::fixed(f.rtt_ms.p50, 1).with_unit("ms"),
            Cell::fixed(f.rtt_ms.p95, 1).with_unit("ms"),
            Cell::fixed(f.rtt_ms.p99, 1).with_unit("ms"),
            f.completion_time_s
                .map_or(Cell::text("—"), |t| Cell::fixed(t, 2).with_unit("s")),
        ]);
    }
    let bottleneck = Table::new("The bottleneck", ["quantity", "value"])
        .row([
            Cell::text("mean capacity"),
            Cell::fixed(link.capacity_bps / 1e6, 2).with_unit("Mbit/s"),
        ])
        .row([
            Cell::text("utilization"),
            Cell::percent(link.utilization, 1),
        ])
        .row([
            Cell::text("queueing delay p50 / p95"),
            Cell::text(format!(
                "{:.1} / {:.1} ms",
                link.queue_delay_ms.p50, link.queue_delay_ms.p95
            )),
        ])
        .row([Cell::text("Jain's index"), Cell::fixed(s.jain_index, 3)]);
    Section::new("summary", "Summary")
        .table(flows)
        .table(bottleneck)
}

/// Flows whose controller modes get a figure of their own (the table of
/// time in each mode covers every flow).
const MODE_FIGURES: usize = 4;

/// The time-series bin for goodput: about 200 points over the run, never
/// finer than the samples.
fn goodput_bin(duration_s: f64) -> f64 {
    (duration_s / 200.0).max(0.05)
}

/// Pacing rates above this multiple of the link's peak capacity are cut
/// from the plot: only the first rounds of Startup reach them (its gain of
/// 2.89 on a first, overestimated sample: 340 Mbit/s on a 20 Mbit/s link),
/// and drawn they flatten the rest of the run against the axis. Three
/// keeps Startup's 2.89 x a correct estimate in view.
const PACING_PLOT_CAPACITY_MULTIPLE: f64 = 3.0;

/// The pacing-rate plot, its y axis capped at
/// [`PACING_PLOT_CAPACITY_MULTIPLE`] x the link's peak capacity when a
/// sample exceeds that (the chart then says what is not shown).
fn pacing_figure(lines: Vec<Line>, link: Option<&[LinkSample]>) -> Figure {
    let peak_mbps = link.map_or(0.0, |link| {
        link.iter()
            .map(|s| s.capacity_bps / 1e6)
            .fold(0.0, f64::max)
    });
    let cap = pacing_axis_cap(&lines, peak_mbps);
    let figure = Figure::lines("Pacing rate", "time (s)", "pacing rate (Mbit/s)", lines);
    match cap {
        Some(cap) => figure.y_range(0.0, cap),
        None => figure,
    }
}

/// The pacing plot's top, if some sample lies above
/// [`PACING_PLOT_CAPACITY_MULTIPLE`] x `peak_capacity_mbps` (none without
/// a known capacity).
fn pacing_axis_cap(lines: &[Line], peak_capacity_mbps: f64) -> Option<f64> {
    let cap = PACING_PLOT_CAPACITY_MULTIPLE * peak_capacity_mbps;
    let above = lines.iter().any(|l| l.points.iter().any(|&(_, v)| v > cap));
    (cap > 0.0 && above).then_some(cap)
}

fn series_section(run: &RunOutput, flows: &[FlowSample], link: Option<&[LinkSample]>) -> Section {
    let labels = run.flow_labels();
    let per_flow = |column: FlowColumn, scale: f64| -> Vec<Line> {
        labels
            .iter()
            .map(|(id, label)| {
                Line::new(
                    label.clone(),
                    column
                        .points(flows, *id)
                        .into_iter()
                        .map(|(t, v)| (t, v * scale))
                        .collect(),
                )
            })
            .collect()
    };
    let bin = goodput_bin(run.duration_s());
    let goodput: Vec<Line> = labels
        .iter()
        .map(|(id, label)| {
            Line::new(
                label.clone(),
                rate_mbps(&FlowColumn::Delivered.points(flows, *id), bin),
            )
        })
        .collect();
    // Controllers without a bandwidth model (CUBIC, Reno) report 0: leave
    // them out rather than draw a line along the axis.
    let mut estimate: Vec<Line> = per_flow(FlowColumn::BwEstimateBps, 1e-6)
        .into_iter()
        .filter(|l| l.points.iter().any(|&(_, v)| v > 0.0))
        .collect();
    if let Some(link) = link {
        estimate.push(
            Line::new(
                "link capacity",
                LinkColumn::CapacityBps
                    .points(link)
                    .into_iter()
                    .map(|(t, v)| (t, v / 1e6))
                    .collect(),
            )
            .style(LineStyle::Step),
        );
    }
    let gains: Vec<Line> = per_flow(FlowColumn::PacingGain, 1.0)
        .into_iter()
        .map(|l| l.style(LineStyle::Step))
        .collect();
    let mut description = format!(
        "Every sample of the run's recorder, one line per flow. Goodput is averaged over {bin:.2} s bins."
    );
    if labels.len() > MODE_FIGURES {
        description += &format!(
            " Controller modes over time are drawn for the first {MODE_FIGURES} of {} flows; the table below covers all.",
            labels.len()
        );
    }
    let mut section = Section::new("time-series", "Time series")
        .description(description)
        .figure(Figure::lines(
            "Goodput",
            "time (s)",
            "goodput (Mbit/s)",
            goodput,
        ))
        .figure(Figure::lines(
            "Bandwidth estimate and link capacity",
            "time (s)",
            "Mbit/s",
            estimate,
        ))
        .figure(Figure::lines(
            "Congestion window",
            "time (s)",
            "cwnd (KB)",
            per_flow(FlowColumn::Cwnd, 1e-3),
        ))
        .figure(Figure::lines(
            "Bytes in flight",
            "time (s)",
            "inflight (KB)",
            per_flow(FlowColumn::Inflight, 1e-3),
        ))
        .figure(pacing_figure(
            per_flow(FlowColumn::PacingRateBps, 1e-6),
            link,
        ))
        .figure(Figure::lines(
            "Smoothed RTT",
            "time (s)",
            "srtt (ms)",
            per_flow(FlowColumn::SrttMs, 1.0),
        ))
        .figure(Figure::lines(
            "Pacing gain (controller state)",
            "time (s)",
            "pacing gain",
            gains,
        ));
    if let Some(link) = link {
        section = section.figure(Figure::lines(
            "Bottleneck queue",
            "time (s)",
            "queue (KB)",
            vec![Line::new(
                "queue",
                LinkColumn::QueueBytes
                    .points(link)
                    .into_iter()
                    .map(|(t, v)| (t, v / 1e3))
                    .collect(),
            )],
        ));
    }
    // Mode bands: each flow's cwnd coloured by the controller's mode, so
    // when it probed, drained or recovered shows against what it did.
    for (id, label) in labels.iter().take(MODE_FIGURES) {
        let cwnd: Vec<(f64, f64)> = FlowColumn::Cwnd
            .points(flows, *id)
            .into_iter()
            .map(|(t, v)| (t, v * 1e-3))
            .collect();
        let pieces = split_by_mode(&cwnd, &flow_modes(flows, *id));
        if pieces.is_empty() {
            continue;
        }
        section = section.figure(Figure::lines(
            format!("Controller mode over time: {label}"),
            "time (s)",
            "cwnd (KB), coloured by mode",
            pieces
                .into_iter()
                .map(|(mode, points)| Line::new(mode, points))
                .collect(),
        ));
    }
    let mut modes = Table::new(
        "Time in each controller mode (share of samples)",
        ["flow", "modes", "mode changes"],
    );
    for (id, label) in &labels {
        let (shares, changes) = mode_shares(&flow_modes(flows, *id));
        let text = shares
            .iter()
            .map(|(m, share)| format!("{m} {:.1}%", share * 100.0))
            .collect::<Vec<_>>()
            .join(", ");
        modes = modes.row([
            Cell::text(label.clone()),
            Cell::text(text),
            Cell::text(changes.to_string()),
        ]);
    }
    section.table(modes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pacing_plot_cuts_only_startups_spike_above_three_capacities() {
        let spike = Line::new("bbr", vec![(0.0, 340.0), (1.0, 25.0), (2.0, 20.0)]);
        assert_eq!(
            pacing_axis_cap(std::slice::from_ref(&spike), 20.0),
            Some(60.0)
        );
        let calm = Line::new("bbr", vec![(0.0, 57.8), (1.0, 25.0)]);
        assert_eq!(pacing_axis_cap(&[calm], 20.0), None);
        assert_eq!(pacing_axis_cap(&[spike], 0.0), None, "no capacity known");
    }
}
