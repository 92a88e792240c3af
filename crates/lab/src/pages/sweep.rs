//! The page of a sweep (`bbrlab sweep`'s results store): the results in
//! the sweep's order with mean and spread over seeds, each metric against
//! each axis, and a Pantheon-style throughput against p95-delay scatter of
//! the controllers.

use std::path::Path;

use report::{BarGroup, Cell, Figure, Line, Report, Section, Table};

use crate::reproduce::data::Stat;
use crate::store::{record_defect, RunRecord, Store};

/// One point of the sweep without its seed: the runs of every seed.
struct Point<'a> {
    params: Vec<(String, scenario::AxisValue)>,
    runs: Vec<&'a RunRecord>,
}

/// A metric of a run: its name, its axis label, and how to read it.
type Metric = (&'static str, &'static str, fn(&RunRecord) -> f64);

/// Run records the page leaves out: `(file, why)`.
pub type Rejected = Vec<(std::path::PathBuf, String)>;

/// The metrics the page shows, each from a run's summary.
const METRICS: [Metric; 5] = [
    ("goodput", "total goodput (Mbit/s)", |r| {
        typed(r, |r| {
            r.flows.iter().map(|f| f.goodput_bps).sum::<f64>() / 1e6
        })
    }),
    (
        "retransmission ratio",
        "retransmitted / delivered (%)",
        |r| {
            typed(r, |r| {
                let delivered: f64 = r.flows.iter().map(|f| f.bytes_delivered as f64).sum();
                let retx: f64 = r.flows.iter().map(|f| f.bytes_retransmitted as f64).sum();
                if delivered > 0.0 {
                    100.0 * retx / delivered
                } else {
                    f64::NAN
                }
            })
        },
    ),
    ("p95 RTT", "worst flow's p95 RTT (ms)", |r| {
        typed(r, |r| {
            r.flows
                .iter()
                .map(|f| f.rtt_ms.p95)
                .fold(f64::NAN, f64::max)
        })
    }),
    ("utilization", "link utilization (%)", |r| {
        typed(r, |r| 100.0 * r.link.utilization)
    }),
    ("Jain's index", "Jain's index", |r| {
        typed(r, |r| r.jain_index)
    }),
];

/// `f` of a run's typed results; NaN if its summary is not a run result.
fn typed(r: &RunRecord, f: impl Fn(&sim::RunResult) -> f64) -> f64 {
    r.result().map_or(f64::NAN, f)
}

/// The records of the sweep in `dir`, in results.csv's order (the sweep's
/// order), each checked; unusable ones come back as `(file, why)`.
pub fn records(dir: &Path) -> anyhow::Result<(Vec<RunRecord>, Rejected)> {
    /// The column of results.csv the page needs: the run's id.
    #[derive(serde::Deserialize)]
    struct Listed {
        run_id: String,
    }
    let table = dir.join("results.csv");
    let ids = crate::table::read_rows::<Listed>(&table)?
        .into_iter()
        .map(|row| row.run_id);
    let store = Store::open(dir)?;
    let mut records = Vec::new();
    let mut rejected = Vec::new();
    for id in ids {
        match store.get(&id) {
            None => rejected.push((
                store.record_path(&id),
                "listed in results.csv but has no record".to_string(),
            )),
            Some(record) => match record_defect(&record) {
                Some(why) => rejected.push((store.record_path(&id), why)),
                None => records.push(record),
            },
        }
    }
    Ok((records, rejected))
}

