//! obbr: Fig. 8: 1..5 flows of one controller.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 8: 1..5 flows of one controller.
pub const MULTI_FLOW: Experiment = Experiment {
    id: "fig8-multi-flow",
    scenario: "obbr/fig8-multi-flow.toml",
    series: false,
    analyze: fig8_multi_flow,
};

fn fig8_multi_flow(_runs: &Runs) -> Section {
    Section::new("fig8-multi-flow", "Fig. 8: 1..5 flows of one controller")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
