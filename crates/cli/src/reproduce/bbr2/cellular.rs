//! bbr2: Table III: cellular Gilbert-Elliott loss.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Table III: cellular Gilbert-Elliott loss.
pub const CELLULAR: Experiment = Experiment {
    id: "cellular",
    scenario: "bbr2/cellular.toml",
    series: false,
    analyze: cellular,
};

fn cellular(_runs: &Runs) -> Section {
    Section::new("cellular", "Table III: cellular Gilbert-Elliott loss")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
