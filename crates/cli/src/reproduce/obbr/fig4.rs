//! obbr: Fig. 4: 20 -> 5 and 20 -> 2 Mbit/s drops.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 4: 20 -> 5 and 20 -> 2 Mbit/s drops.
pub const DROP: Experiment = Experiment {
    id: "fig4-drop",
    scenario: "obbr/fig4-drop.toml",
    series: true,
    analyze: fig4_drop,
};

fn fig4_drop(_runs: &Runs) -> Section {
    Section::new("fig4-drop", "Fig. 4: 20 -> 5 and 20 -> 2 Mbit/s drops")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
