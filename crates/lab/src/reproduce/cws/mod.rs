//! The `cws` suite: the BBR-CWS paper (Kim et al.) evaluation, one experiment per figure or table.
//!
//! Every experiment runs on the paper's Table 2 scenario 1 link (50 Mbit/s,
//! 10 ms), Fig. 13 also at 40 ms. This module holds what the analyses
//! share: statistics over seeds, unit conversions and throughput over time.

pub(super) mod fig13;
mod fig9_12;

use report::{Figure, Line, ReferenceLine};

pub(crate) use super::data::{buffer_bdp, Stat};
use super::data::{mean_sd, metric, seeds_note, series_column, Runs};
use super::Entry;
use crate::store::RunRecord;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    super::experiment_file!("experiments/cws/fig8-single-flow.toml"),
    Entry::Rust(fig9_12::VERSUS_CUBIC),
    Entry::Rust(fig13::FAIRNESS),
    Entry::Rust(fig13::FAIRNESS_20MBIT),
    super::experiment_file!("experiments/cws/figs14-15-three-vs-three.toml"),
];

/// Bottleneck rate of every experiment (Mbit/s).
const LINK_MBPS: f64 = 50.0;
/// Bytes of one packet on the wire (the default 1500 B datagram): the unit
/// the simulator counts cwnd in, so cwnd / this is the paper's "MSS".
const PACKET_BYTES: f64 = 1500.0;
/// Payload bytes of one packet (1500 B minus 52 B of headers): the unit of
/// retransmitted bytes, so retransmitted bytes / this is a packet count.
const PAYLOAD_BYTES: f64 = 1448.0;
/// Width of the intervals of throughput over time and of the fluctuation
/// measures (s). The paper samples every 0.1 s; at 50 Mbit/s a 0.1 s
/// interval holds only ~400 packets and the curves become unreadable.
const BIN_S: f64 = 1.0;
/// Fluctuation is measured from here on (s): after the first ProbeRTT,
/// which the paper marks as the end of the start-up transient (Fig. 12).
const SETTLED_S: f64 = 10.0;

/// The run drawn in time-series figures: the first seed of the point.
fn drawn_run<'a>(runs: &'a Runs, fixed: &[(&str, &str)]) -> Option<&'a RunRecord> {
    runs.select(fixed).into_iter().next()
}

/// `"0.5bdp"` as `"0.5 BDP"`, for categories and titles.
fn buffer_label(value: &str) -> String {
    match value.strip_suffix("bdp") {
        Some(r) => format!("{r} BDP"),
        None => value.to_string(),
    }
}

/// Flow `flow`'s goodput in Mbit/s.
fn goodput_mbps(run: &RunRecord, flow: usize) -> Option<f64> {
    metric(run, &format!("/flows/{flow}/goodput_bps")).map(|b| b / 1e6)
}

/// Flow `flow`'s retransmissions, in packets.
fn retransmitted_packets(run: &RunRecord, flow: usize) -> Option<f64> {
    metric(run, &format!("/flows/{flow}/bytes_retransmitted")).map(|b| b / PAYLOAD_BYTES)
}

/// The share of the total goodput that flows `0..first` (the BBR family)
/// get, out of flows `0..all`.
fn group_share(run: &RunRecord, first: usize, all: usize) -> Option<f64> {
    let goodputs: Option<Vec<f64>> = (0..all).map(|f| goodput_mbps(run, f)).collect();
    let goodputs = goodputs?;
    let total: f64 = goodputs.iter().sum();
    (total > 0.0).then(|| goodputs[..first].iter().sum::<f64>() / total)
}

/// Jain's index `(sum x)^2 / (n sum x^2)`; NaN when every `x` is zero or
/// there is none.
fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let squares: f64 = xs.iter().map(|x| x * x).sum();
    if squares > 0.0 {
        sum * sum / (xs.len() as f64 * squares)
    } else {
        f64::NAN
    }
}

/// Each flow's throughput (Mbit/s) per [`BIN_S`] interval, from the
/// receivers' in-order delivered bytes; `None` if the series is missing.
fn flow_throughputs(runs: &Runs, run: &RunRecord, flows: usize) -> Option<Vec<Vec<(f64, f64)>>> {
    flow_throughputs_per(runs, run, flows, BIN_S)
}

/// Each flow's throughput (Mbit/s) per interval of `bin_s`, from the
/// receivers' in-order delivered bytes; `None` if the series is missing.
fn flow_throughputs_per(
    runs: &Runs,
    run: &RunRecord,
    flows: usize,
    bin_s: f64,
) -> Option<Vec<Vec<(f64, f64)>>> {
    let rows = runs.flow_series(run).ok()?;
    Some(
        (0..flows)
            .map(|f| {
                crate::stats::binned_rate(&series_column(&rows, f, "delivered"), bin_s)
                    .into_iter()
                    .map(|(t, bytes_per_s)| (t, bytes_per_s * 8.0 / 1e6))
                    .collect()
            })
            .collect(),
    )
}

