//! obbr: Fig. 5 (§4.2): the bandwidth and RTT samples of a BBR flow at a
//! constant 20 Mbit/s and when the bandwidth drops at 10 s: the CDF of the
//! bandwidth samples normalised to the capacity (constant bandwidth), and
//! the longest runs of consecutive samples below a fraction of the
//! bandwidth estimate and of RTT samples above a multiple of RTprop.
//!
//! The paper counts per-ACK samples. Our series holds the latest sample at
//! every `sample_interval`; the scenario samples every 0.5 ms, below the
//! time between ACKs, and a row counts as a new sample only when the
//! latest delivery-rate or RTT sample changed.

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use crate::reproduce::claims::{Claim, Declaration, Measured, Origin, Paper, Test};
use crate::reproduce::data::series_column;
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 5: bandwidth-sample CDF and low-sample runs.
pub const SAMPLES: Experiment = Experiment {
    id: "fig5-samples",
    scenario: "obbr/fig5-samples.toml",
    series: true,
    analyze: fig5_samples,
};

/// The first fall of the capacity: when (s), from and to (Mbit/s).
#[derive(Clone, Copy, Debug, PartialEq)]
struct CapacityDrop {
    pub t: f64,
    pub from: f64,
    pub to: f64,
}

/// The capacity over a run, from its link series.
struct Capacity {
    /// `(t_s, Mbit/s)` at the start, at every change and at the end.
    pub steps: Vec<(f64, f64)>,
    /// The first drop, if the capacity falls.
    pub drop: Option<CapacityDrop>,
}

/// The capacity schedule of a run, read from its link series.
fn capacity(runs: &Runs, record: &RunRecord) -> Capacity {
    let mut out = Capacity {
        steps: Vec::new(),
        drop: None,
    };
    let Ok(rows) = runs.link_series(record) else {
        return out;
    };
    let Some(header) = rows.first() else {
        return out;
    };
    let col = |n: &str| header.iter().position(|h| h == n);
    let (Some(t), Some(c)) = (col("t_s"), col("capacity_bps")) else {
        return out;
    };
    let points: Vec<(f64, f64)> = rows[1..]
        .iter()
        .filter_map(|r| {
            Some((
                r.get(t)?.parse().ok()?,
                r.get(c)?.parse::<f64>().ok()? / 1e6,
            ))
        })
        .collect();
    for &(t, v) in &points {
        match out.steps.last() {
            Some(&(_, last)) if last == v => {}
            Some(&(_, last)) => {
                if out.drop.is_none() && v < last {
                    out.drop = Some(CapacityDrop {
                        t,
                        from: last,
                        to: v,
                    });
                }
                out.steps.push((t, v));
            }
            None => out.steps.push((t, v)),
        }
    }
    if let Some(&last) = points.last() {
        out.steps.push(last);
    }
    out
}

const FIG5: &str = "§4.2, Fig. 5";

/// What the constant-bandwidth run's runs of samples must count to mean
/// anything: the detector's view leaves out the first 5 s (a sixth of the
/// 30 s run), ProbeRTT and the first round of each ProbeBW, no more.
const CONSTANT_RUN_COUNTED: &str = "the runs count at least 1,000 ProbeBW samples of the \
     constant run, and leave out at most a quarter of its samples after Drain (the first 5 s, \
     ProbeRTT and the first round of ProbeBW)";
/// The fewest samples the constant run's runs must count.
const MIN_COUNTED: usize = 1_000;
/// The largest share of the constant run's samples after Drain its runs may leave out.
const MAX_LEFT_OUT: f64 = 0.25;

/// Low bandwidth samples are common at constant bandwidth.
pub static LOW_SAMPLES_COMMON: Claim = Claim::new(Declaration {
    id: "obbr.fig5.low-samples-common",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "even at constant bandwidth 59% of the bandwidth samples are below 0.95 x BtlBw",
    about: "BBR",
    metric: "share of delivery-rate samples below 0.95 x capacity, constant 20 Mbit/s",
    unit: "%",
    paper_says: "59%",
    test: Test::point(0.59),
    tolerance_reason: "a share of one testbed's ACK samples, shaped by its NIC and ACK timing",
    origin: Origin::Paper,
});

