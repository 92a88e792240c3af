//! bbr2: Table II (and Fig. 8): the harm BBR, BBRv2, CUBIC and adaptive
//! BBRv2 do to a CUBIC flow.

use report::{BarGroup, Cell, Figure, ReferenceLine, Section, Table};
use serde_json::Value;

use super::{cc_label, loss_label, mean_sd_cell};
use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::seeds_note;
use crate::reproduce::data::{mean_sd, metric};
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Table II: harm to CUBIC.
pub const HARM: Experiment = Experiment {
    id: "table2-harm",
    scenario: "bbr2/table2-harm.toml",
    series: false,
    analyze: table2_harm,
};

const TABLE2: &str = "§III-C, Table II";

claim!(
    TABLE2_CELLS,
    Paper::Bbr2,
    TABLE2,
    "bbr2.table2.cells",
    "Table II's harm values of BBR, BBRv2 and CUBIC to a CUBIC flow, per loss and buffer",
    "BBR, BBRv2, CUBIC",
    "our harm against the paper's, per (loss, buffer, competitor)",
    "",
    "18 values, e.g. BBR 0.98 / BBRv2 0.61 (no loss, small buffer)",
    Test::direction_within(0.15),
    "the paper's 18 values counted as conditions; harm is a difference of two goodputs over a buffer size the paper does not name, so 0.15 absolute per cell",
    Origin::ProjectTarget
);
claim!(
    BBR2_FAIRER,
    Paper::Bbr2,
    TABLE2,
    "bbr2.table2.bbr2-fairer",
    "BBRv2 does less harm to CUBIC than BBR in every cell",
    "BBRv2",
    "BBRv2's harm below BBR's, per (loss, buffer)",
    "",
    "in every cell",
    Test::direction(),
    "a direction per (loss, buffer) cell",
    Origin::Paper
);
claim!(
    BBR_STARVES_SMALL,
    Paper::Bbr2,
    TABLE2,
    "bbr2.table2.bbr-starves-small",
    "without loss BBR starves CUBIC in the small buffer (harm 0.98)",
    "BBR",
    "BBR's harm to CUBIC, no loss, small buffer",
    "",
    "0.98",
    Test::point(0.98),
    "the paper's harm value of one cell",
    Origin::Paper
);
claim!(
    BBR_HARMS_LOSSY,
    Paper::Bbr2,
    TABLE2,
    "bbr2.table2.bbr-harms-lossy",
    "with 2% loss BBR still harms CUBIC in every buffer (0.38-0.42)",
    "BBR",
    "BBR's lowest harm over the buffers, 2% loss",
    "",
    "0.38 to 0.42",
    Test::at_least(0.38),
    "the paper's lowest value over the buffers is its own floor",
    Origin::Paper
);
claim!(
    BBR2_GENTLE_LOSSY,
    Paper::Bbr2,
    TABLE2,
    "bbr2.table2.bbr2-gentle-lossy",
    "with 2% loss BBRv2 barely harms CUBIC in any buffer (0.02-0.05)",
    "BBRv2",
    "BBRv2's highest harm over the buffers, 2% loss",
    "",
    "0.02 to 0.05",
    Test::at_most(0.05),
    "the paper's highest value over the buffers is its own ceiling",
    Origin::Paper
);
claim!(
    CUBIC_EVEN,
    Paper::Bbr2,
    TABLE2,
    "bbr2.table2.cubic-even",
    "without loss CUBIC harms CUBIC by about half (an even split: 0.47-0.54)",
    "CUBIC",
    "CUBIC-on-CUBIC harm, distance from 0.5 per buffer, no loss",
    "",
    "0.47 to 0.54",
    Test::direction_within(0.15),
    "a direction per buffer; 0.15 absolute, as for the other harm values",
    Origin::ProjectTarget
);
claim!(
    ADAPTIVE_BETWEEN,
    Paper::Bbr2,
    "§VI-B, Fig. 8",
    "bbr2.fig8.adaptive-between",
    "with 2% loss adaptive BBRv2's harm to CUBIC lies between BBRv2's and BBR's",
    "adaptive BBRv2",
    "adaptive BBRv2's harm above BBRv2's and below BBR's, per buffer, 2% loss",
    "",
    "fairer than BBR, less fair than BBRv2",
    Test::direction(),
    "a direction per buffer",
    Origin::Paper
);

