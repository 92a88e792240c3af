//! Runs side by side (`bbrlab compare A B ...`): each run's summary with
//! its difference to the first, and the time series overlaid, one line per
//! (run, flow).

use report::{Cell, Figure, Line, Report, Section, Table};
use sim::{FlowColumn, FlowSummary, RunResult};

use super::run::RunOutput;
use super::series::rate_mbps;

/// The comparison page of `runs` (at least two); the first is the baseline.
pub fn page(runs: &[RunOutput]) -> Report {
    let names: Vec<String> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{} {}", letter(i), r.name()))
        .collect();
    let mut report = Report::new(
        "bbrlab compare",
        format!("{} runs; differences are against {}", runs.len(), names[0]),
    );
    for (name, run) in names.iter().zip(runs) {
        report = report.provenance(name.clone(), run_origin(run));
    }
    let (version, commit) = crate::provenance::build_id();
    report = report.provenance(
        "page",
        format!(
            "written {} by bbrlab {version} (commit {commit})",
            humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        ),
    );
    report
        .section(summary_section(runs))
        .section(series_section(runs))
}

/// Where a compared run comes from: its directory, build, date and command.
fn run_origin(run: &RunOutput) -> String {
    let mut origin = run.dir.display().to_string();
    match crate::provenance::read(&run.dir) {
        Ok(Some(p)) => {
            origin += &format!(
                "; bbrlab {} (commit {}), {}",
                p.version, p.commit, p.started
            );
            if let Some(command) = p.command {
                origin += &format!("; `{command}`");
            }
        }
        Ok(None) => {
            origin += &format!("; bbrlab {}, date not recorded", run.summary.origin.build())
        }
        Err(err) => origin += &format!("; {err:#}"),
    }
    origin
}

/// A, B, C, ... then A1, B1, ... past Z.
fn letter(i: usize) -> String {
    let c = (b'A' + (i % 26) as u8) as char;
    if i < 26 {
        c.to_string()
    } else {
        format!("{c}{}", i / 26)
    }
}

/// A number of a flow's summary.
type FlowField = fn(&FlowSummary) -> f64;

/// `(label, field of a flow summary, scale, decimals, unit)`: the rows the
/// table compares.
const ROWS: [(&str, FlowField, f64, u8, &str); 6] = [
    ("goodput", |f| f.goodput_bps, 1e-6, 2, "Mbit/s"),
    (
        "retransmission ratio",
        |f| f.retransmission_ratio,
        100.0,
        3,
        "%",
    ),
    ("loss ratio", |f| f.loss_ratio, 100.0, 3, "%"),
    ("RTT p50", |f| f.rtt_ms.p50, 1.0, 1, "ms"),
    ("RTT p95", |f| f.rtt_ms.p95, 1.0, 1, "ms"),
    ("mean cwnd", |f| f.mean_cwnd_bytes, 1e-3, 1, "KB"),
];

/// Field `of` of flow `flow`'s summary in `run` (NaN if the run has no
/// such flow).
fn flow_value(run: &RunOutput, flow: usize, of: FlowField) -> f64 {
    run.result().flows.get(flow).map_or(f64::NAN, of)
}

