//! bbr2: Table II (and Fig. 8): the harm BBR, BBRv2, CUBIC and adaptive
//! BBRv2 do to a CUBIC flow.

use report::{BarGroup, Cell, Figure, ReferenceLine, Section, Table};
use serde_json::Value;

use super::{cc_label, loss_label, mean_sd_cell};
use crate::reproduce::data::{mean_sd, metric};
use crate::reproduce::verdict::judge;
use crate::reproduce::{Experiment, Runs};
use crate::store::RunRecord;

/// Table II: harm to CUBIC.
pub const HARM: Experiment = Experiment {
    id: "table2-harm",
    scenario: "bbr2/table2-harm.toml",
    series: false,
    analyze: |runs| table2_harm(runs).into(),
};

/// The competitors of Table II (and Fig. 8), as flow 1's controller.
const COMPETITORS: [&str; 4] = ["bbr", "bbr2", "cubic", "bbr2-adaptive"];

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

fn table2_harm(runs: &Runs) -> Section {
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
                format!("Harm to CUBIC, {} (mean ± sd over seeds)", loss_label(loss)),
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
        "Table II, the paper's harm and ours (mean ± sd over seeds); Fig. 8 gives adaptive BBRv2's only as a plot",
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
    let all_cells = |f: &dyn Fn(&HarmCell, &str) -> bool, loss: Option<&str>| {
        let chosen: Vec<_> = cells
            .iter()
            .filter(|c| loss.is_none_or(|l| c.0 == l))
            .collect();
        !chosen.is_empty() && chosen.iter().all(|c| f(&c.3, &c.0))
    };
    let v2_fairer = all_cells(&|c, _| c.harm("bbr2").0 < c.harm("bbr").0, None);
    let bbr_starves_small = harm_of(&none, "small", "bbr") >= 0.8;
    let bbr_harms_lossy = all_cells(&|c, _| c.harm("bbr").0 >= 0.2, Some(&lossy));
    let v2_gentle_lossy = all_cells(&|c, _| c.harm("bbr2").0 <= 0.1, Some(&lossy));
    let cubic_fair = all_cells(
        &|c, _| (0.35..=0.65).contains(&c.harm("cubic").0),
        Some(&none),
    );
    let adaptive_between = all_cells(
        &|c, _| {
            let a = c.harm("bbr2-adaptive").0;
            c.harm("bbr2").0 < a && a < c.harm("bbr").0
        },
        Some(&lossy),
    );
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
    judge(
        section,
        &[
            ("BBRv2 does less harm to CUBIC than BBR in every cell", v2_fairer),
            (
                "without loss BBR starves CUBIC in the small buffer (harm >= 0.8; paper 0.98)",
                bbr_starves_small,
            ),
            (
                "with 2% loss BBR's harm is >= 0.2 in every buffer (paper 0.38-0.42)",
                bbr_harms_lossy,
            ),
            (
                "with 2% loss BBRv2's harm is <= 0.1 in every buffer (paper 0.02-0.05)",
                v2_gentle_lossy,
            ),
            (
                "without loss CUBIC-on-CUBIC harm is a fair split, 0.35-0.65 (paper 0.47-0.54)",
                cubic_fair,
            ),
            (
                "with 2% loss adaptive BBRv2's harm lies between BBRv2's and BBR's in every buffer (Fig. 8)",
                adaptive_between,
            ),
        ],
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
