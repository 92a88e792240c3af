//! obbr: Fig. 9: 40/10 Mbit/s alternating every 10 s (100 ms, 300 KB buffer).

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use super::fig8::{is_obbr, mean};
use crate::reproduce::claims::{Claim, Declaration, Measured, Origin, Paper, Test};
use crate::reproduce::data::seeds_note;
use crate::reproduce::data::{link_column, metric, series_column};
use crate::reproduce::verdict::{mean_sd_cell, paper_name};
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 9: 40/10 Mbit/s alternating.
pub const ALTERNATING: Experiment = Experiment {
    id: "fig9-alternating",
    scenario: "obbr/fig9-alternating.toml",
    series: true,
    analyze: fig9_alternating,
};

const FIG9: &str = "§5.2.2, Fig. 9";

/// BBR retransmits about twice oBBR's bytes.
pub static RETX_BYTES: Claim = Claim::new(Declaration {
    id: "obbr.fig9.retx-bytes",
    paper: Paper::Obbr,
    place: "abstract, §5.2.2, Fig. 9",
    statement:
        "with alternating bandwidth oBBR retransmits 52% fewer bytes than BBR (BBR 2.09x oBBR's)",
    about: "oBBR (paper's algorithm, every mu)",
    metric: "BBR's retransmitted bytes / oBBR's, the smallest over mu",
    unit: "x",
    paper_says: "2.09x",
    test: Test::factor(2.09),
    tolerance_reason:
        "the paper's factor (52% fewer bytes); the analysis hands BBR / oBBR, the smallest over mu",
    origin: Origin::Paper,
});

/// oBBR keeps BBR's goodput.
pub static SAME_GOODPUT: Claim = Claim::new(Declaration {
    id: "obbr.fig9.same-goodput",
    paper: Paper::Obbr,
    place: FIG9,
    statement: "with alternating bandwidth oBBR's goodput is almost the same as BBR's",
    about: "oBBR (paper's algorithm, every mu)",
    metric: "oBBR's goodput / BBR's, the smallest over mu",
    unit: "%",
    paper_says: "almost the same",
    test: Test::at_least(0.95),
    tolerance_reason: "'almost the same' read as within 5% of BBR's goodput",
    origin: Origin::ProjectTarget,
});

/// oBBR follows each drop within about 2 s.
pub static OBBR_LAG: Claim = Claim::new(Declaration {
    id: "obbr.fig9.obbr-lag",
    paper: Paper::Obbr,
    place: FIG9,
    statement: "oBBR's estimate follows a drop to 10 Mbit/s after about 2 s",
    about: "oBBR (paper's algorithm, every mu)",
    metric: "seconds from a drop until the estimate is within 25% of 10 Mbit/s, mean over drops, seeds and mu",
    unit: "s",
    paper_says: "~2 s",
    test: Test::point(2.0),
    tolerance_reason: "an approximate time read off one run's plot",
    origin: Origin::Paper,
});

/// BBR takes about 6 s.
pub static BBR_LAG: Claim = Claim::new(Declaration {
    id: "obbr.fig9.bbr-lag",
    paper: Paper::Obbr,
    place: FIG9,
    statement: "BBR's estimate follows a drop to 10 Mbit/s after about 6 s",
    about: "BBR",
    metric: "seconds from a drop until the estimate is within 25% of 10 Mbit/s, mean over drops and seeds",
    unit: "s",
    paper_says: "~6 s",
    test: Test::point(6.0),
    tolerance_reason: "an approximate time read off one run's plot",
    origin: Origin::Paper,
});

/// BBR takes several times oBBR's time.
pub static BBR_SLOWER: Claim = Claim::new(Declaration {
    id: "obbr.fig9.bbr-slower",
    paper: Paper::Obbr,
    place: FIG9,
    statement: "BBR's estimate takes several times as long as oBBR's to follow a drop",
    about: "BBR vs oBBR",
    metric: "BBR's mean lag / oBBR's mean lag",
    unit: "x",
    paper_says: "~6 s vs ~2 s (3x)",
    test: Test::factor(3.0),
    tolerance_reason: "the factor of the paper's two approximate times (~6 s / ~2 s); the analysis hands BBR's lag / oBBR's",
    origin: Origin::Paper,
});

/// BBR's RTT after a drop.
pub static BBR_RTT: Claim = Claim::new(Declaration {
    id: "obbr.fig9.bbr-rtt",
    paper: Paper::Obbr,
    place: FIG9,
    statement: "after a drop BBR's RTT rises to about 600 ms",
    about: "BBR",
    metric: "peak RTT sample after a drop, mean over drops and seeds",
    unit: "ms",
    paper_says: "~600 ms",
    test: Test::point(600.0),
    tolerance_reason: "an approximate peak read off one run's plot",
    origin: Origin::Paper,
});

