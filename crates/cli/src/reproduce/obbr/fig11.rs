//! obbr: Fig. 11: Irish 5G traces.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 11: Irish 5G traces.
pub const TRACES: Experiment = Experiment {
    id: "fig11-traces",
    scenario: "obbr/fig11-traces.toml",
    series: false,
    analyze: fig11_traces,
};

fn fig11_traces(_runs: &Runs) -> Section {
    Section::new("fig11-traces", "Fig. 11: Irish 5G traces")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
