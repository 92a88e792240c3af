//! cws: Fig. 13: Jain vs buffer at 10 and 40 ms.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 13: Jain vs buffer at 10 and 40 ms.
pub const FAIRNESS: Experiment = Experiment {
    id: "fig13-fairness",
    scenario: "cws/fig13-fairness.toml",
    series: false,
    analyze: fig13_fairness,
};

fn fig13_fairness(_runs: &Runs) -> Section {
    Section::new("fig13-fairness", "Fig. 13: Jain vs buffer at 10 and 40 ms")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