/// BBR's RTT stays inflated longer.
pub static RTT_INFLATED_LONGER: Claim = Claim::new(Declaration {
    id: "obbr.fig9.rtt-inflated-longer",
    paper: Paper::Obbr,
    place: FIG9,
    statement: "after a drop BBR's RTT stays inflated longer than oBBR's",
    about: "BBR vs oBBR",
    metric: "seconds of RTT samples above 2.5x base per drop, BBR above oBBR (means)",
    unit: "",
    paper_says: "BBR's RTT samples grow and stay high",
    test: Test::direction(),
    tolerance_reason: "one direction, over the mean of the drops",
    origin: Origin::Paper,
});

/// How close to the new rate a bandwidth estimate must come to count as
/// having followed a drop (as the simulator's own test of this figure).
const FOLLOW_TOLERANCE: f64 = 0.25;

/// RTT samples above this multiple of the base RTT count as inflated: the
/// paper's own threshold for a bandwidth drop ((g_max + 0.5) x RTprop, §4.2).
const INFLATED_RTT: f64 = 2.5;

/// A fall of the link capacity, as the link's time series shows it.
#[derive(Debug, Clone, PartialEq)]
struct CapacityDrop {
    /// First sample time at the lower rate (s); the true change is at most
    /// one sample interval earlier.
    at: f64,
    /// The new rate (bit/s).
    rate: f64,
    /// When the rate next changes, or the series ends (s).
    until: f64,
}

/// The drops of a piecewise-constant capacity series `(t_s, bit/s)`.
fn capacity_drops(capacity: &[(f64, f64)]) -> Vec<CapacityDrop> {
    let end = capacity.last().map_or(0.0, |p| p.0);
    let mut drops = Vec::new();
    for (i, w) in capacity.windows(2).enumerate() {
        if w[1].1 < w[0].1 {
            let until = capacity[i + 1..]
                .iter()
                .find(|p| p.1 != w[1].1)
                .map_or(end, |p| p.0);
            drops.push(CapacityDrop {
                at: w[1].0,
                rate: w[1].1,
                until,
            });
        }
    }
    drops
}

/// Seconds from `start` to the first sample in `[start, end)` within
/// `tolerance` (relative) of `target`; `None` if none is.
fn time_to_reach(
    series: &[(f64, f64)],
    start: f64,
    end: f64,
    target: f64,
    tolerance: f64,
) -> Option<f64> {
    series
        .iter()
        .filter(|(t, _)| *t >= start && *t < end)
        .find(|(_, v)| (v - target).abs() <= tolerance * target)
        .map(|(t, _)| t - start)
}

/// Seconds within `[start, end)` that a sampled series spends above
/// `threshold`: each sample stands for the interval to the next one.
fn time_above(series: &[(f64, f64)], start: f64, end: f64, threshold: f64) -> f64 {
    series
        .windows(2)
        .filter(|w| w[0].0 >= start && w[0].0 < end && w[0].1 > threshold)
        .map(|w| w[1].0.min(end) - w[0].0)
        .sum()
}

/// How one run responded to the capacity drops, and its time series.
struct DropResponse {
    /// Per drop: seconds until the estimate came within tolerance of the new
    /// rate (the whole low period when it never did).
    lags: Vec<f64>,
    /// Per drop: seconds of RTT samples above [`INFLATED_RTT`] x base.
    inflated: Vec<f64>,
    /// Per drop: the highest RTT sample (ms).
    peak_rtt: Vec<f64>,
    /// The link's capacity (Mbit/s) over time.
    capacity: Vec<(f64, f64)>,
    /// Bandwidth samples (Mbit/s) over time.
    samples: Vec<(f64, f64)>,
    /// Bandwidth estimate (Mbit/s) over time.
    estimate: Vec<(f64, f64)>,
    /// RTT samples (ms) over time.
    rtt: Vec<(f64, f64)>,
    /// Cumulative retransmitted data (MB) over time.
    retransmitted: Vec<(f64, f64)>,
}

