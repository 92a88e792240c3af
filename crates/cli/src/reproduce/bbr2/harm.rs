//! bbr2: Table II: harm to CUBIC.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Table II: harm to CUBIC.
pub const HARM: Experiment = Experiment {
    id: "table2-harm",
    scenario: "bbr2/table2-harm.toml",
    series: false,
    analyze: table2_harm,
};

fn table2_harm(_runs: &Runs) -> Section {
    Section::new("table2-harm", "Table II: harm to CUBIC")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
