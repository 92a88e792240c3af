//! obbr: Fig. 8: 1..5 flows of one controller (100 Mbit/s, 40 ms, R = 0.5).
//!
//! Also home of the helpers that Figs. 9, 11 and 12 share: the paper's
//! controller names, per-flow summary values, means over seeds and
//! "mean ± sd" table cells.

use report::{BarGroup, Cell, Figure, Line, Section, Table};

use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::seeds_note;
use crate::reproduce::data::{mean_sd, metric};
use crate::reproduce::verdict::{mean_sd_cell, paper_name};
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 8: 1..5 flows of one controller.
pub const MULTI_FLOW: Experiment = Experiment {
    id: "fig8-multi-flow",
    scenario: "obbr/fig8-multi-flow.toml",
    series: false,
    analyze: fig8_multi_flow,
};

const FIG8: &str = "§5.2.1, Fig. 8";

claim!(
    BBR_MOST,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.bbr-most",
    "BBR has the highest retransmission ratio with 1 to 5 flows",
    "BBR",
    "BBR's per-flow ratio (mean over counts) above every other controller's",
    "",
    "highest",
    Test::direction(),
    "a direction against each other controller",
    Origin::Paper
);
claim!(
    BBR_ALONE,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.bbr-alone",
    "one BBR flow retransmits 8.41%",
    "BBR",
    "BBR's retransmission ratio, 1 flow",
    "%",
    "8.41%",
    Test::point(0.0841),
    "one testbed's ratio of one flow",
    Origin::Paper
);
claim!(
    BBR_WORST,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.bbr-worst",
    "BBR's per-flow retransmission ratio reaches 15.25% (3 flows)",
    "BBR",
    "BBR's highest per-flow ratio over 2-5 flows",
    "%",
    "15.25%",
    Test::point(0.1525),
    "the highest per-flow ratio the paper gives (3 flows)",
    Origin::Paper
);
claim!(
    BBR_SEVERAL_WORSE,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.bbr-several-worse",
    "several BBR flows retransmit more per flow than one alone",
    "BBR",
    "BBR's highest per-flow ratio over 2-5 flows above its ratio alone",
    "",
    "8.41% alone, up to 15.25%",
    Test::direction(),
    "one direction: the worst of 2-5 flows against one flow",
    Origin::Paper
);
claim!(
    VARIANTS_SEVERAL_WORSE,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.variants-several-worse",
    "several flows of every BBR-like controller (B3R, BBR-S, oBBR) retransmit more per flow than one alone",
    "B3R, BBR-S, oBBR",
    "highest per-flow ratio over 2-5 flows above the ratio alone, per controller",
    "",
    "higher per flow with several flows",
    Test::direction(),
    "a direction per controller",
    Origin::Paper
);
claim!(
    EASES_AT_4_5,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.eases-at-4-5",
    "BBR's overestimation is alleviated at 4 and 5 flows (its per-flow ratio peaks at 3)",
    "BBR",
    "BBR's per-flow ratio at 4 and at 5 flows below its highest at 2-3 flows",
    "",
    "8.41% (1) to 15.25% (3), less at 4-5",
    Test::direction(),
    "a direction per flow count (4 and 5) against the peak at 2-3",
    Origin::Paper
);
claim!(
    LOW_MU_BELOW_1PCT,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.low-mu-below-1pct",
    "oBBR-0.5 and oBBR-0.75 stay at or below 1% per flow (at most 0.52% and 0.99%)",
    "oBBR mu 0.5 and 0.75 (paper's algorithm)",
    "the higher of oBBR-0.5's and oBBR-0.75's worst per-flow ratio over 1-5 flows",
    "%",
    "0.52% (2 flows), 0.99% (3 flows)",
    Test::at_most(0.01),
    "the paper's own 1% line, which its highest value (0.99%) stays under",
    Origin::Paper
);
claim!(
    UP_TO_30X,
    Paper::Obbr,
    "§1, §5.2.1 (judged on Fig. 8, not where the paper makes it)",
    "obbr.fig8.up-to-30x",
    "in a stable network oBBR reduces BBR's loss ratio by up to 30x (Fig. 8: BBR 15.25% at 3 flows, oBBR-0.5 at most 0.52%)",
    "oBBR (paper's algorithm, any mu)",
    "largest BBR / oBBR per-flow retransmission ratio at the same flow count, over mu and counts",
    "x",
    "up to 30x (15.25% / 0.52% = 29x)",
    Test::factor(30.0),
    "the paper's headline factor on Fig. 8's flow counts (its own numbers there give 29x); the headline is judged on Fig. 7 (obbr.fig7.up-to-30x)",
    Origin::Analysis
);
claim!(
    MU1_WORST,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.mu1-worst",
    "oBBR-1's per-flow retransmission ratio grows to 7.59% (3 flows)",
    "oBBR mu 1 (paper's algorithm)",
    "oBBR-1's highest per-flow ratio over 1-5 flows",
    "%",
    "7.59%",
    Test::point(0.0759),
    "one testbed's ratio of the mu that fills the buffer exactly",
    Origin::Paper
);
claim!(
    MU1_MORE,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.mu1-more",
    "oBBR-1 retransmits more than oBBR-0.5",
    "oBBR mu 1 (paper's algorithm)",
    "worst per-flow ratio over 1-5 flows, oBBR-1 above oBBR-0.5",
    "",
    "7.59% vs 0.52%",
    Test::direction(),
    "one direction: the worst count of each",
    Origin::Paper
);
claim!(
    OBBR_BELOW_BBR,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.obbr-below-bbr",
    "every oBBR retransmits less per flow than BBR at every flow count",
    "oBBR (paper's algorithm)",
    "per-flow ratio, oBBR below BBR, per mu and count",
    "",
    "oBBR below BBR (bars)",
    Test::direction(),
    "a direction per (mu, flow count)",
    Origin::Paper
);
claim!(
    LOSS_BASED_FEW,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.loss-based-few",
    "CUBIC and BBRv2 retransmit few packets",
    "CUBIC, BBRv2",
    "the higher of CUBIC's and BBRv2's worst per-flow ratio over 1-5 flows",
    "%",
    "few",
    Test::at_most(0.01),
    "'few' read as at most 1% per flow, the paper's own line for oBBR with mu < 1",
    Origin::ProjectTarget
);
claim!(
    FAIR,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.fair",
    "all controllers share the link fairly at every flow count",
    "every controller",
    "lowest Jain's index over controllers and counts",
    "",
    "\"fairly share the link capacity\"",
    Test::at_least(0.9),
    "'fairly' read as Jain's index of at least 0.9, the fairness bar of the BBR-CWS paper",
    Origin::ProjectTarget
);
claim!(
    EXPLOIT,
    Paper::Obbr,
    FIG8,
    "obbr.fig8.exploit",
    "all controllers exploit the link capacity at every flow count",
    "every controller",
    "lowest link utilization over controllers and counts",
    "%",
    "\"could effectively exploit\" it",
    Test::at_least(0.9),
    "'effectively exploit' read as at least 90% of the capacity used",
    Origin::ProjectTarget
);

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

