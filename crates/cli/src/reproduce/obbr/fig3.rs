//! obbr: Fig. 3 (left): BBR vs CUBIC share over R, g = 2; Fig. 3 (middle): share over g at R = 16; Fig. 3 (right): share over R with g = 1.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 3 (left): BBR vs CUBIC share over R, g = 2.
pub const BUFFER: Experiment = Experiment {
    id: "fig3-buffer",
    scenario: "obbr/fig3-buffer.toml",
    series: false,
    analyze: fig3_buffer,
};

fn fig3_buffer(_runs: &Runs) -> Section {
    Section::new(
        "fig3-buffer",
        "Fig. 3 (left): BBR vs CUBIC share over R, g = 2",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}

/// Fig. 3 (middle): share over g at R = 16.
pub const GAIN: Experiment = Experiment {
    id: "fig3-gain",
    scenario: "obbr/fig3-gain.toml",
    series: false,
    analyze: fig3_gain,
};

fn fig3_gain(_runs: &Runs) -> Section {
    Section::new("fig3-gain", "Fig. 3 (middle): share over g at R = 16")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}

/// Fig. 3 (right): share over R with g = 1.
pub const GAIN_ONE: Experiment = Experiment {
    id: "fig3-gain-one",
    scenario: "obbr/fig3-gain-one.toml",
    series: false,
    analyze: fig3_gain_one,
};

fn fig3_gain_one(_runs: &Runs) -> Section {
    Section::new("fig3-gain-one", "Fig. 3 (right): share over R with g = 1")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
