//! obbr: Fig. 8: 1..5 flows of one controller (100 Mbit/s, 40 ms, R = 0.5).
//!
//! Also home of the helpers that Figs. 9, 11 and 12 share: the paper's
//! controller names, per-flow summary values, means over seeds and
//! "mean ± sd" table cells.

use report::{BarGroup, Cell, Figure, Line, Section, Table};

use crate::reproduce::data::{mean_sd, metric};
use crate::reproduce::verdict::{judge, mean_sd_cell, paper_name};
use crate::reproduce::{Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 8: 1..5 flows of one controller.
pub const MULTI_FLOW: Experiment = Experiment {
    id: "fig8-multi-flow",
    scenario: "obbr/fig8-multi-flow.toml",
    series: false,
    analyze: |runs| fig8_multi_flow(runs).into(),
};

/// Whether a controller spec is one of the oBBR variants.
pub(super) fn is_obbr(spec: &str) -> bool {
    spec.starts_with("obbr")
}

/// A summary field of every flow of a run (`/flows/<i>/<field>`), in flow
/// order; flows without the field are left out.
pub(super) fn per_flow(record: &RunRecord, field: &str) -> Vec<f64> {
    record
        .summary
        .pointer("/flows")
        .and_then(|f| f.as_array())
        .map(|flows| {
            flows
                .iter()
                .filter_map(|f| f.get(field).and_then(|v| v.as_f64()))
                .collect()
        })
        .unwrap_or_default()
}

/// The mean of some values, or `None` when there are none.
pub(super) fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| mean_sd(values).0)
}

/// A per-flow retransmission ratio of the runs: the mean over a run's flows.
fn mean_flow_retransmissions(record: &RunRecord) -> Option<f64> {
    mean(&per_flow(record, "retransmission_ratio"))
}

/// A run's goodput per flow: the mean over its flows.
fn mean_flow_goodput(record: &RunRecord) -> Option<f64> {
    mean(&per_flow(record, "goodput_bps"))
}

