//! The `bbr2` suite: the adaptive BBRv2 paper (Drucker et al., "BBR vs.
//! BBRv2: A Performance Evaluation") evaluation, one experiment per figure or
//! table.
//!
//! This module also holds what its Rust analyses share: controller and
//! loss labels.

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
    if scenario::AxisValue::parse(value).number() == Some(0.0) {
        "no loss".into()
    } else {
        format!("{value} loss")
    }
}

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