/// At constant bandwidth no run of low samples reaches k.
pub static CONSTANT_BW_RUNS_SHORT: Claim = Claim::new(Declaration {
    id: "obbr.fig5.constant-bw-runs-short",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "at constant bandwidth runs of samples below 0.75 x the estimate stay short (at most 22), below k = 30",
    about: "BBR",
    metric: "longest run of ProbeBW samples below 0.75 x estimate, constant bandwidth",
    unit: "samples",
    paper_says: "at most 22",
    test: Test::at_most(29.0),
    tolerance_reason: "the paper's own design rule: a run shorter than k = 30 does not trigger the detector",
    origin: Origin::Paper,
})
.requires(CONSTANT_RUN_COUNTED);

/// At constant bandwidth no run of high RTT samples reaches k.
pub static CONSTANT_RTT_RUNS_SHORT: Claim = Claim::new(Declaration {
    id: "obbr.fig5.constant-rtt-runs-short",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "at constant bandwidth runs of RTT samples above 2.5 x RTprop stay short (at most 15), below k = 30",
    about: "BBR",
    metric: "longest run of ProbeBW RTT samples above 2.5 x RTprop, constant bandwidth",
    unit: "samples",
    paper_says: "at most 15",
    test: Test::at_most(29.0),
    tolerance_reason: "the paper's own design rule: a run shorter than k = 30 does not trigger the detector",
    origin: Origin::Paper,
})
.requires(CONSTANT_RUN_COUNTED);

/// A quarter of the samples are far below the capacity.
pub static BELOW_085: Claim = Claim::new(Declaration {
    id: "obbr.fig5.below-085",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "at constant bandwidth 24% of the bandwidth samples are below 0.85 x BtlBw",
    about: "BBR",
    metric: "share of delivery-rate samples below 0.85 x capacity, constant 20 Mbit/s",
    unit: "%",
    paper_says: "24%",
    test: Test::point(0.24),
    tolerance_reason: "a share of one testbed's ACK samples, as the 59% below 0.95",
    origin: Origin::Paper,
});

/// The lowest sample.
pub static LOWEST_SAMPLE: Claim = Claim::new(Declaration {
    id: "obbr.fig5.lowest-sample",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "at constant bandwidth the lowest bandwidth sample is 0.09 x BtlBw",
    about: "BBR",
    metric: "lowest delivery-rate sample / capacity, constant 20 Mbit/s",
    unit: "",
    paper_says: "0.09",
    test: Test::point(0.09),
    tolerance_reason: "one extreme sample of one run",
    origin: Origin::Paper,
});

/// The run length after a drop to 10 Mbit/s.
pub static DROP_RTT_RUN_10: Claim = Claim::new(Declaration {
    id: "obbr.fig5.drop-rtt-run-10mbit",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "a drop to 10 Mbit/s gives 373 consecutive RTT samples above 2.5 x RTprop",
    about: "BBR",
    metric: "longest run of ProbeBW RTT samples above 2.5 x RTprop after the drop to 10 Mbit/s",
    unit: "samples",
    paper_says: "373",
    test: Test::point(373.0),
    tolerance_reason: "a run length of one run's samples",
    origin: Origin::Paper,
});

/// The run length after a drop to 5 Mbit/s.
pub static DROP_RTT_RUN_5: Claim = Claim::new(Declaration {
    id: "obbr.fig5.drop-rtt-run-5mbit",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "a drop to 5 Mbit/s gives 328 consecutive RTT samples above 2.5 x RTprop",
    about: "BBR",
    metric: "longest run of ProbeBW RTT samples above 2.5 x RTprop after the drop to 5 Mbit/s",
    unit: "samples",
    paper_says: "328",
    test: Test::point(328.0),
    tolerance_reason: "a run length of one run's samples",
    origin: Origin::Paper,
});