/// The flow count (an axis value) with the largest mean of `value`, and that mean.
fn worst_count(counts: &[String], value: impl Fn(&str) -> f64) -> Option<(String, f64)> {
    counts
        .iter()
        .map(|n| (n.clone(), value(n)))
        .filter(|(_, v)| v.is_finite())
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

fn fig8_multi_flow(runs: &Runs) -> Section {
    let ccs = runs.axis("flow.0.cc");
    let counts = runs.axis("flow.0.count");
    let stat = |cc: &str, n: &str, value: fn(&RunRecord) -> Option<f64>| {
        runs.over_seeds(&[("flow.0.cc", cc), ("flow.0.count", n)], value)
            .pair()
    };
    let retx = |cc: &str, n: &str| stat(cc, n, mean_flow_retransmissions);
    let goodput = |cc: &str, n: &str| stat(cc, n, mean_flow_goodput);
    let jain = |cc: &str, n: &str| stat(cc, n, |r| metric(r, "/jain_index"));
    let utilization = |cc: &str, n: &str| stat(cc, n, |r| metric(r, "/link/utilization"));
    let count_label = |n: &str| format!("{n} flow{}", if n == "1" { "" } else { "s" });
    let categories: Vec<String> = counts.iter().map(|n| count_label(n)).collect();

    let bars = |value: &dyn Fn(&str, &str) -> (f64, f64), scale: f64| -> Vec<BarGroup> {
        ccs.iter()
            .map(|cc| {
                let stats: Vec<_> = counts.iter().map(|n| value(cc, n)).collect();
                BarGroup::new(paper_name(cc), stats.iter().map(|s| s.0 * scale).collect())
                    .errors(stats.iter().map(|s| s.1 * scale).collect())
            })
            .collect()
    };
    let retx_figure = Figure::bars(
        "Retransmission ratio per flow",
        "flows of one controller",
        "retransmitted / delivered (%)",
        categories.clone(),
        bars(&retx, 100.0),
    )
    .log_y();
    let goodput_figure = Figure::bars(
        "Goodput per flow",
        "flows of one controller",
        "goodput (Mbit/s)",
        categories.clone(),
        bars(&goodput, 1e-6),
    );
    let count_of = |n: &str| n.parse::<f64>().unwrap_or(f64::NAN);
    let jain_figure = Figure::lines(
        "Jain's index over the flows' goodputs",
        "flows of one controller",
        "Jain's index",
        ccs.iter()
            .map(|cc| {
                Line::new(
                    paper_name(cc),
                    counts
                        .iter()
                        .map(|n| (count_of(n), jain(cc, n).0))
                        .collect(),
                )
            })
            .collect(),
    )
    .y_range(0.5, 1.0);

    // The paper's numbers (§5.2.1) next to ours.
    let several: Vec<String> = counts.iter().filter(|n| *n != "1").cloned().collect();
    let worst = |cc: &str, among: &[String]| worst_count(among, |n| retx(cc, n).0);
    let worst_cell = |w: Option<(String, f64)>| match w {
        Some((n, v)) => Cell::text(format!("{:.2}% ({})", v * 100.0, count_label(&n))),
        None => Cell::text("—"),
    };
    let mut paper = Table::new(
        "The paper's numbers (§5.2.1, Fig. 8) and ours: retransmission ratio per flow",
        ["quantity", "paper", "ours"],
    )
    .row([
        Cell::text("BBR, 1 flow"),
        Cell::text("8.41%"),
        Cell::percent(retx("bbr", "1").0, 2),
    ])
    .row([
        Cell::text("BBR, worst of 2-5 flows"),
        Cell::text("15.25% (3 flows)"),
        worst_cell(worst("bbr", &several)),
    ]);
    for (cc, text) in [
        ("obbr:mu=1", "7.59% (3 flows)"),
        ("obbr:mu=0.75", "0.99% (3 flows)"),
        ("obbr:mu=0.5", "0.52% (2 flows)"),
        ("cubic", "few"),
        ("bbr2", "few"),
    ] {
        paper = paper.row([
            Cell::text(format!("{}, worst of 1-5 flows", paper_name(cc))),
            Cell::text(text),
            worst_cell(worst(cc, &counts)),
        ]);
    }
    let all_points = || {
        ccs.iter()
            .flat_map(|cc| counts.iter().map(move |n| (cc.as_str(), n.as_str())))
    };
    let min_jain = all_points()
        .map(|(cc, n)| jain(cc, n).0)
        .filter(|v| v.is_finite())
        .fold(f64::INFINITY, f64::min);
    let min_utilization = all_points()
        .map(|(cc, n)| utilization(cc, n).0)
        .filter(|v| v.is_finite())
        .fold(f64::INFINITY, f64::min);
    paper = paper
        .row([
            Cell::text("lowest Jain's index (any controller, any count)"),
            Cell::text("\"all CCAs ... fairly share the link\""),
            Cell::fixed(min_jain, 3),
        ])
        .row([
            Cell::text("lowest link utilization (any controller, any count)"),
            Cell::text("\"all CCAs could effectively exploit\" it"),
            Cell::percent(min_utilization, 1),
        ]);

    let per_count_table =
        |title: &str, value: &dyn Fn(&str, &str) -> (f64, f64), scale: f64, decimals: usize| {
            let mut table = Table::new(
                title,
                std::iter::once("controller".to_string()).chain(categories.iter().cloned()),
            );
            for cc in &ccs {
                table = table.row(
                    std::iter::once(Cell::text(paper_name(cc))).chain(
                        counts
                            .iter()
                            .map(|n| mean_sd_cell(value(cc, n), scale, decimals, "")),
                    ),
                );
            }
            table
        };
    let retx_table = per_count_table(
        "Retransmission ratio per flow (%), mean ± sd over seeds",
        &retx,
        100.0,
        2,
    );
    let goodput_table = per_count_table(
        "Goodput per flow (Mbit/s), mean ± sd over seeds",
        &goodput,
        1e-6,
        1,
    );
    let jain_table = per_count_table("Jain's index, mean ± sd over seeds", &jain, 1.0, 3);

    // The paper's claims as checks.
    let mean_over_counts = |cc: &str| {
        mean(
            &counts
                .iter()
                .map(|n| retx(cc, n).0)
                .filter(|v| v.is_finite())
                .collect::<Vec<_>>(),
        )
        .unwrap_or(f64::NAN)
    };
    let worst_value = |cc: &str| worst(cc, &counts).map_or(f64::NAN, |w| w.1);
    let bbr_mean = mean_over_counts("bbr");
    let bbr_most = ccs
        .iter()
        .filter(|cc| *cc != "bbr")
        .all(|cc| mean_over_counts(cc) < bbr_mean);
    let bbr_several_worse = worst("bbr", &several).is_some_and(|(_, v)| v > retx("bbr", "1").0);
    let low_mu_margin = ["obbr:mu=0.5", "obbr:mu=0.75"]
        .iter()
        .all(|cc| worst_value(cc) <= 0.01);
    let mu1_more = worst_value("obbr:mu=1") > worst_value("obbr:mu=0.5");
    let obbr_below_bbr = ccs
        .iter()
        .filter(|cc| is_obbr(cc))
        .all(|cc| counts.iter().all(|n| retx(cc, n).0 < retx("bbr", n).0));
    let loss_based_few = ["cubic", "bbr2"].iter().all(|cc| worst_value(cc) < 0.01);
    let section = Section::new(
        "fig8-multi-flow",
        "Fig. 8: 1 to 5 flows of one controller (100 Mbit/s, 40 ms, R = 0.5)",
    )
    .description(
        "Every flow fetches 1 GB; all start together. The paper: BBR retransmits the most, more per flow with \
         several flows than alone (flows that yield in their drain phase or ProbeRTT let the others sample an \
         inflated bandwidth), less again at 4-5 flows; oBBR with mu < 1 leaves a margin in the buffer and stays \
         below 1%, oBBR-1 fills it exactly and rises to 7.59%; CUBIC and BBRv2 retransmit little; every \
         controller shares the link fairly. A flow's goodput is its bytes over its own completion time, so \
         flows that finish later (and had the link to themselves at the end) are not penalised. Bars: mean over \
         a run's flows, then over seeds; error bars: sd over seeds.",
    )
    .figure(retx_figure)
    .figure(goodput_figure)
    .figure(jain_figure)
    .table(paper)
    .table(retx_table)
    .table(goodput_table)
    .table(jain_table);
    judge(
        section,
        &[
            ("BBR retransmits the most (mean over flow counts)", bbr_most),
            (
                "BBR retransmits more per flow with several flows than alone",
                bbr_several_worse,
            ),
            (
                "oBBR-0.5 and oBBR-0.75 stay at or below 1% per flow at every count",
                low_mu_margin,
            ),
            (
                "oBBR-1 retransmits more than oBBR-0.5 (worst count)",
                mu1_more,
            ),
            (
                "every oBBR retransmits less than BBR at every count",
                obbr_below_bbr,
            ),
            (
                "CUBIC and BBRv2 stay below 1% per flow at every count",
                loss_based_few,
            ),
            ("Jain's index >= 0.9 for every controller and count", min_jain >= 0.9),
            (
                "the link is >= 90% used for every controller and count",
                min_utilization >= 0.9,
            ),
        ],
        "BBR retransmits the most, more with several flows; oBBR with mu < 1 stays below 1%; every controller shares the link fairly.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(summary: serde_json::Value) -> RunRecord {
        RunRecord {
            id: "x".into(),
            params: Vec::new(),
            scenario: String::new(),
            summary,
        }
    }

    #[test]
    fn per_flow_reads_every_flow_and_skips_missing_fields() {
        let r = record(serde_json::json!({
            "flows": [
                {"goodput_bps": 1.0},
                {"goodput_bps": null},
                {"goodput_bps": 3.0}
            ]
        }));
        assert_eq!(per_flow(&r, "goodput_bps"), vec![1.0, 3.0]);
        assert_eq!(mean(&per_flow(&r, "goodput_bps")), Some(2.0));
        assert!(per_flow(&record(serde_json::json!({})), "goodput_bps").is_empty());
        assert_eq!(mean(&[]), None);
    }

    #[test]
    fn obbr_specs() {
        assert!(is_obbr("obbr:mu=1") && !is_obbr("bbr"));
    }

    #[test]
    fn worst_count_skips_missing_values() {
        let counts: Vec<String> = ["1", "2", "3"].iter().map(|s| s.to_string()).collect();
        let w = worst_count(&counts, |n| match n {
            "1" => 0.1,
            "2" => f64::NAN,
            _ => 0.05,
        });
        assert_eq!(w, Some(("1".to_string(), 0.1)));
        assert_eq!(worst_count(&counts, |_| f64::NAN), None);
    }
}
