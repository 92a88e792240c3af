//! obbr: Fig. 7 (§5.2.1): one flow per controller in a stable network,
//! 1 GB transfers, 100 KB tc burst, {60 Mbit/s, 60 ms} at R in {0.2, 0.4,
//! 0.6} (the two links with random loss are experiments/obbr/fig7-long-link.toml
//! and fig7-fast-link.toml). Goodput and retransmission
//! ratio per controller, against the numbers in the paper's text.

use report::{BarGroup, Cell, Figure, ReferenceLine, Section, Table};

use crate::reproduce::claims::{rules, Measured};
use crate::reproduce::data::{mean_sd, metric};
use crate::reproduce::verdict::{mbps, paper_name};
use crate::reproduce::{Analysis, Experiment, Runs};

use super::fig7_claims as claim;

/// Fig. 7: 60 Mbit/s, 60 ms, R in {0.2, 0.4, 0.6}.
pub const BUFFERS: Experiment = Experiment {
    id: "fig7-buffers",
    scenario: "obbr/fig7-buffers.toml",
    series: false,
    analyze: fig7_buffers,
};

/// oBBR's lowest goodput over every Fig. 7 case, as a share of capacity (§5.2.1).
const PAPER_MIN_GOODPUT: f64 = 0.8276;
/// BBR's mean retransmission ratio over Fig. 7 (§5.2.1).
const PAPER_BBR_MEAN_RETX: f64 = 0.1742;
/// The oBBR variants, with the paper's label.
const OBBR: [&str; 3] = ["obbr:mu=0.5", "obbr:mu=0.75", "obbr:mu=1"];

/// One experiment's runs: one condition axis (loss or buffer) and the
/// controllers, with seeds folded into mean and sd.
struct Grid<'a> {
    runs: &'a Runs,
    /// The condition axis key (`link.loss` or `link.buffer`).
    axis: &'static str,
    conditions: Vec<String>,
    ccs: Vec<String>,
    /// Link capacity, bit/s.
    capacity: f64,
}

impl<'a> Grid<'a> {
    fn new(runs: &'a Runs, axis: &'static str) -> Self {
        let capacity = runs
            .points
            .first()
            .and_then(|(_, r)| metric(r, "/link/capacity_bps"))
            .unwrap_or(f64::NAN);
        Grid {
            runs,
            axis,
            conditions: runs.axis(axis),
            ccs: runs.axis("flow.0.cc"),
            capacity,
        }
    }

    /// Mean and sd over seeds of a summary metric.
    fn stat(&self, cc: &str, condition: &str, pointer: &str) -> (f64, f64) {
        let values: Vec<f64> = self
            .runs
            .select(&[("flow.0.cc", cc), (self.axis, condition)])
            .iter()
            .filter_map(|r| metric(r, pointer))
            .collect();
        mean_sd(&values)
    }

    fn goodput(&self, cc: &str, condition: &str) -> f64 {
        self.stat(cc, condition, "/flows/0/goodput_bps").0
    }

    fn retx(&self, cc: &str, condition: &str) -> f64 {
        self.stat(cc, condition, "/flows/0/retransmission_ratio").0
    }