/// Reads a run's series and measures its response to every capacity drop.
fn drop_response(runs: &Runs, record: &RunRecord) -> Option<DropResponse> {
    let flows = runs.flow_series(record).ok()?;
    let link = runs.link_series(record).ok()?;
    let base_rtt = metric(record, "/flows/0/base_rtt_ms")?;
    let capacity = link_column(&link, "capacity_bps");
    let estimate = series_column(&flows, 0, "bw_estimate_bps");
    let rtt = series_column(&flows, 0, "latest_rtt_ms");
    let drops = capacity_drops(&capacity);
    let lags = drops
        .iter()
        .map(|d| {
            time_to_reach(&estimate, d.at, d.until, d.rate, FOLLOW_TOLERANCE)
                .unwrap_or(d.until - d.at)
        })
        .collect();
    let inflated = drops
        .iter()
        .map(|d| time_above(&rtt, d.at, d.until, INFLATED_RTT * base_rtt))
        .collect();
    let peak_rtt = drops
        .iter()
        .map(|d| {
            rtt.iter()
                .filter(|(t, _)| *t >= d.at && *t < d.until)
                .map(|p| p.1)
                .fold(f64::NAN, f64::max)
        })
        .collect();
    let scaled = |s: Vec<(f64, f64)>, k: f64| s.into_iter().map(|(t, v)| (t, v * k)).collect();
    Some(DropResponse {
        lags,
        inflated,
        peak_rtt,
        capacity: scaled(capacity, 1e-6),
        samples: scaled(series_column(&flows, 0, "delivery_rate_bps"), 1e-6),
        estimate: scaled(estimate, 1e-6),
        rtt,
        retransmitted: scaled(series_column(&flows, 0, "retransmitted"), 1e-6),
    })
}

/// The smallest and largest of some values (NaN, NaN without any).
fn range(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::NAN, f64::NAN), |(lo, hi), &v| (lo.min(v), hi.max(v)))
}