claim!(
    NO_BOUND_BETWEEN,
    Paper::Bbr2,
    "§V-A",
    "bbr2.v-a.no-bound-between",
    "without its upper bound BBRv2's unfairness to CUBIC is not as bad as BBR's but considerably worse than BBRv2's",
    "BBRv2, no upper bound",
    "harm to CUBIC above BBRv2's and below BBR's, per buffer, 2% loss",
    "",
    "between BBRv2 and BBR",
    Test::direction(),
    "a direction per buffer (the paper's §V-A runs are lossy: it removes the bound to recover goodput under loss)",
    Origin::Paper
);

/// BBRv2 without its long-term upper bound (§V-A).
const NO_BOUND: &str = "bbr2-adaptive:no_upper_bound=true";

/// The competitors of Table II (and Fig. 8, and §V-A's BBRv2 without upper
/// bound), as flow 1's controller.
const COMPETITORS: [&str; 5] = ["bbr", "bbr2", "cubic", "bbr2-adaptive", NO_BOUND];

/// Table II's harm values: (loss, buffer class, BBR, BBRv2, CUBIC).
const PAPER: [(&str, &str, f64, f64, f64); 6] = [
    ("0", "small", 0.98, 0.61, 0.48),
    ("0", "medium", 0.50, 0.33, 0.47),
    ("0", "large", 0.39, 0.33, 0.54),
    ("2%", "small", 0.38, 0.03, 0.05),
    ("2%", "medium", 0.40, 0.05, 0.03),
    ("2%", "large", 0.42, 0.02, 0.01),
];

/// The paper's harm of `competitor` to CUBIC in a cell, if Table II has it.
fn paper_harm(loss: &str, class: &str, competitor: &str) -> Option<f64> {
    let (_, _, bbr, bbr2, cubic) = PAPER.iter().find(|p| p.0 == loss && p.1 == class)?;
    match competitor {
        "bbr" => Some(*bbr),
        "bbr2" => Some(*bbr2),
        "cubic" => Some(*cubic),
        _ => None,
    }
}

/// Harm (Ware et al., the paper's III-A): the relative loss of throughput
/// of a flow when it competes, against its throughput alone.
fn harm(alone: f64, with: f64) -> f64 {
    (alone - with) / alone
}

/// The controller of flow 1 of a run, `None` when CUBIC ran alone.
fn competitor(record: &RunRecord) -> Option<&str> {
    record
        .summary
        .pointer("/flows/1/cc")
        .and_then(Value::as_str)
        // "cubic:hystart=true" competes as CUBIC.
        .map(|spec| {
            if spec.starts_with("cubic") {
                "cubic"
            } else {
                spec
            }
        })
}

/// The CUBIC throughput a run measures: flow 0's, or, against another CUBIC
/// flow, the mean of the two (they are interchangeable).
fn cubic_goodput(record: &RunRecord) -> Option<f64> {
    let g0 = metric(record, "/flows/0/goodput_bps")?;
    match competitor(record) {
        Some("cubic") => Some((g0 + metric(record, "/flows/1/goodput_bps")?) / 2.0),
        _ => Some(g0),
    }
}

/// One cell of the table: a buffer and a loss rate.
struct HarmCell {
    /// CUBIC's goodput alone, mean over seeds (bit/s).
    alone: f64,
    /// Per competitor: harm mean and sd over seeds, CUBIC's and the
    /// competitor's mean goodput (bit/s).
    by_competitor: Vec<(&'static str, (f64, f64), f64, f64)>,
}

impl HarmCell {
    fn collect(runs: &Runs, buffer: &str, loss: &str) -> HarmCell {
        let records = runs.select(&[("link.buffer", buffer), ("link.loss", loss)]);
        let alone_values: Vec<f64> = records
            .iter()
            .filter(|r| competitor(r).is_none())
            .filter_map(|r| cubic_goodput(r))
            .collect();
        let alone = mean_sd(&alone_values).0;
        let by_competitor = COMPETITORS
            .iter()
            .map(|&cc| {
                let pairs: Vec<&&RunRecord> = records
                    .iter()
                    .filter(|r| competitor(r) == Some(cc))
                    .collect();
                let cubic: Vec<f64> = pairs.iter().filter_map(|r| cubic_goodput(r)).collect();
                let other: Vec<f64> = pairs
                    .iter()
                    .filter_map(|r| metric(r, "/flows/1/goodput_bps"))
                    .collect();
                let harms: Vec<f64> = cubic.iter().map(|&g| harm(alone, g)).collect();
                (cc, mean_sd(&harms), mean_sd(&cubic).0, mean_sd(&other).0)
            })
            .collect();
        HarmCell {
            alone,
            by_competitor,
        }
    }

