//! cws: Figs. 14-15: three vs three.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Figs. 14-15: three vs three.
pub const THREE_VS_THREE: Experiment = Experiment {
    id: "figs14-15-three-vs-three",
    scenario: "cws/figs14-15-three-vs-three.toml",
    series: true,
    analyze: figs14_15_three_vs_three,
};

fn figs14_15_three_vs_three(_runs: &Runs) -> Section {
    Section::new("figs14-15-three-vs-three", "Figs. 14-15: three vs three")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
