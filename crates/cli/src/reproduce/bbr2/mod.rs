//! The `bbr2` suite: the adaptive BBRv2 paper (Drucker et al.) evaluation, one experiment per figure or table.

mod bounds;
mod cellular;
mod changing;
mod harm;
mod loss;

use super::Experiment;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Experiment] = &[
    loss::GOODPUT_UNDER_LOSS,
    harm::HARM,
    changing::CHANGING_BANDWIDTH,
    cellular::CELLULAR,
    bounds::BOUNDS,
];
