//! obbr: Fig. 9: 40/10 Mbit/s alternating.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 9: 40/10 Mbit/s alternating.
pub const ALTERNATING: Experiment = Experiment {
    id: "fig9-alternating",
    scenario: "obbr/fig9-alternating.toml",
    series: true,
    analyze: fig9_alternating,
};

fn fig9_alternating(_runs: &Runs) -> Section {
    Section::new("fig9-alternating", "Fig. 9: 40/10 Mbit/s alternating")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
