//! The `cws` suite: the BBR-CWS paper (Kim et al.) evaluation, one experiment per figure or table.
//!
//! Every experiment runs on the paper's Table 2 scenario 1 link (50 Mbit/s,
//! 10 ms), Fig. 13 also at 40 ms. Every experiment is a file; this module
//! holds the fluctuation of flows' shares over time that the files'
//! `share_fluctuation` measure takes.

use super::data::{mean_sd, Runs, Stat};
use super::Entry;
use crate::store::RunRecord;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    super::experiment_file!("experiments/cws/fig8-single-flow.toml"),
    super::experiment_file!("experiments/cws/figs9-12-vs-cubic.toml"),
    super::experiment_file!("experiments/cws/fig13-fairness.toml"),
    super::experiment_file!("experiments/cws/fig13-fairness-20mbit.toml"),
    super::experiment_file!("experiments/cws/figs14-15-three-vs-three.toml"),
];

/// Each flow's throughput (Mbit/s) per interval of `bin_s`, from the
/// receivers' in-order delivered bytes; `None` if the series is missing.
fn flow_throughputs_per(
    runs: &Runs,
    run: &RunRecord,
    flows: usize,
    bin_s: f64,
) -> Option<Vec<Vec<(f64, f64)>>> {
    let rows = runs.flow_rows(run).ok()?;
    Some(
        (0..flows)
            .map(|f| {
                crate::stats::binned_rate(&sim::FlowColumn::Delivered.points(&rows, f), bin_s)
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
            jains.push(crate::stats::jain(&x));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn fluctuation_separates_a_steady_split_from_taking_turns() {
        let steady = vec![
            vec![(0.5, 10.0), (1.5, 10.0), (2.5, 10.0), (3.5, 10.0)],
            vec![(0.5, 30.0), (1.5, 30.0), (2.5, 30.0), (3.5, 30.0)],
        ];
        let f = fluctuation(&steady, 1, 1.0, 0.0);
        assert!(close(f.share_sd, 0.0));
        assert!(close(f.mean_jain, crate::stats::jain(&[10.0, 30.0])));
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
}
