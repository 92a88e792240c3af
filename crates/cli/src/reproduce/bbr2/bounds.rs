//! bbr2: Figs. 5/6: inflight_hi and inflight_lo over time.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Figs. 5/6: inflight_hi and inflight_lo over time.
pub const BOUNDS: Experiment = Experiment {
    id: "figs5-6-bounds",
    scenario: "bbr2/figs5-6-bounds.toml",
    series: true,
    analyze: figs5_6_bounds,
};

fn figs5_6_bounds(_runs: &Runs) -> Section {
    Section::new(
        "figs5-6-bounds",
        "Figs. 5/6: inflight_hi and inflight_lo over time",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