/// A drop gives long runs of low samples.
pub static DROP_BW_RUNS_LONG: Claim = Claim::new(Declaration {
    id: "obbr.fig5.drop-bw-runs-long",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "a bandwidth drop gives runs of hundreds of samples below 0.75 x the estimate",
    about: "BBR",
    metric: "shortest over the drops of the longest run below 0.75 x estimate",
    unit: "samples",
    paper_says: "hundreds",
    test: Test::at_least(90.0),
    tolerance_reason: "the paper gives no number: 'hundreds' read as at least 3k = 90 samples",
    origin: Origin::ProjectTarget,
});

/// A drop gives long runs of high RTT samples.
pub static DROP_RTT_RUNS_LONG: Claim = Claim::new(Declaration {
    id: "obbr.fig5.drop-rtt-runs-long",
    paper: Paper::Obbr,
    place: FIG5,
    statement: "a bandwidth drop gives runs of hundreds of RTT samples above 2.5 x RTprop",
    about: "BBR",
    metric: "shortest over the drops of the longest run above 2.5 x RTprop",
    unit: "samples",
    paper_says: "hundreds",
    test: Test::at_least(90.0),
    tolerance_reason: "the paper gives no number: 'hundreds' read as at least 3k = 90 samples",
    origin: Origin::ProjectTarget,
});

/// oBBR's run length k (§5.1).
const K: usize = 30;
/// Samples before this time (s) are left out: Startup, Drain, and the ten
/// rounds in which the max filter still holds Startup's samples, which the
/// token bucket's burst inflates above the capacity.
const FROM_S: f64 = 5.0;
/// Thresholds of the bandwidth runs, as fractions of the estimate.
const BW_THRESHOLDS: [f64; 10] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
/// Thresholds of the RTT runs, as multiples of RTprop.
const RTT_THRESHOLDS: [f64; 11] = [1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.5, 4.0, 5.0, 6.0];

/// One delivery-rate / RTT sample.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    t: f64,
    /// Delivery rate and the bandwidth estimate, bit/s.
    rate: f64,
    estimate: f64,
    /// RTT sample and the min-RTT estimate, ms.
    rtt: f64,
    min_rtt: f64,
    /// In ProbeBW, at least two min_rtts after entering it: the samples
    /// oBBR's drop detector counts (a packet sent a min_rtt into ProbeBW,
    /// acknowledged a round later).
    probe_bw: bool,
    /// In another mode (Startup, Drain, ProbeRTT): oBBR's detector starts
    /// its runs over there.
    other_mode: bool,
}

/// The distinct samples of a series (rows as in `series_flows.csv`):
/// a row is a new sample when its delivery rate or RTT differs from the
/// previous row's. Rows before the first delivery-rate sample are skipped.
fn samples(rows: &[csv::StringRecord]) -> Vec<Sample> {
    let col = |n: &str| series_column(rows, 0, n);
    let (rate, estimate, rtt, min_rtt) = (
        col("delivery_rate_bps"),
        col("bw_estimate_bps"),
        col("latest_rtt_ms"),
        col("min_rtt_ms"),
    );
    let mode_col = rows
        .first()
        .and_then(|h| h.iter().position(|c| c == "mode"));
    let modes: Vec<&str> = rows[1..]
        .iter()
        .map(|r| mode_col.and_then(|c| r.get(c)).unwrap_or(""))
        .collect();
    let n = rate
        .len()
        .min(estimate.len())
        .min(rtt.len())
        .min(min_rtt.len())
        .min(modes.len());
    let mut out = Vec::new();
    let mut previous: Option<(f64, f64)> = None;
    let mut probe_bw_since: Option<f64> = None;
    for i in 0..n {
        let t = rate[i].0;
        let mode = modes[i];
        if mode == "probe_bw" {
            probe_bw_since.get_or_insert(t);
        } else {
            probe_bw_since = None;
        }
        let key = (rate[i].1, rtt[i].1);
        if previous == Some(key) || key.0 <= 0.0 {
            previous = Some(key);
            continue;
        }
        previous = Some(key);
        let settled = probe_bw_since.is_some_and(|s| t >= s + 2.0 * min_rtt[i].1 / 1e3);
        out.push(Sample {
            t,
            rate: key.0,
            estimate: estimate[i].1,
            rtt: key.1,
            min_rtt: min_rtt[i].1,
            probe_bw: settled,
            other_mode: mode != "probe_bw",
        });
    }
    out
}