    /// Runs that ended at the duration cap before their transfer completed.
    fn unfinished(&self) -> Vec<String> {
        self.runs
            .points
            .iter()
            .filter(|(_, r)| metric(r, "/flows/0/completion_time_s").is_none())
            .map(|(params, _)| {
                params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    fn labels(&self, describe: &dyn Fn(&str) -> String) -> Vec<String> {
        self.conditions.iter().map(|c| describe(c)).collect()
    }

    fn bars(&self, pointer: &str, scale: f64) -> Vec<BarGroup> {
        self.ccs
            .iter()
            .map(|cc| {
                let stats: Vec<(f64, f64)> = self
                    .conditions
                    .iter()
                    .map(|c| self.stat(cc, c, pointer))
                    .collect();
                BarGroup::new(paper_name(cc), stats.iter().map(|s| s.0 * scale).collect())
                    .errors(stats.iter().map(|s| s.1 * scale).collect())
            })
            .collect()
    }

    fn goodput_figure(&self, labels: &[String], x_label: &str) -> Figure {
        let cap = mbps(self.capacity);
        Figure::bars(
            "Goodput",
            x_label,
            "goodput (Mbit/s)",
            labels.to_vec(),
            self.bars("/flows/0/goodput_bps", 1e-6),
        )
        .reference(ReferenceLine::horizontal(cap, "capacity"))
        .reference(ReferenceLine::horizontal(cap * PAPER_MIN_GOODPUT, "82.76%"))
    }

    fn retx_figure(&self, labels: &[String], x_label: &str) -> Figure {
        Figure::bars(
            "Retransmission ratio",
            x_label,
            "retransmitted / delivered (%)",
            labels.to_vec(),
            self.bars("/flows/0/retransmission_ratio", 100.0),
        )
        .log_y()
    }

    /// Goodput and retransmission ratio of every controller and condition.
    fn table(&self, title: &str, labels: &[String]) -> Table {
        let header = std::iter::once("controller".to_string()).chain(
            labels
                .iter()
                .flat_map(|l| [format!("{l}: goodput"), format!("{l}: retx")]),
        );
        let mut table = Table::new(title, header);
        for cc in &self.ccs {
            table = table.row(std::iter::once(Cell::text(cc.clone())).chain(
                self.conditions.iter().flat_map(|c| {
                    let g = self.stat(cc, c, "/flows/0/goodput_bps");
                    let x = self.stat(cc, c, "/flows/0/retransmission_ratio");
                    [
                        Cell::fixed(mbps(g.0), 2).with_unit("Mbit/s"),
                        Cell::text(format!("{:.2} ± {:.2}%", x.0 * 100.0, x.1 * 100.0)),
                    ]
                }),
            ));
        }
        table
    }

    /// oBBR's lowest mean goodput over conditions and mu, as a share of capacity.
    fn obbr_min_goodput(&self) -> f64 {
        OBBR.iter()
            .flat_map(|cc| self.conditions.iter().map(move |c| (*cc, c)))
            .map(|(cc, c)| self.goodput(cc, c) / self.capacity)
            .fold(f64::INFINITY, f64::min)
    }

    /// The largest BBR / oBBR retransmission ratio over conditions and mu.
    fn max_bbr_over_obbr(&self, describe: &dyn Fn(&str) -> String) -> (f64, String) {
        OBBR.iter()
            .flat_map(|cc| self.conditions.iter().map(move |c| (*cc, c)))
            .map(|(cc, c)| {
                (
                    self.retx("bbr", c) / self.retx(cc, c),
                    format!("{cc}, {}", describe(c)),
                )
            })
            .filter(|(r, _)| r.is_finite())
            .fold((f64::NAN, String::new()), |best, x| {
                if best.0.is_nan() || x.0 > best.0 {
                    x
                } else {
                    best
                }
            })
    }

    /// BBR's mean retransmission ratio over the conditions.
    fn bbr_mean_retx(&self) -> f64 {
        let v: Vec<f64> = self
            .conditions
            .iter()
            .map(|c| self.retx("bbr", c))
            .collect();
        mean_sd(&v).0
    }

    /// CUBIC and BBRv2 retransmit least: the worse of the two below every
    /// other controller, per condition.
    fn loss_based_least(&self, describe: &dyn Fn(&str) -> String) -> Measured {
        let checks: Vec<(String, bool)> = self
            .conditions
            .iter()
            .map(|c| {
                let worst = ["cubic", "bbr2"]
                    .iter()
                    .map(|cc| self.retx(cc, c))
                    .fold(f64::NEG_INFINITY, f64::max);
                let others_above = self
                    .ccs
                    .iter()
                    .filter(|cc| !matches!(cc.as_str(), "cubic" | "bbr2"))
                    .all(|cc| self.retx(cc, c) > worst);
                (describe(c), others_above)
            })
            .collect();
        Measured::conditions(checks)
    }

    /// Every oBBR variant below BBR, per (mu, condition).
    fn obbr_below_bbr(&self, describe: &dyn Fn(&str) -> String) -> Measured {
        let checks: Vec<(String, bool)> = OBBR
            .iter()
            .flat_map(|cc| self.conditions.iter().map(move |c| (*cc, c)))
            .map(|(cc, c)| {
                (
                    format!("{cc} {}", describe(c)),
                    self.retx(cc, c) < self.retx("bbr", c),
                )
            })
            .collect();
        Measured::conditions(checks)
    }

    /// §5.2.1's ordering, per condition: B3R within 25% of BBR, BBR-S
    /// below both, and above oBBR (mu 0.5).
    fn variant_order(&self, describe: &dyn Fn(&str) -> String) -> Measured {
        let checks: Vec<(String, bool)> = self
            .conditions
            .iter()
            .map(|c| {
                let (bbr, b3r, bbr_s, obbr) = (
                    self.retx("bbr", c),
                    self.retx("b3r", c),
                    self.retx("bbr-s", c),
                    self.retx("obbr:mu=0.5", c),
                );
                let holds = (b3r - bbr).abs() <= 0.25 * bbr && bbr_s < bbr.min(b3r) && bbr_s > obbr;
                (describe(c), holds)
            })
            .collect();
        Measured::conditions(checks)
    }

    /// The paper's per-mu numbers, each matched by the rule for point
    /// numbers ([`rules::POINT_REL`]).
    fn per_mu_numbers(
        &self,
        numbers: &[(&str, [f64; 3])],
        describe: &dyn Fn(&str) -> String,
    ) -> Measured {
        let checks: Vec<(String, bool)> = numbers
            .iter()
            .flat_map(|(c, values)| OBBR.iter().zip(values).map(move |(cc, v)| (*c, *cc, *v)))
            .map(|(c, cc, paper)| {
                let ours = self.retx(cc, c);
                (
                    format!("{cc} {}", describe(c)),
                    (ours - paper).abs() <= rules::POINT_REL * paper,
                )
            })
            .collect();
        Measured::conditions(checks)
    }

    /// oBBR's retransmissions rise with mu, in the conditions the paper
    /// gives numbers for.
    fn mu_order(
        &self,
        numbers: &[(&str, [f64; 3])],
        describe: &dyn Fn(&str) -> String,
    ) -> Measured {
        let checks: Vec<(String, bool)> = numbers
            .iter()
            .map(|(c, _)| {
                let v: Vec<f64> = OBBR.iter().map(|cc| self.retx(cc, c)).collect();
                (describe(c), v[0] <= v[1] && v[1] <= v[2])
            })
            .collect();
        Measured::conditions(checks)
    }
}

fn pct(v: f64) -> String {
    format!("{:.2}%", v * 100.0)
}

fn seeds_note(runs: &Runs) -> String {
    match runs.axis("seed").len() {
        0 | 1 => "one seed".to_string(),
        n => format!("mean over {n} seeds; error bars and ± one standard deviation"),
    }
}

/// The transfer size, from the bytes the completed runs delivered.
fn transfer(grid: &Grid) -> String {
    let bytes = grid
        .runs
        .points
        .iter()
        .filter(|(_, r)| metric(r, "/flows/0/completion_time_s").is_some())
        .filter_map(|(_, r)| metric(r, "/flows/0/bytes_delivered"))
        .fold(f64::NAN, f64::max);
    if bytes >= 1e9 {
        format!("{} GB transfers", (bytes / 1e7).round() / 100.0)
    } else if bytes.is_finite() {
        format!("{} MB transfers", (bytes / 1e6).round())
    } else {
        "transfers".to_string()
    }
}

fn unfinished_note(grid: &Grid) -> String {
    let unfinished = grid.unfinished();
    if unfinished.is_empty() {
        "Every run completed its transfer before the duration cap.".to_string()
    } else {
        format!(
            "{} runs hit the duration cap before completing (their goodput is over the capped run): {}.",
            unfinished.len(),
            unfinished.join("; ")
        )
    }
}

fn fig7_buffers(runs: &Runs) -> Analysis {
    let grid = Grid::new(runs, "link.buffer");
    let describe = |b: &str| format!("R = {}", b.trim_end_matches("bdp"));
    let labels = grid.labels(&describe);
    let per_mu = [
        ("0.2bdp", [0.0154, 0.0155, 0.0310]),
        ("0.4bdp", [0.0051, 0.0061, 0.0178]),
    ];
    let mut paper = Table::new(
        "The paper's numbers (§5.2.1) and ours",
        ["quantity", "paper", "ours"],
    );
    for (b, values) in per_mu {
        for (cc, v) in OBBR.iter().zip(values) {
            paper = paper.row([
                Cell::text(format!("{cc} retransmission ratio, {}", describe(b))),
                Cell::text(pct(v)),
                Cell::percent(grid.retx(cc, b), 2),
            ]);
        }
    }
    let falls = |cc: &str| {
        let v: Vec<f64> = grid.conditions.iter().map(|b| grid.retx(cc, b)).collect();
        v.windows(2).all(|w| w[1] <= w[0])
    };
    for cc in ["bbr", "b3r", "bbr-s"] {
        paper = paper.row([
            Cell::text(format!("{cc} retransmission ratio, {}", labels.join(" / "))),
            Cell::text("falls as R grows"),
            Cell::text(
                grid.conditions
                    .iter()
                    .map(|b| pct(grid.retx(cc, b)))
                    .collect::<Vec<_>>()
                    .join(" / "),
            ),
        ]);
    }
    let mean_goodput = |cc: &str| {
        let v: Vec<f64> = grid
            .conditions
            .iter()
            .map(|b| grid.goodput(cc, b))
            .collect();
        mean_sd(&v).0
    };
    let (ratio, at) = grid.max_bbr_over_obbr(&describe);
    let obbr_min = grid.obbr_min_goodput();
    paper = paper
        .row([
            Cell::text("BBRv2 / CUBIC goodput, mean over R"),
            Cell::text("BBRv2 higher (similar to oBBR)"),
            Cell::text(format!(
                "{:.2} / {:.2} Mbit/s",
                mbps(mean_goodput("bbr2")),
                mbps(mean_goodput("cubic"))
            )),
        ])
        .row([
            Cell::text("BBR's retransmission ratio, mean over R"),
            Cell::text(format!(
                "{} (mean over all of Fig. 7)",
                pct(PAPER_BBR_MEAN_RETX)
            )),
            Cell::percent(grid.bbr_mean_retx(), 2),
        ])
        .row([
            Cell::text("BBR / oBBR retransmission ratio, the largest"),
            Cell::text("up to 30x (§1)"),
            Cell::text(format!("{ratio:.1}x ({at})")),
        ])
        .row([
            Cell::text("oBBR's lowest goodput / capacity"),
            Cell::text(">= 82.76%"),
            Cell::percent(obbr_min, 1),
        ]);
    let section = Section::new("fig7-buffers", "Fig. 7: one flow, 60 Mbit/s, 60 ms, R in {0.2, 0.4, 0.6}")
        .description(format!(
            "One flow per controller, {} (the paper: 1 GB), 100 KB tc burst, no random loss ({}). The paper: BBR, B3R and BBR-S \
             retransmit less as the buffer grows; oBBR retransmits more at R = 0.2 than at 0.4 because its cwnd gain \
             has a floor of 1.25 while probing; CUBIC and BBRv2 retransmit least, BBRv2 at a goodput above CUBIC's. {}",
            transfer(&grid),
            seeds_note(runs),
            unfinished_note(&grid)
        ))
        .figure(grid.goodput_figure(&labels, "buffer"))
        .figure(grid.retx_figure(&labels, "buffer"))
        .table(grid.table(&format!("Goodput and retransmission ratio ({})", crate::reproduce::data::seeds_note(grid.runs)), &labels))
        .table(paper);
    let shallowest = grid.conditions.first().cloned().unwrap_or_default();
    let second = grid.conditions.get(1).cloned().unwrap_or_default();
    let obbr_floor = Measured::conditions(
        OBBR.iter()
            .map(|cc| (*cc, grid.retx(cc, &shallowest) > grid.retx(cc, &second))),
    );
    let falls_with_r =
        Measured::conditions(["bbr", "b3r", "bbr-s"].iter().map(|cc| (*cc, falls(cc))));
    let r_labels: Vec<String> = grid.conditions.iter().map(|b| describe(b)).collect();
    let loss_based_least = grid.loss_based_least(&describe);
    let rises = |cc: &str| {
        let v: Vec<f64> = grid
            .conditions
            .iter()
            .map(|b| grid.goodput(cc, b))
            .collect();
        v.windows(2).all(|w| w[1] >= w[0])
    };
    let goodput_rises =
        Measured::conditions(["bbr", "b3r", "bbr-s"].iter().map(|cc| (*cc, rises(cc))));
    let bbr2_above_cubic =
        Measured::conditions(grid.conditions.iter().zip(&r_labels).map(|(b, label)| {
            (
                label.as_str(),
                grid.goodput("bbr2", b) > grid.goodput("cubic", b),
            )
        }));
    let judged = vec![
        claim::OBBR_BELOW_BBR.judge(grid.obbr_below_bbr(&describe)),
        claim::FALLS_WITH_R.judge(falls_with_r),
        claim::GOODPUT_RISES_WITH_R.judge(goodput_rises),
        claim::OBBR_FLOOR_AT_02.judge(obbr_floor),
        claim::OBBR_MIN_GOODPUT.judge(Measured::Value(obbr_min)),
        claim::LOSS_BASED_LEAST.judge(loss_based_least),
        claim::BBR2_ABOVE_CUBIC.judge(bbr2_above_cubic),
        claim::UP_TO_30X.judge(Measured::Value(ratio)),
        claim::BBR_MEAN_RETX.judge(Measured::Value(grid.bbr_mean_retx())),
        claim::VARIANT_ORDER.judge(grid.variant_order(&describe)),
        claim::PER_MU_NUMBERS.judge(grid.per_mu_numbers(&per_mu, &describe)),
        claim::MU_ORDER.judge(grid.mu_order(&per_mu, &describe)),
    ];
    Analysis::judged(
        section,
        judged,
        "oBBR retransmits less than BBR at every buffer size; BBR-like controllers retransmit less in deeper buffers.",
    )
}