    /// Mean and sd of the harm `cc` does; NaN when not run.
    fn harm(&self, cc: &str) -> (f64, f64) {
        self.by_competitor
            .iter()
            .find(|c| c.0 == cc)
            .map_or((f64::NAN, f64::NAN), |c| c.1)
    }
}

fn table2_harm(runs: &Runs) -> Analysis {
    let buffers = runs.axis("link.buffer");
    let losses = runs.axis("link.loss");
    let classes = ["small", "medium", "large"];
    let class_of = |i: usize| classes.get(i).copied().unwrap_or("other");
    let cells: Vec<(String, usize, String, HarmCell)> = losses
        .iter()
        .flat_map(|l| {
            buffers
                .iter()
                .enumerate()
                .map(move |(i, b)| (l.clone(), i, b.clone()))
        })
        .map(|(l, i, b)| {
            let cell = HarmCell::collect(runs, &b, &l);
            (l, i, b, cell)
        })
        .collect();

    let mut figures = Vec::new();
    for loss in &losses {
        let groups = COMPETITORS
            .iter()
            .map(|cc| {
                let s: Vec<(f64, f64)> = cells
                    .iter()
                    .filter(|c| &c.0 == loss)
                    .map(|c| c.3.harm(cc))
                    .collect();
                BarGroup::new(
                    format!("{} → CUBIC", cc_label(cc)),
                    s.iter().map(|v| v.0).collect(),
                )
                .errors(s.iter().map(|v| v.1).collect())
            })
            .collect();
        let labels: Vec<String> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| format!("{} ({b})", class_of(i)))
            .collect();
        figures.push(
            Figure::bars(
                format!("Harm to CUBIC, {} ({})", loss_label(loss), seeds_note(runs)),
                "bottleneck buffer",
                "harm (0 = none, 1 = starved)",
                labels,
                groups,
            )
            .y_range(0.0, 1.0)
            .reference(ReferenceLine::horizontal(0.5, "fair split")),
        );
    }

    let mut table = Table::new(
        format!("Table II, the paper's harm and ours ({}); Fig. 8 gives adaptive BBRv2's only as a plot", seeds_note(runs)),
        [
            "loss",
            "buffer",
            "BBR: paper",
            "BBR: ours",
            "BBRv2: paper",
            "BBRv2: ours",
            "CUBIC: paper",
            "CUBIC: ours",
            "adaptive BBRv2: ours",
            "BBRv2, no upper bound: ours",
        ],
    );
    let mut goodputs = Table::new(
        "Goodput behind the harm (Mbit/s): CUBIC alone, and CUBIC / its competitor in each pair",
        [
            "loss",
            "buffer",
            "CUBIC alone",
            "with BBR",
            "with BBRv2",
            "with CUBIC",
            "with adaptive BBRv2",
            "with BBRv2, no upper bound",
        ],
    );
    for (loss, i, buffer, cell) in &cells {
        let class = class_of(*i);
        let paper =
            |cc: &str| paper_harm(loss, class, cc).map_or(Cell::Empty, |v| Cell::fixed(v, 2));
        let ours = |cc: &str| mean_sd_cell(cell.harm(cc), 1.0, 2, "");
        table = table.row([
            Cell::text(loss.clone()),
            Cell::text(format!("{class} ({buffer})")),
            paper("bbr"),
            ours("bbr"),
            paper("bbr2"),
            ours("bbr2"),
            paper("cubic"),
            ours("cubic"),
            ours("bbr2-adaptive"),
            ours(NO_BOUND),
        ]);
        let pair = |cc: &str| {
            cell.by_competitor
                .iter()
                .find(|c| c.0 == cc)
                .map_or(Cell::Empty, |c| {
                    Cell::text(format!("{:.1} / {:.1}", c.2 / 1e6, c.3 / 1e6))
                })
        };
        goodputs = goodputs.row([
            Cell::text(loss.clone()),
            Cell::text(format!("{class} ({buffer})")),
            Cell::fixed(cell.alone / 1e6, 1),
            pair("bbr"),
            pair("bbr2"),
            pair("cubic"),
            pair("bbr2-adaptive"),
            pair(NO_BOUND),
        ]);
    }

