//! The `bbr2` suite: the adaptive BBRv2 paper (Drucker et al., "BBR vs.
//! BBRv2: A Performance Evaluation") evaluation, one experiment per figure or
//! table, every one an experiment file (experiments/bbr2/); the named
//! measure `uptake_lag` of changing bandwidth lives here.

mod uptake;

pub(crate) use uptake::uptake_lag_measure;

use super::Entry;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Entry] = &[
    super::experiment_file!("experiments/bbr2/fig1-decision-tree.toml"),
    super::experiment_file!("experiments/bbr2/fig1-linux-receive-window.toml"),
    super::experiment_file!("experiments/bbr2/goodput-under-loss.toml"),
    super::experiment_file!("experiments/bbr2/table2-harm.toml"),
    super::experiment_file!("experiments/bbr2/table4-changing-bandwidth.toml"),
    super::experiment_file!("experiments/bbr2/cellular.toml"),
    super::experiment_file!("experiments/bbr2/figs5-6-bounds.toml"),
    super::experiment_file!("experiments/bbr2/table5-dash.toml"),
];