fn fig8_multi_flow(runs: &Runs) -> Analysis {
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
        &format!("Retransmission ratio per flow (%), {}", seeds_note(runs)),
        &retx,
        100.0,
        2,
    );
    let goodput_table = per_count_table(
        &format!("Goodput per flow (Mbit/s), {}", seeds_note(runs)),
        &goodput,
        1e-6,
        1,
    );
    let jain_table = per_count_table(
        &format!("Jain's index, {}", seeds_note(runs)),
        &jain,
        1.0,
        3,
    );

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
    let value = |v: f64| Measured::Value(v);
    let bbr_most: Vec<(String, bool)> = ccs
        .iter()
        .filter(|cc| *cc != "bbr")
        .map(|cc| (paper_name(cc), mean_over_counts(cc) < bbr_mean))
        .collect();
    let obbr_below_bbr: Vec<(String, bool)> = ccs
        .iter()
        .filter(|cc| is_obbr(cc))
        .flat_map(|cc| {
            counts.iter().map(move |n| {
                (
                    format!("{} x{n}", paper_name(cc)),
                    retx(cc, n).0 < retx("bbr", n).0,
                )
            })
        })
        .collect();
    let judged = vec![
        BBR_MOST.judge(Measured::conditions(bbr_most)),
        BBR_ALONE.judge(value(retx("bbr", "1").0)),
        BBR_WORST.judge(value(worst("bbr", &several).map_or(f64::NAN, |w| w.1))),
        BBR_SEVERAL_WORSE.judge(Measured::conditions([(
            "2-5 flows vs 1",
            worst("bbr", &several).is_some_and(|(_, v)| v > retx("bbr", "1").0),
        )])),
        VARIANTS_SEVERAL_WORSE.judge(Measured::conditions(
            ccs.iter()
                .filter(|cc| cc.as_str() == "b3r" || cc.as_str() == "bbr-s" || is_obbr(cc))
                .map(|cc| {
                    (
                        paper_name(cc),
                        worst(cc, &several).is_some_and(|(_, v)| v > retx(cc, "1").0),
                    )
                })
                .collect::<Vec<_>>(),
        )),
        EASES_AT_4_5.judge({
            let peak = ["2", "3"]
                .iter()
                .map(|n| retx("bbr", n).0)
                .fold(f64::NAN, f64::max);
            Measured::conditions(
                ["4", "5"]
                    .iter()
                    .filter(|n| counts.iter().any(|c| c == *n))
                    .map(|n| (format!("{n} flows"), retx("bbr", n).0 < peak))
                    .collect::<Vec<_>>(),
            )
        }),
        LOW_MU_BELOW_1PCT.judge(value(
            worst_value("obbr:mu=0.5").max(worst_value("obbr:mu=0.75")),
        )),
        UP_TO_30X.judge(value(
            ccs.iter()
                .filter(|cc| is_obbr(cc))
                .flat_map(|cc| counts.iter().map(move |n| retx("bbr", n).0 / retx(cc, n).0))
                .filter(|v| v.is_finite())
                .fold(f64::NAN, f64::max),
        )),
        MU1_WORST.judge(value(worst_value("obbr:mu=1"))),
        MU1_MORE.judge(Measured::conditions([(
            "worst count",
            worst_value("obbr:mu=1") > worst_value("obbr:mu=0.5"),
        )])),
        OBBR_BELOW_BBR.judge(Measured::conditions(obbr_below_bbr)),
        LOSS_BASED_FEW.judge(value(worst_value("cubic").max(worst_value("bbr2")))),
        FAIR.judge(value(if min_jain.is_finite() {
            min_jain
        } else {
            f64::NAN
        })),
        EXPLOIT.judge(value(if min_utilization.is_finite() {
            min_utilization
        } else {
            f64::NAN
        })),
    ];
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
    Analysis::judged(
        section,
        judged,
        "BBR retransmits the most, more with several flows; oBBR with mu < 1 stays below 1%; every controller shares the link fairly.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(summary: serde_json::Value) -> RunRecord {
        RunRecord::new("x".into(), Vec::new(), String::new(), summary)
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