fn summary_section(runs: &[RunOutput]) -> Section {
    let mut header = vec!["flow".to_string(), "metric".to_string()];
    for (i, run) in runs.iter().enumerate() {
        header.push(format!("{} {}", letter(i), run.name()));
        if i > 0 {
            header.push(format!("{} - A", letter(i)));
        }
    }
    let mut table = Table::new("Per flow: each run, and its difference to A", header);
    let flows = runs
        .iter()
        .map(|r| r.result().flows.len())
        .max()
        .unwrap_or(0);
    for flow in 0..flows {
        for (label, of, scale, decimals, unit) in ROWS {
            let base = flow_value(&runs[0], flow, of) * scale;
            let mut cells = vec![Cell::text(flow.to_string()), Cell::text(label)];
            for (i, run) in runs.iter().enumerate() {
                let v = flow_value(run, flow, of) * scale;
                cells.push(Cell::fixed(v, decimals).with_unit(unit));
                if i > 0 {
                    cells.push(Cell::text(signed(v - base, decimals, unit)));
                }
            }
            table = table.row(cells);
        }
    }
    let mut link = Table::new("The bottleneck", {
        let mut h = vec!["metric".to_string()];
        h.extend((0..runs.len()).map(|i| format!("{} {}", letter(i), runs[i].name())));
        h
    });
    let link_rows: [(&str, fn(&RunResult) -> f64, f64, u8, &str); 3] = [
        ("utilization", |r| r.link.utilization, 100.0, 1, "%"),
        (
            "queueing delay p95",
            |r| r.link.queue_delay_ms.p95,
            1.0,
            1,
            "ms",
        ),
        ("Jain's index", |r| r.jain_index, 1.0, 3, ""),
    ];
    for (label, of, scale, decimals, unit) in link_rows {
        let mut cells = vec![Cell::text(label)];
        for run in runs {
            let v = of(run.result());
            cells.push(Cell::fixed(v * scale, decimals).with_unit(unit));
        }
        link = link.row(cells);
    }
    Section::new("summary", "Summaries side by side")
        .table(table)
        .table(link)
}

fn signed(delta: f64, decimals: u8, unit: &str) -> String {
    if !delta.is_finite() {
        return "—".to_string();
    }
    let d = decimals as usize;
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    format!("{delta:+.d$}{unit}")
}

fn series_section(runs: &[RunOutput]) -> Section {
    let missing: Vec<String> = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.flows.is_none())
        .map(|(i, r)| format!("{} ({})", letter(i), r.dir.display()))
        .collect();
    let lines = |column: FlowColumn, scale: f64, goodput: bool| -> Vec<Line> {
        runs.iter()
            .enumerate()
            .filter_map(|(i, run)| run.flows.as_ref().map(|f| (i, run, f)))
            .flat_map(|(i, run, series)| {
                let bin = (run.duration_s() / 200.0).max(0.05);
                run.flow_labels().into_iter().map(move |(id, label)| {
                    let points = if goodput {
                        rate_mbps(&FlowColumn::Delivered.points(series, id), bin)
                    } else {
                        column
                            .points(series, id)
                            .into_iter()
                            .map(|(t, v)| (t, v * scale))
                            .collect()
                    };
                    Line::new(format!("{}: {label}", letter(i)), points)
                })
            })
            .collect()
    };
    let mut section = Section::new("time-series", "Time series overlaid")
        .description("One line per run and flow; the letter is the run's.");
    if !missing.is_empty() {
        section.description.push_str(&format!(
            " Without time series (run with --no-series): {}.",
            missing.join(", ")
        ));
    }
    section
        .figure(Figure::lines(
            "Goodput",
            "time (s)",
            "goodput (Mbit/s)",
            lines(FlowColumn::Delivered, 1.0, true),
        ))
        .figure(Figure::lines(
            "Bandwidth estimate",
            "time (s)",
            "Mbit/s",
            lines(FlowColumn::BwEstimateBps, 1e-6, false),
        ))
        .figure(Figure::lines(
            "Congestion window",
            "time (s)",
            "cwnd (KB)",
            lines(FlowColumn::Cwnd, 1e-3, false),
        ))
        .figure(Figure::lines(
            "Smoothed RTT",
            "time (s)",
            "srtt (ms)",
            lines(FlowColumn::SrttMs, 1.0, false),
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_signed_deltas() {
        assert_eq!(letter(0), "A");
        assert_eq!(letter(25), "Z");
        assert_eq!(letter(26), "A1");
        assert_eq!(signed(1.234, 2, "ms"), "+1.23 ms");
        assert_eq!(signed(-0.5, 1, ""), "-0.5");
        assert_eq!(signed(f64::NAN, 1, "%"), "—");
    }
}
