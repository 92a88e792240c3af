//! obbr: Fig. 5: bandwidth-sample CDF and low-sample runs.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 5: bandwidth-sample CDF and low-sample runs.
pub const SAMPLES: Experiment = Experiment {
    id: "fig5-samples",
    scenario: "obbr/fig5-samples.toml",
    series: true,
    analyze: fig5_samples,
};

fn fig5_samples(_runs: &Runs) -> Section {
    Section::new(
        "fig5-samples",
        "Fig. 5: bandwidth-sample CDF and low-sample runs",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