    let harm_of = |loss: &str, class: &str, cc: &str| {
        cells
            .iter()
            .find(|c| c.0 == loss && class_of(c.1) == class)
            .map_or(f64::NAN, |c| c.3.harm(cc).0)
    };
    let lossy = losses.last().cloned().unwrap_or_default();
    let none = losses.first().cloned().unwrap_or_default();
    let per_cell = |loss: Option<&str>, holds: &dyn Fn(&HarmCell) -> bool| {
        let checks: Vec<(String, bool)> = cells
            .iter()
            .filter(|c| loss.is_none_or(|l| c.0 == l))
            .map(|c| {
                (
                    format!("{} {}", loss_label(&c.0), class_of(c.1)),
                    holds(&c.3),
                )
            })
            .collect();
        Measured::conditions(checks)
    };
    let over_lossy = |cc: &str, fold: fn(f64, f64) -> f64| {
        cells
            .iter()
            .filter(|c| c.0 == lossy)
            .map(|c| c.3.harm(cc).0)
            .fold(f64::NAN, fold)
    };
    let table_checks: Vec<(String, bool)> = cells
        .iter()
        .flat_map(|c| {
            ["bbr", "bbr2", "cubic"].into_iter().filter_map(move |cc| {
                let paper = paper_harm(&c.0, class_of(c.1), cc)?;
                Some((
                    format!("{} {} {}", loss_label(&c.0), class_of(c.1), cc_label(cc)),
                    (c.3.harm(cc).0 - paper).abs() <= TABLE2_CELLS.margin(),
                ))
            })
        })
        .collect();
    let judged = vec![
        TABLE2_CELLS.judge(Measured::conditions(table_checks)),
        BBR2_FAIRER.judge(per_cell(None, &|c| c.harm("bbr2").0 < c.harm("bbr").0)),
        BBR_STARVES_SMALL.judge(Measured::Value(harm_of(&none, "small", "bbr"))),
        BBR_HARMS_LOSSY.judge(Measured::Value(over_lossy("bbr", f64::min))),
        BBR2_GENTLE_LOSSY.judge(Measured::Value(over_lossy("bbr2", f64::max))),
        CUBIC_EVEN.judge(per_cell(Some(&none), &|c| {
            (c.harm("cubic").0 - 0.5).abs() <= CUBIC_EVEN.margin()
        })),
        ADAPTIVE_BETWEEN.judge(per_cell(Some(&lossy), &|c| {
            let a = c.harm("bbr2-adaptive").0;
            c.harm("bbr2").0 < a && a < c.harm("bbr").0
        })),
        NO_BOUND_BETWEEN.judge(per_cell(Some(&lossy), &|c| {
            let n = c.harm(NO_BOUND).0;
            c.harm("bbr2").0 < n && n < c.harm("bbr").0
        })),
    ];
    let section = Section::new(
        "table2-harm",
        "Drucker et al. Table II and Fig. 8: harm to CUBIC (500 Mbit/s, 100 ms)",
    )
    .description(
        "One CUBIC flow competes with one flow of BBR, BBRv2, CUBIC or adaptive BBRv2; harm = (CUBIC's goodput \
         alone - CUBIC's goodput in the pair) / CUBIC's goodput alone, against runs of CUBIC alone with the same \
         buffer and loss (mean over seeds; for the CUBIC pair, CUBIC's goodput is the mean of its two flows). 500 Mbit/s, 100 ms (BDP 6.25 MB), \
         1 MB tbf burst, five-minute runs. The paper does not name its small, medium and large buffers; we take \
         2, 10 and 50 MB. The paper: BBRv2 is fairer to CUBIC than BBR in every cell, most of all in the small \
         buffer and under loss, where BBR keeps taking bandwidth and BBRv2 backs off; CUBIC-on-CUBIC harm is about \
         0.5 without loss; with 2% loss adaptive BBRv2 is fairer than BBR but less fair than BBRv2 (Fig. 8).",
    )
    .table(table)
    .table(goodputs);
    let section = figures.into_iter().fold(section, Section::figure);
    Analysis::judged(
        section,
        judged,
        "BBRv2 is fairer to CUBIC than BBR everywhere, most under loss; adaptive BBRv2 lies between them.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harm_is_the_relative_loss_of_throughput() {
        // The paper's example: 2 Mbit/s alone, 1 Mbit/s in competition.
        assert_eq!(harm(2e6, 1e6), 0.5);
        assert_eq!(harm(2e6, 2e6), 0.0);
        assert!(harm(0.0, 0.0).is_nan());
    }

    #[test]
    fn paper_values_are_found_by_cell() {
        assert_eq!(paper_harm("0", "small", "bbr"), Some(0.98));
        assert_eq!(paper_harm("2%", "large", "cubic"), Some(0.01));
        assert_eq!(paper_harm("2%", "large", "bbr2-adaptive"), None);
        assert_eq!(paper_harm("1%", "large", "bbr"), None);
    }
}