/// Which samples a run counts.
#[derive(Clone, Copy, PartialEq)]
enum View {
    /// Every sample after Startup and Drain.
    All,
    /// As oBBR's detector: ProbeBW samples only; other modes break a run,
    /// ProbeBW samples too early to count neither extend nor break it.
    Detector,
}

/// The longest run of consecutive samples meeting `hit`.
fn longest_run(samples: &[Sample], view: View, hit: impl Fn(&Sample) -> bool) -> usize {
    let (mut best, mut current) = (0, 0);
    for s in samples {
        if view == View::Detector {
            if s.other_mode {
                current = 0;
                continue;
            }
            if !s.probe_bw {
                continue;
            }
        }
        if hit(s) {
            current += 1;
            best = best.max(current);
        } else {
            current = 0;
        }
    }
    best
}

fn low_bw_run(samples: &[Sample], view: View, fraction: f64) -> usize {
    longest_run(samples, view, |s| s.rate < fraction * s.estimate)
}

fn high_rtt_run(samples: &[Sample], view: View, multiple: f64) -> usize {
    longest_run(samples, view, |s| {
        s.min_rtt > 0.0 && s.rtt > multiple * s.min_rtt
    })
}

use crate::stats::cdf;

fn fraction_below(values: &[f64], x: f64) -> f64 {
    values.iter().filter(|v| **v < x).count() as f64 / values.len().max(1) as f64
}

/// One run: its label, capacity before any drop (bit/s), whether it drops,
/// and its samples from `FROM_S` on.
struct Case {
    label: String,
    capacity: f64,
    drops: bool,
    samples: Vec<Sample>,
    /// The longest run below 0.75 x the estimate as the detector counts,
    /// from the end of Drain on (the first `FROM_S` included).
    early_low_run: usize,
    /// The samples from the end of Drain on (the first `FROM_S` included).
    after_drain: usize,
}

