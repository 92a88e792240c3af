//! The `cws` suite: the BBR-CWS paper (Kim et al.) evaluation, one experiment per figure or table.

mod fig13;
mod fig14_15;
mod fig8;
mod fig9_12;

use super::Experiment;

/// The experiments, in report order.
pub static EXPERIMENTS: &[Experiment] = &[
    fig8::SINGLE_FLOW,
    fig9_12::VERSUS_CUBIC,
    fig13::FAIRNESS,
    fig14_15::THREE_VS_THREE,
];
