//! cws: Fig. 8: single flow, 0.5/0.8/1 BDP.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 8: single flow, 0.5/0.8/1 BDP.
pub const SINGLE_FLOW: Experiment = Experiment {
    id: "fig8-single-flow",
    scenario: "cws/fig8-single-flow.toml",
    series: true,
    analyze: fig8_single_flow,
};

fn fig8_single_flow(_runs: &Runs) -> Section {
    Section::new("fig8-single-flow", "Fig. 8: single flow, 0.5/0.8/1 BDP")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