fn fig5_samples(runs: &Runs) -> Analysis {
    let mut cases: Vec<Case> = Vec::new();
    for v in runs.axis("link.schedule.1.1") {
        let Some(run) = runs.one(&[("link.schedule.1.1", &v)]) else {
            continue;
        };
        let Ok(rows) = runs.flow_series(run) else {
            continue;
        };
        let cap = capacity(runs, run);
        let capacity = cap.steps.first().map_or(f64::NAN, |(_, c)| c * 1e6);
        let all = samples(&rows);
        let after_drain = all.iter().position(|s| !s.other_mode).unwrap_or(all.len());
        let first = all.iter().position(|s| s.t >= FROM_S).unwrap_or(all.len());
        let label = match cap.drop {
            Some(CapacityDrop { t, from, to }) => format!("{from} -> {to} Mbit/s at {t} s"),
            None => format!("constant {} Mbit/s", capacity / 1e6),
        };
        cases.push(Case {
            label,
            capacity,
            drops: cap.drop.is_some(),
            samples: all[first..].to_vec(),
            early_low_run: low_bw_run(&all[after_drain..], View::Detector, 0.75),
            after_drain: all.len() - after_drain,
        });
    }
    let constant = cases.iter().find(|c| !c.drops);
    let normalised = |c: &Case, view: View| -> Vec<f64> {
        c.samples
            .iter()
            .filter(|s| view == View::All || s.probe_bw)
            .map(|s| s.rate / c.capacity)
            .collect()
    };
    let mut cdf_lines = Vec::new();
    let mut paper = Table::new(
        "The paper's numbers (§4.2) and ours",
        [
            "quantity",
            "paper",
            "ours: all samples",
            "ours: ProbeBW samples",
        ],
    );
    if let Some(c) = constant {
        let all = normalised(c, View::All);
        let pbw = normalised(c, View::Detector);
        cdf_lines.push(Line::new("all samples", cdf(&all, 300)).style(LineStyle::Step));
        cdf_lines.push(Line::new("ProbeBW samples", cdf(&pbw, 300)).style(LineStyle::Step));
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        paper = paper
            .row([
                Cell::text("constant: samples below 0.95 x capacity"),
                Cell::text("59%"),
                Cell::percent(fraction_below(&all, 0.95), 1),
                Cell::percent(fraction_below(&pbw, 0.95), 1),
            ])
            .row([
                Cell::text("constant: samples below 0.85 x capacity"),
                Cell::text("24%"),
                Cell::percent(fraction_below(&all, 0.85), 1),
                Cell::percent(fraction_below(&pbw, 0.85), 1),
            ])
            .row([
                Cell::text("constant: lowest sample / capacity"),
                Cell::text("0.09"),
                Cell::fixed(min(&all), 2),
                Cell::fixed(min(&pbw), 2),
            ])
            .row([
                Cell::text("constant: longest run below 0.75 x estimate"),
                Cell::text("22"),
                Cell::fixed(low_bw_run(&c.samples, View::All, 0.75) as f64, 0),
                Cell::fixed(low_bw_run(&c.samples, View::Detector, 0.75) as f64, 0),
            ])
            .row([
                Cell::text(format!(
                    "constant: the same from the end of Drain (the first {FROM_S} s included)"
                )),
                Cell::Empty,
                Cell::Empty,
                Cell::fixed(c.early_low_run as f64, 0),
            ])
            .row([
                Cell::text("constant: longest run above 2.5 x RTprop"),
                Cell::text("15"),
                Cell::fixed(high_rtt_run(&c.samples, View::All, 2.5) as f64, 0),
                Cell::fixed(high_rtt_run(&c.samples, View::Detector, 2.5) as f64, 0),
            ]);
    }
    for c in cases.iter().filter(|c| c.drops) {
        let claim = if c.label.contains("-> 10 ") {
            "373"
        } else if c.label.contains("-> 5 ") {
            "328"
        } else {
            "not given"
        };
        paper = paper
            .row([
                Cell::text(format!("{}: longest run below 0.75 x estimate", c.label)),
                Cell::text("\"clearly signals the drop\""),
                Cell::fixed(low_bw_run(&c.samples, View::All, 0.75) as f64, 0),
                Cell::fixed(low_bw_run(&c.samples, View::Detector, 0.75) as f64, 0),
            ])
            .row([
                Cell::text(format!("{}: longest run above 2.5 x RTprop", c.label)),
                Cell::text(claim),
                Cell::fixed(high_rtt_run(&c.samples, View::All, 2.5) as f64, 0),
                Cell::fixed(high_rtt_run(&c.samples, View::Detector, 2.5) as f64, 0),
            ]);
    }
    let mut counts = Table::new(
        format!("Samples per run (from {FROM_S} s on)"),
        [
            "run",
            "samples",
            "of which ProbeBW (counted by oBBR's detector)",
        ],
    );
    for c in &cases {
        counts = counts.row([
            Cell::text(c.label.clone()),
            Cell::fixed(c.samples.len() as f64, 0),
            Cell::fixed(c.samples.iter().filter(|s| s.probe_bw).count() as f64, 0),
        ]);
    }
    let runs_figure =
        |title: &str, x_label: &str, thresholds: &[f64], f: &dyn Fn(&Case, f64) -> usize| {
            Figure::lines(
                title,
                x_label,
                "longest run (samples)",
                cases
                    .iter()
                    .map(|c| {
                        Line::new(
                            c.label.clone(),
                            thresholds.iter().map(|&x| (x, f(c, x) as f64)).collect(),
                        )
                    })
                    .collect(),
            )
            .reference(ReferenceLine::horizontal(K as f64, "k = 30"))
        };
    let bw_runs = runs_figure(
        "Longest run of bandwidth samples below x estimate",
        "x (threshold / bandwidth estimate), ProbeBW samples",
        &BW_THRESHOLDS,
        &|c, x| low_bw_run(&c.samples, View::Detector, x),
    );
    let rtt_runs = runs_figure(
        "Longest run of RTT samples above x RTprop",
        "x (threshold / RTprop), ProbeBW samples",
        &RTT_THRESHOLDS,
        &|c, x| high_rtt_run(&c.samples, View::Detector, x),
    );
    let cdf_figure = Figure::lines(
        "Bandwidth samples at constant bandwidth, normalised to capacity",
        "sample / capacity",
        "CDF",
        cdf_lines,
    )
    .y_range(0.0, 1.0)
    .reference(ReferenceLine::vertical(0.85, "0.85"))
    .reference(ReferenceLine::vertical(0.95, "0.95"));
    let drops: Vec<&Case> = cases.iter().filter(|c| c.drops).collect();
    let constant_value = |f: &dyn Fn(&Case) -> f64| match constant {
        Some(c) => Measured::Value(f(c)),
        None => Measured::NotRun("no constant-bandwidth run".into()),
    };
    let shortest_over_drops = |f: &dyn Fn(&Case) -> usize| match drops.iter().map(|c| f(c)).min() {
        Some(v) => Measured::Value(v as f64),
        None => Measured::NotRun("no bandwidth-drop run".into()),
    };
    let drop_run = |to: &str| match drops
        .iter()
        .find(|c| c.label.contains(&format!(" -> {to} ")))
    {
        Some(c) => Measured::Value(high_rtt_run(&c.samples, View::Detector, 2.5) as f64),
        None => Measured::NotRun(format!("no drop to {to} Mbit/s in this sweep")),
    };
    let (counted_held, counted_detail) = match constant {
        Some(c) => {
            let counted = c.samples.iter().filter(|s| s.probe_bw).count();
            let left_out = 1.0 - counted as f64 / c.after_drain.max(1) as f64;
            (
                counted >= MIN_COUNTED && left_out <= MAX_LEFT_OUT,
                format!(
                    "{counted} of the {} samples after Drain counted ({:.0}% left out)",
                    c.after_drain,
                    left_out * 100.0
                ),
            )
        }
        None => (false, "no constant-bandwidth run".to_string()),
    };
    let judged = vec![
        LOW_SAMPLES_COMMON.judge(constant_value(&|c| {
            fraction_below(&normalised(c, View::All), 0.95)
        })),
        BELOW_085.judge(constant_value(&|c| {
            fraction_below(&normalised(c, View::All), 0.85)
        })),
        LOWEST_SAMPLE.judge(constant_value(&|c| {
            normalised(c, View::All)
                .into_iter()
                .fold(f64::INFINITY, f64::min)
        })),
        DROP_RTT_RUN_10.judge(drop_run("10")),
        DROP_RTT_RUN_5.judge(drop_run("5")),
        CONSTANT_BW_RUNS_SHORT.judge_given(
            counted_held,
            &counted_detail,
            constant_value(&|c| low_bw_run(&c.samples, View::Detector, 0.75) as f64),
        ),
        CONSTANT_RTT_RUNS_SHORT.judge_given(
            counted_held,
            &counted_detail,
            constant_value(&|c| high_rtt_run(&c.samples, View::Detector, 2.5) as f64),
        ),
        DROP_BW_RUNS_LONG.judge(shortest_over_drops(&|c| {
            low_bw_run(&c.samples, View::Detector, 0.75)
        })),
        DROP_RTT_RUNS_LONG.judge(shortest_over_drops(&|c| {
            high_rtt_run(&c.samples, View::Detector, 2.5)
        })),
    ];
    let section = Section::new("fig5-samples", "Fig. 5: bandwidth and RTT samples of a BBR flow, constant and dropping bandwidth")
        .description(
            "One BBR flow, 20 Mbit/s, 100 ms, 200 KB buffer, 100 KB tc burst; the bandwidth stays or drops at 10 s to 10, 5 \
             or 2 Mbit/s (the paper's text names 10 and 5, its caption 5 and 2). A sample is one ACK's delivery-rate and RTT \
             sample: the series is recorded every 0.5 ms, below the time between ACKs, and a row counts only when the \
             latest sample changed (a check at 0.1 ms gives the same samples). Samples of the first 5 s are left out: \
             Startup, Drain, and the ten rounds in which the max filter still holds Startup's samples, which the 100 KB \
             token bucket inflates to ~1.4x the capacity; against that stale estimate the steady 20 Mbit/s samples are \
             all \"low\" and form one long run (given in the table), a true overestimate rather than ACK noise. Runs \
             are counted as oBBR's drop detector counts them (\"ProbeBW samples\"): ProbeRTT and the other modes start a \
             run over, and samples of the first round of ProbeBW are skipped; the tables also give the \
             runs over all samples, where ProbeRTT's deliberately small samples form a run of their own. At thresholds \
             of 0.8 and above even the steady samples count as low: the max filter holds samples the token bucket's \
             bursts inflate (up to ~1.27x the capacity). The paper: \
             even in the lab 59% of the samples are below 0.95 x BtlBw, but low samples rarely come in long runs at \
             constant bandwidth (at most 22 below 0.75 x the estimate, at most 15 RTTs above 2.5 x RTprop), while a drop \
             gives hundreds; hence oBBR's k = 30.",
        )
        .figure(cdf_figure)
        .figure(bw_runs)
        .figure(rtt_runs)
        .table(paper)
        .table(counts);
    Analysis::judged(
        section,
        judged,
        "Low samples are common but short-lived at constant bandwidth; a drop gives runs far longer than k = 30.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(rate: f64, probe_bw: bool, other_mode: bool) -> Sample {
        Sample {
            t: 0.0,
            rate,
            estimate: 10.0,
            rtt: 100.0,
            min_rtt: 100.0,
            probe_bw,
            other_mode,
        }
    }

    #[test]
    fn runs_follow_the_detector_view() {
        let s = [
            sample(1.0, true, false),
            sample(1.0, true, false),
            sample(1.0, false, false), // too early in ProbeBW: skipped
            sample(1.0, true, false),
            sample(1.0, false, true), // ProbeRTT: breaks the run
            sample(1.0, true, false),
            sample(9.0, true, false),
        ];
        assert_eq!(low_bw_run(&s, View::All, 0.75), 6);
        assert_eq!(low_bw_run(&s, View::Detector, 0.75), 3);
    }

    #[test]
    fn repeated_rows_count_once() {
        let rows: Vec<csv::StringRecord> = [
            "t_s,flow,delivery_rate_bps,bw_estimate_bps,latest_rtt_ms,min_rtt_ms,mode",
            "0.0,0,0,0,0,0,startup",
            "0.1,0,5,10,100,100,probe_bw",
            "0.2,0,5,10,100,100,probe_bw",
            "0.3,0,5,10,101,100,probe_bw",
            "0.4,0,6,10,101,100,probe_bw",
        ]
        .iter()
        .map(|l| csv::StringRecord::from(l.split(',').collect::<Vec<_>>()))
        .collect();
        let s = samples(&rows);
        assert_eq!(s.len(), 3);
        assert!(!s[0].probe_bw, "first round of ProbeBW");
        assert!(s[2].probe_bw, "two min_rtts into ProbeBW");
    }

    #[test]
    fn cdf_is_thinned_and_ends_at_one() {
        let v: Vec<f64> = (0..1000).map(f64::from).collect();
        let c = cdf(&v, 100);
        assert!(c.len() <= 103);
        assert_eq!(c.last(), Some(&(999.0, 1.0)));
        assert_eq!(c.first(), Some(&(0.0, 0.0)));
    }
}
