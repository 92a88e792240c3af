//! bbr2: Table IV: changing bandwidth.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Table IV: changing bandwidth.
pub const CHANGING_BANDWIDTH: Experiment = Experiment {
    id: "table4-changing-bandwidth",
    scenario: "bbr2/table4-changing-bandwidth.toml",
    series: true,
    analyze: table4_changing_bandwidth,
};

fn table4_changing_bandwidth(_runs: &Runs) -> Section {
    Section::new("table4-changing-bandwidth", "Table IV: changing bandwidth")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
