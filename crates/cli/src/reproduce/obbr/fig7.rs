//! obbr: Fig. 7: 100 Mbit/s, 40 ms, R = 0.25, 0/1/2% loss; Fig. 7: 40 Mbit/s, 100 ms, R = 0.25, 0/1/2% loss; Fig. 7: 60 Mbit/s, 60 ms, R in {0.2, 0.4, 0.6}.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 7: 100 Mbit/s, 40 ms, R = 0.25, 0/1/2% loss.
pub const FAST_LINK: Experiment = Experiment {
    id: "fig7-fast-link",
    scenario: "obbr/fig7-fast-link.toml",
    series: false,
    analyze: fig7_fast_link,
};

fn fig7_fast_link(_runs: &Runs) -> Section {
    Section::new(
        "fig7-fast-link",
        "Fig. 7: 100 Mbit/s, 40 ms, R = 0.25, 0/1/2% loss",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}

/// Fig. 7: 40 Mbit/s, 100 ms, R = 0.25, 0/1/2% loss.
pub const LONG_LINK: Experiment = Experiment {
    id: "fig7-long-link",
    scenario: "obbr/fig7-long-link.toml",
    series: false,
    analyze: fig7_long_link,
};

fn fig7_long_link(_runs: &Runs) -> Section {
    Section::new(
        "fig7-long-link",
        "Fig. 7: 40 Mbit/s, 100 ms, R = 0.25, 0/1/2% loss",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}

/// Fig. 7: 60 Mbit/s, 60 ms, R in {0.2, 0.4, 0.6}.
pub const BUFFERS: Experiment = Experiment {
    id: "fig7-buffers",
    scenario: "obbr/fig7-buffers.toml",
    series: false,
    analyze: fig7_buffers,
};

fn fig7_buffers(_runs: &Runs) -> Section {
    Section::new(
        "fig7-buffers",
        "Fig. 7: 60 Mbit/s, 60 ms, R in {0.2, 0.4, 0.6}",
    )
    .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