fn fig9_alternating(runs: &Runs) -> Analysis {
    let ccs = runs.axis("flow.0.cc");
    let responses: Vec<(String, Vec<DropResponse>)> = ccs
        .iter()
        .map(|cc| {
            let rs = runs
                .select(&[("flow.0.cc", cc)])
                .into_iter()
                .filter_map(|r| drop_response(runs, r))
                .collect();
            (cc.clone(), rs)
        })
        .collect();
    let all_drops = |cc: &str, f: fn(&DropResponse) -> &Vec<f64>| -> Vec<f64> {
        responses
            .iter()
            .filter(|(c, _)| c == cc)
            .flat_map(|(_, rs)| rs.iter().flat_map(|r| f(r).iter().copied()))
            .collect()
    };
    let lags = |cc: &str| all_drops(cc, |r| &r.lags);
    let inflated = |cc: &str| all_drops(cc, |r| &r.inflated);
    let peaks = |cc: &str| all_drops(cc, |r| &r.peak_rtt);
    let stat = |cc: &str, pointer: &str| {
        runs.over_seeds(&[("flow.0.cc", cc)], |r| metric(r, pointer))
            .pair()
    };
    let goodput = |cc: &str| stat(cc, "/flows/0/goodput_bps");
    let retransmitted = |cc: &str| stat(cc, "/flows/0/bytes_retransmitted");

    // Time series of one seed: BBR and the first oBBR.
    let shown: Vec<&(String, Vec<DropResponse>)> = responses
        .iter()
        .filter(|(cc, rs)| !rs.is_empty() && (cc == "bbr" || is_obbr(cc)))
        .filter(|(cc, _)| cc == "bbr" || Some(cc) == ccs.iter().find(|c| is_obbr(c)))
        .collect();
    let capacity_line = shown
        .first()
        .map(|(_, rs)| Line::new("capacity", rs[0].capacity.clone()).style(LineStyle::Step));
    let lines = |f: fn(&DropResponse) -> &Vec<(f64, f64)>| -> Vec<Line> {
        shown
            .iter()
            .map(|(cc, rs)| Line::new(paper_name(cc), f(&rs[0]).clone()))
            .collect()
    };
    let with_capacity = |mut l: Vec<Line>| {
        l.extend(capacity_line.clone());
        l
    };
    let base_rtt = runs
        .points
        .first()
        .and_then(|(_, r)| metric(r, "/flows/0/base_rtt_ms"))
        .unwrap_or(f64::NAN);
    let samples_figure = Figure::lines(
        "Bandwidth samples (first seed)",
        "time (s)",
        "delivery rate sample (Mbit/s)",
        with_capacity(lines(|r| &r.samples)),
    );
    let estimate_figure = Figure::lines(
        "Bandwidth estimate (first seed)",
        "time (s)",
        "BtlBw estimate (Mbit/s)",
        with_capacity(lines(|r| &r.estimate)),
    );
    let rtt_figure = Figure::lines(
        "RTT samples (first seed)",
        "time (s)",
        "latest RTT (ms)",
        lines(|r| &r.rtt),
    )
    .reference(ReferenceLine::horizontal(
        INFLATED_RTT * base_rtt,
        format!("{INFLATED_RTT} x base RTT"),
    ));
    let retx_figure = Figure::lines(
        "Retransmitted data (first seed)",
        "time (s)",
        "retransmitted, cumulative (MB)",
        lines(|r| &r.retransmitted),
    );

    // Per controller, over seeds and drops.
    let mut per_cc = Table::new(
        format!(
            "Per controller: {}; per drop: mean [min, max] over every drop of every seed",
            seeds_note(runs)
        ),
        [
            "controller",
            "goodput (Mbit/s)",
            "retransmitted (MB)",
            "retransmission ratio (%)",
            "estimate within 25% of the new rate after (s)",
            "RTT > 2.5x base per drop (s)",
            "peak RTT per drop (ms)",
        ],
    );
    let mean_range_cell = |values: &[f64], decimals: usize| match mean(values) {
        Some(m) => {
            let (lo, hi) = range(values);
            Cell::text(format!(
                "{m:.*} [{lo:.*}, {hi:.*}]",
                decimals, decimals, decimals
            ))
        }
        None => Cell::text("—"),
    };
    for cc in &ccs {
        per_cc = per_cc.row([
            Cell::text(paper_name(cc)),
            mean_sd_cell(goodput(cc), 1e-6, 2, ""),
            mean_sd_cell(retransmitted(cc), 1e-6, 2, ""),
            mean_sd_cell(stat(cc, "/flows/0/retransmission_ratio"), 100.0, 2, ""),
            mean_range_cell(&lags(cc), 2),
            mean_range_cell(&inflated(cc), 2),
            mean_range_cell(&peaks(cc), 0),
        ]);
    }

    let obbrs: Vec<&String> = ccs.iter().filter(|c| is_obbr(c)).collect();
    let bbr_retx = retransmitted("bbr").0;
    let bbr_lag = mean(&lags("bbr")).unwrap_or(f64::NAN);
    let mut paper = Table::new(
        "The paper's numbers (§5.2.2, Fig. 9; abstract) and ours",
        ["quantity", "paper", "ours"],
    );
    for cc in &obbrs {
        paper = paper
            .row([
                Cell::text(format!("BBR's retransmitted bytes / {}'s", paper_name(cc))),
                Cell::text("2.09x (52% fewer for oBBR)"),
                Cell::fixed(bbr_retx / retransmitted(cc).0, 2).with_unit("x"),
            ])
            .row([
                Cell::text(format!("{}'s goodput / BBR's", paper_name(cc))),
                Cell::text("almost the same"),
                Cell::percent(goodput(cc).0 / goodput("bbr").0, 1),
            ])
            .row([
                Cell::text(format!("{} follows a drop after (s)", paper_name(cc))),
                Cell::text("~2"),
                Cell::fixed(mean(&lags(cc)).unwrap_or(f64::NAN), 2),
            ]);
    }
    paper = paper
        .row([
            Cell::text("BBR's estimate follows a drop after (s)"),
            Cell::text("~6"),
            Cell::fixed(bbr_lag, 2),
        ])
        .row([
            Cell::text("BBR's RTT after a drop (ms)"),
            Cell::text("~600"),
            Cell::fixed(mean(&peaks("bbr")).unwrap_or(f64::NAN), 0),
        ]);

    let obbr_lags: Vec<f64> = obbrs.iter().flat_map(|cc| lags(cc)).collect();
    let obbr_inflated = mean(&obbrs.iter().flat_map(|cc| inflated(cc)).collect::<Vec<_>>());
    let smallest_over_obbrs = |f: &dyn Fn(&str) -> f64| {
        obbrs
            .iter()
            .map(|cc| f(cc))
            .filter(|v| v.is_finite())
            .fold(f64::NAN, f64::min)
    };
    let obbr_lag = mean(&obbr_lags).unwrap_or(f64::NAN);
    let judged = vec![
        RETX_BYTES.judge(Measured::Value(smallest_over_obbrs(&|cc| {
            bbr_retx / retransmitted(cc).0
        }))),
        SAME_GOODPUT.judge(Measured::Value(smallest_over_obbrs(&|cc| {
            goodput(cc).0 / goodput("bbr").0
        }))),
        OBBR_LAG.judge(Measured::Value(obbr_lag)),
        BBR_LAG.judge(Measured::Value(bbr_lag)),
        BBR_SLOWER.judge(Measured::Value(bbr_lag / obbr_lag)),
        BBR_RTT.judge(Measured::Value(mean(&peaks("bbr")).unwrap_or(f64::NAN))),
        match (obbr_inflated, mean(&inflated("bbr"))) {
            (Some(o), Some(b)) => {
                RTT_INFLATED_LONGER.judge(Measured::conditions([("mean over drops", b > o)]))
            }
            _ => RTT_INFLATED_LONGER.judge(Measured::NotRun("no drops measured".into())),
        },
    ];
    let section = Section::new(
        "fig9-alternating",
        "Fig. 9: bandwidth alternating between 40 and 10 Mbit/s every 10 s (100 ms, 300 KB)",
    )
    .description(format!(
        "BBR keeps its max-filtered estimate for about ten rounds after each drop to 10 Mbit/s; the queue \
         fills, RTT samples grow and the stale samples expire even later, while packets are lost. oBBR replaces \
         the estimate after k = 30 consecutive low bandwidth or high RTT samples. A drop counts as followed when \
         the estimate is within {:.0}% of the new rate (never within the 10 s: counted as 10 s). The paper's \
         ~600 ms RTT cannot occur here: a 300 KB drop-tail buffer at 10 Mbit/s holds 240 ms of queue, so RTT \
         peaks at about 340 ms (its testbed must queue elsewhere too); BBR's ten-round window is shorter \
         accordingly (ten ~340 ms rounds), so its estimate lags ~3.4 s rather than ~6 s.",
        FOLLOW_TOLERANCE * 100.0
    ))
    .figure(samples_figure)
    .figure(estimate_figure)
    .figure(rtt_figure)
    .figure(retx_figure)
    .table(paper)
    .table(per_cc);
    Analysis::judged(
        section,
        judged,
        "oBBR follows each drop within about 2 s, BBR several times later; BBR retransmits more than twice oBBR's bytes at the same goodput.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_drops_finds_each_fall_and_the_next_change() {
        let capacity = [
            (0.0, 40.0),
            (1.0, 40.0),
            (2.0, 10.0),
            (3.0, 10.0),
            (4.0, 40.0),
            (5.0, 10.0),
            (6.0, 10.0),
        ];
        assert_eq!(
            capacity_drops(&capacity),
            vec![
                CapacityDrop {
                    at: 2.0,
                    rate: 10.0,
                    until: 4.0
                },
                CapacityDrop {
                    at: 5.0,
                    rate: 10.0,
                    until: 6.0
                },
            ]
        );
        assert!(capacity_drops(&[(0.0, 5.0), (1.0, 6.0)]).is_empty());
        assert!(capacity_drops(&[]).is_empty());
    }

    #[test]
    fn time_to_reach_stays_in_its_window() {
        let s = [
            (0.0, 40.0),
            (1.0, 30.0),
            (2.0, 12.0),
            (3.0, 10.0),
            (9.0, 10.0),
        ];
        assert_eq!(time_to_reach(&s, 1.0, 5.0, 10.0, 0.25), Some(1.0));
        assert_eq!(time_to_reach(&s, 1.0, 2.0, 10.0, 0.25), None);
        assert_eq!(time_to_reach(&s, 0.0, 9.0, 10.0, 0.0), Some(3.0));
    }

    #[test]
    fn time_above_sums_sample_intervals_clipped_to_the_window() {
        let s = [
            (0.0, 1.0),
            (1.0, 5.0),
            (2.0, 5.0),
            (3.0, 1.0),
            (4.0, 5.0),
            (6.0, 1.0),
        ];
        assert_eq!(time_above(&s, 0.0, 10.0, 2.0), 4.0);
        assert_eq!(time_above(&s, 0.0, 5.0, 2.0), 3.0);
        assert_eq!(time_above(&s, 2.5, 10.0, 2.0), 2.0);
    }

    #[test]
    fn range_of_values() {
        assert_eq!(range(&[3.0, 1.0, 2.0]), (1.0, 3.0));
        let (lo, hi) = range(&[]);
        assert!(lo.is_nan() && hi.is_nan());
    }

    #[test]
    fn link_column_reads_by_name() {
        let rows = vec![
            csv::StringRecord::from(vec!["t_s", "queue_bytes", "capacity_bps"]),
            csv::StringRecord::from(vec!["0.5", "10", "4e7"]),
        ];
        assert_eq!(link_column(&rows, "capacity_bps"), vec![(0.5, 4e7)]);
        assert!(link_column(&rows, "nosuch").is_empty());
    }
}
