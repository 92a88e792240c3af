//! obbr: Fig. 12: oBBR against BBR, CUBIC, BBRv2.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 12: oBBR against BBR, CUBIC, BBRv2.
pub const COMPETING: Experiment = Experiment {
    id: "fig12-competing",
    scenario: "obbr/fig12-competing.toml",
    series: false,
    analyze: fig12_competing,
};

fn fig12_competing(_runs: &Runs) -> Section {
    Section::new("fig12-competing", "Fig. 12: oBBR against BBR, CUBIC, BBRv2")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
