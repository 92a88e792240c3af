//! cws: Figs. 9-12: BBR or CWS vs CUBIC over time.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Figs. 9-12: BBR or CWS vs CUBIC over time.
pub const VERSUS_CUBIC: Experiment = Experiment {
    id: "figs9-12-vs-cubic",
    scenario: "cws/figs9-12-vs-cubic.toml",
    series: true,
    analyze: figs9_12_vs_cubic,
};

fn figs9_12_vs_cubic(_runs: &Runs) -> Section {
    Section::new(
        "figs9-12-vs-cubic",
        "Figs. 9-12: BBR or CWS vs CUBIC over time",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
