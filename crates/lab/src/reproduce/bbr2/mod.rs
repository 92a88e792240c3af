//! The `bbr2` suite: the adaptive BBRv2 paper (Drucker et al., "BBR vs.
//! BBRv2: A Performance Evaluation") evaluation, one experiment per figure or
//! table.
//!
//! This module also holds what several of its analyses share: statistics
//! over seeds, controller labels, table cells, binning of time series.

mod bounds;
mod decision_tree;
pub(crate) mod loss;
mod uptake;

pub(crate) use uptake::uptake_lag_measure;

use report::Cell;

use super::data::metric;
use super::verdict::{mean_sd_cell, paper_name as cc_label};
use super::{Entry, Runs};

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    Entry::Rust(decision_tree::DECISION_TREE),
    Entry::Rust(decision_tree::LINUX_RECEIVE_WINDOW),
    Entry::Rust(loss::GOODPUT_UNDER_LOSS),
    super::experiment_file!("experiments/bbr2/table2-harm.toml"),
    super::experiment_file!("experiments/bbr2/table4-changing-bandwidth.toml"),
    super::experiment_file!("experiments/bbr2/cellular.toml"),
    Entry::Rust(bounds::BOUNDS),
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

/// Mean and sample standard deviation of a summary metric over the runs that
/// match `fixed` (one per seed); NaN when none has it. Used only by the
/// Rust experiments still being moved to files.
fn stats(runs: &Runs, fixed: &[(&str, &str)], pointer: &str) -> (f64, f64) {
    runs.over_seeds(fixed, |r| metric(r, pointer)).pair()
}

/// Mean goodput (bit/s) of flow 0 over the runs that match `fixed`.
fn mean_goodput(runs: &Runs, fixed: &[(&str, &str)]) -> f64 {
    stats(runs, fixed, "/flows/0/goodput_bps").0
}

/// A ratio cell ("7.8x"); "—" when unknown.
fn times_cell(ratio: f64) -> Cell {
    Cell::fixed(ratio, 2).with_unit("x")
}

// The series helpers of the analyses still written in Rust, from the
// statistics module under the names they use.
use crate::stats::{bin_mean, window_median as median_between};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_loss_reads_as_no_loss() {
        assert_eq!(loss_label("0"), "no loss");
        assert_eq!(loss_label("0%"), "no loss");
        assert_eq!(loss_label("2%"), "2% loss");
    }
}