/// How steadily flows share the link over time.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fluctuation {
    /// Standard deviation over intervals of the BBR family's share of the
    /// interval's throughput: 0 for a steady split, ~0.3-0.4 when the
    /// families take turns at owning the link.
    share_sd: f64,
    /// Mean over intervals of Jain's index of the interval's throughputs:
    /// low when flows oscillate even if their long-run means are equal
    /// (the paper's §2.2 point on deep buffers).
    mean_jain: f64,
}

/// The [`Fluctuation`] of per-flow throughputs over time (same intervals
/// of `bin_s` for every flow), flows `0..first` being the BBR family,
/// counting the intervals that start at or after `from_s`.
fn fluctuation(
    throughputs: &[Vec<(f64, f64)>],
    first: usize,
    bin_s: f64,
    from_s: f64,
) -> Fluctuation {
    let intervals = throughputs.iter().map(Vec::len).min().unwrap_or(0);
    let mut shares = Vec::new();
    let mut jains = Vec::new();
    for i in 0..intervals {
        if throughputs[0][i].0 - bin_s / 2.0 < from_s - 1e-6 {
            continue;
        }
        let x: Vec<f64> = throughputs.iter().map(|f| f[i].1).collect();
        let total: f64 = x.iter().sum();
        if total > 0.0 {
            shares.push(x[..first].iter().sum::<f64>() / total);
            jains.push(jain(&x));
        }
    }
    Fluctuation {
        share_sd: mean_sd(&shares).1,
        mean_jain: mean_sd(&jains).0,
    }
}

/// The [`Fluctuation`] of every seed of a point, as statistics over seeds
/// (share sd, mean Jain per interval): throughput per interval of `bin_s`,
/// counted from `from_s`.
pub(crate) fn fluctuation_over_seeds(
    runs: &Runs,
    fixed: &[(&str, &str)],
    first: usize,
    all: usize,
    bin_s: f64,
    from_s: f64,
) -> (Stat, Stat) {
    let measured: Vec<Fluctuation> = runs
        .select(fixed)
        .into_iter()
        .filter_map(|run| flow_throughputs_per(runs, run, all, bin_s))
        .map(|t| fluctuation(&t, first, bin_s, from_s))
        .collect();
    (
        Stat::of(&measured.iter().map(|f| f.share_sd).collect::<Vec<_>>()),
        Stat::of(&measured.iter().map(|f| f.mean_jain).collect::<Vec<_>>()),
    )
}

/// Per-flow throughput over time, one line per flow, with the capacity.
fn throughput_figure(title: &str, throughputs: Vec<Vec<(f64, f64)>>, labels: &[String]) -> Figure {
    let lines = throughputs
        .into_iter()
        .zip(labels)
        .map(|(points, label)| Line::new(label.clone(), points))
        .collect();
    Figure::lines(
        title,
        "time (s)",
        format!("throughput per {BIN_S} s (Mbit/s)"),
        lines,
    )
    .y_range(0.0, LINK_MBPS * 1.05)
    .reference(ReferenceLine::horizontal(LINK_MBPS, "capacity"))
}

/// The points of a series with `from <= t <= to`.
fn between(points: Vec<(f64, f64)>, from: f64, to: f64) -> Vec<(f64, f64)> {
    points
        .into_iter()
        .filter(|(t, _)| (from..=to).contains(t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn jain_of_equal_shares_is_one_and_of_one_hog_is_one_over_n() {
        assert!(close(jain(&[3.0, 3.0, 3.0]), 1.0));
        assert!(close(jain(&[5.0, 0.0]), 0.5));
        assert!(jain(&[0.0, 0.0]).is_nan());
        assert!(jain(&[]).is_nan());
    }

    #[test]
    fn fluctuation_separates_a_steady_split_from_taking_turns() {
        let steady = vec![
            vec![(0.5, 10.0), (1.5, 10.0), (2.5, 10.0), (3.5, 10.0)],
            vec![(0.5, 30.0), (1.5, 30.0), (2.5, 30.0), (3.5, 30.0)],
        ];
        let f = fluctuation(&steady, 1, 1.0, 0.0);
        assert!(close(f.share_sd, 0.0));
        assert!(close(f.mean_jain, jain(&[10.0, 30.0])));
        let turns = vec![
            vec![(0.5, 40.0), (1.5, 0.0), (2.5, 40.0), (3.5, 0.0)],
            vec![(0.5, 0.0), (1.5, 40.0), (2.5, 0.0), (3.5, 40.0)],
        ];
        let f = fluctuation(&turns, 1, 1.0, 0.0);
        assert!(f.share_sd > 0.5);
        assert!(close(f.mean_jain, 0.5));
        // Intervals before `from_s` are left out: one is left.
        let f = fluctuation(&turns, 1, 1.0, 3.0);
        assert!(close(f.mean_jain, 0.5) && close(f.share_sd, 0.0));
    }

    #[test]
    fn buffer_labels() {
        assert_eq!(buffer_label("5bdp"), "5 BDP");
    }
}
