//! The `bbr2` suite: the adaptive BBRv2 paper (Drucker et al., "BBR vs.
//! BBRv2: A Performance Evaluation") evaluation, one experiment per figure or
//! table.
//!
//! This module also holds what several of its analyses share: controller
//! and loss labels, binning of time series (which the experiment files'
//! `run_window` uses too).

mod decision_tree;
mod uptake;

pub(crate) use uptake::uptake_lag_measure;

use super::verdict::paper_name as cc_label;
use super::Entry;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    Entry::Rust(decision_tree::DECISION_TREE),
    Entry::Rust(decision_tree::LINUX_RECEIVE_WINDOW),
    super::experiment_file!("experiments/bbr2/goodput-under-loss.toml"),
    super::experiment_file!("experiments/bbr2/table2-harm.toml"),
    super::experiment_file!("experiments/bbr2/table4-changing-bandwidth.toml"),
    super::experiment_file!("experiments/bbr2/cellular.toml"),
    super::experiment_file!("experiments/bbr2/figs5-6-bounds.toml"),
    super::experiment_file!("experiments/bbr2/table5-dash.toml"),
];

/// "no loss" or "2% loss" for a value of a `link.loss` axis.
fn loss_label(value: &str) -> String {
    if value.trim_end_matches('%').parse::<f64>() == Ok(0.0) {
        "no loss".into()
    } else {
        format!("{value} loss")
    }
}

/// The mean of `points` in consecutive bins of `width` along x, as
/// `(bin centre, mean)`; empty bins are left out. Smooths per-sample series
/// (a delivery-rate sample every 100 ms) into readable curves.
pub(crate) fn bin_mean(points: &[(f64, f64)], width: f64) -> Vec<(f64, f64)> {
    let mut bins: Vec<(f64, f64, usize)> = Vec::new();
    for &(x, y) in points {
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let index = (x / width).floor();
        match bins.last_mut() {
            Some((i, sum, n)) if *i == index => {
                *sum += y;
                *n += 1;
            }
            _ => bins.push((index, y, 1)),
        }
    }
    bins.into_iter()
        .map(|(i, sum, n)| ((i + 0.5) * width, sum / n as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::data::link_column;

    #[test]
    fn bin_mean_averages_consecutive_bins_and_skips_empty_ones() {
        let points = [
            (0.1, 1.0),
            (0.5, 3.0),
            (1.2, 10.0),
            (3.9, 4.0),
            (3.1, f64::NAN),
        ];
        assert_eq!(
            bin_mean(&points, 1.0),
            vec![(0.5, 2.0), (1.5, 10.0), (3.5, 4.0)]
        );
        assert!(bin_mean(&[], 1.0).is_empty());
    }

    #[test]
    fn link_column_reads_by_name() {
        let rows = vec![
            csv::StringRecord::from(vec!["t_s", "queue_bytes", "capacity_bps"]),
            csv::StringRecord::from(vec!["0.0", "10", "5e8"]),
            csv::StringRecord::from(vec!["0.1", "x", "4.5e8"]),
        ];
        assert_eq!(
            link_column(&rows, "capacity_bps"),
            vec![(0.0, 5e8), (0.1, 4.5e8)]
        );
        assert_eq!(link_column(&rows, "queue_bytes"), vec![(0.0, 10.0)]);
        assert!(link_column(&rows, "nosuch").is_empty());
        assert!(link_column(&[], "capacity_bps").is_empty());
    }

    #[test]
    fn zero_loss_reads_as_no_loss() {
        assert_eq!(loss_label("0"), "no loss");
        assert_eq!(loss_label("0%"), "no loss");
        assert_eq!(loss_label("2%"), "2% loss");
    }
}