/// The sweep's page; `rejected` records are named in it.
pub fn page(
    dir: &Path,
    records: &[RunRecord],
    rejected: &[(std::path::PathBuf, String)],
) -> Report {
    let name = records
        .first()
        .and_then(|r| r.result().ok())
        .map(|r| r.scenario.as_str())
        .unwrap_or("sweep")
        .to_string();
    let points = group(records);
    let axes: Vec<String> = points
        .first()
        .map(|p| p.params.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let seeds: std::collections::BTreeSet<u64> = records
        .iter()
        .filter_map(|r| r.result().ok().map(|r| r.seed))
        .collect();
    let mut report = Report::new(
        format!("bbrlab sweep: {name}"),
        format!(
            "{} runs over {} points; axes: {}",
            records.len(),
            points.len(),
            if axes.is_empty() {
                "none besides seeds".to_string()
            } else {
                axes.join(", ")
            }
        ),
    )
    .provenance("directory", dir.display().to_string());
    report = super::with_invocation(
        report,
        dir,
        records
            .first()
            .map_or("unknown".to_string(), |r| r.origin().build()),
    )
    .provenance(
        "seeds",
        seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    );
    let mut table_section = Section::new("results", "Results in the sweep's order")
        .description(if seeds.len() > 1 {
            "One row per point; mean ± sd over the seeds (n = seeds with a result)."
        } else {
            "One row per point (one seed: no spread)."
        })
        .table(results_table(&points));
    if !rejected.is_empty() {
        table_section.description.push_str(&format!(
            " Left out {} unusable run record(s): {}.",
            rejected.len(),
            rejected
                .iter()
                .map(|(f, why)| format!("{}: {why}", f.display()))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    report = report.section(table_section);
    for (i, axis) in axes.iter().enumerate() {
        report = report.section(axis_section(&points, i, axis));
    }
    report.section(pantheon_section(&points, &axes))
}

fn group(records: &[RunRecord]) -> Vec<Point<'_>> {
    let mut points: Vec<Point> = Vec::new();
    for r in records {
        let params: Vec<(String, scenario::AxisValue)> = r
            .params
            .iter()
            .filter(|(k, _)| k != "seed")
            .cloned()
            .collect();
        match points.iter_mut().find(|p| p.params == params) {
            Some(p) => p.runs.push(r),
            None => points.push(Point {
                params,
                runs: vec![r],
            }),
        }
    }
    points
}

fn stat(point: &Point, metric: fn(&RunRecord) -> f64) -> Stat {
    let values: Vec<f64> = point.runs.iter().map(|r| metric(r)).collect();
    Stat::of(&values)
}

fn results_table(points: &[Point]) -> Table {
    let axes: Vec<String> = points
        .first()
        .map(|p| p.params.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let header: Vec<String> = axes
        .iter()
        .cloned()
        .chain(["n".to_string()])
        .chain(METRICS.iter().map(|(_, axis, _)| axis.to_string()))
        .collect();
    let mut table = Table::new("Mean ± sd over seeds", header);
    for p in points {
        let cells = p
            .params
            .iter()
            .map(|(_, v)| Cell::text(v.label()))
            .chain([Cell::text(p.runs.len().to_string())])
            .chain(METRICS.iter().map(|(_, _, m)| {
                let s = stat(p, *m);
                Cell::text(s.text(if s.mean.abs() < 10.0 { 3 } else { 1 }))
            }));
        table = table.row(cells);
    }
    table
}

/// Each metric against axis `i`: one bar group per combination of the
/// other axes, mean with the sd over seeds as whiskers.
fn axis_section(points: &[Point], i: usize, axis: &str) -> Section {
    let mut values: Vec<String> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    let other_label = |p: &Point| {
        let rest: Vec<String> = p
            .params
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, (k, v))| format!("{k}={v}"))
            .collect();
        if rest.is_empty() {
            "all runs".to_string()
        } else {
            rest.join(" ")
        }
    };
    for p in points {
        let v = p.params[i].1.label().to_string();
        if !values.contains(&v) {
            values.push(v);
        }
        let o = other_label(p);
        if !others.contains(&o) {
            others.push(o);
        }
    }
    let mut section = Section::new(format!("axis-{i}"), format!("Metrics against {axis}"));
    for (name, y_label, metric) in METRICS {
        let groups: Vec<BarGroup> = others
            .iter()
            .map(|o| {
                let stats: Vec<Stat> = values
                    .iter()
                    .map(|v| {
                        points
                            .iter()
                            .find(|p| p.params[i].1.label() == v && other_label(p) == *o)
                            .map_or(Stat::of(&[]), |p| stat(p, metric))
                    })
                    .collect();
                BarGroup::new(o.clone(), stats.iter().map(|s| s.mean).collect()).errors(
                    stats
                        .iter()
                        .map(|s| if s.sd.is_finite() { s.sd } else { 0.0 })
                        .collect(),
                )
            })
            .collect();
        section = section.figure(Figure::bars(
            format!("{name} by {axis}"),
            axis.to_string(),
            y_label.to_string(),
            values.clone(),
            groups,
        ));
    }
    section
}

/// Throughput against p95 delay, one point per sweep point (mean over
/// seeds), grouped by controller when an axis sets one: Pantheon's view of
/// the trade-off (better is up and to the left).
fn pantheon_section(points: &[Point], axes: &[String]) -> Section {
    let cc_axis = axes.iter().position(|k| k.ends_with(".cc") || k == "cc");
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for p in points {
        let label = match cc_axis {
            Some(i) => p.params[i].1.label().to_string(),
            None => p
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
        };
        let delay = stat(p, METRICS[2].2).mean;
        let goodput = stat(p, METRICS[0].2).mean;
        match series.iter_mut().find(|(l, _)| *l == label) {
            Some((_, pts)) => pts.push((delay, goodput)),
            None => series.push((label, vec![(delay, goodput)])),
        }
    }
    let lines = series
        .into_iter()
        .map(|(label, mut pts)| {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Line::new(label, pts)
        })
        .collect();
    Section::new("throughput-delay", "Throughput against delay")
        .description(
            "Each point is one sweep point (mean over seeds): total goodput against the worst flow's p95 RTT. \
             Points of one controller are joined in order of delay. Better is up and to the left.",
        )
        .figure(Figure::lines(
            "Throughput vs p95 delay",
            "p95 RTT (ms)",
            "goodput (Mbit/s)",
            lines,
        ))
}
