//! bbr2: Fig. 7: goodput vs loss at large BDP.

use report::{Section, VerdictStatus};

use crate::reproduce::{Experiment, Runs};

/// Fig. 7: goodput vs loss at large BDP.
pub const GOODPUT_UNDER_LOSS: Experiment = Experiment {
    id: "goodput-under-loss",
    scenario: "bbr2/goodput-under-loss.toml",
    series: false,
    analyze: goodput_under_loss,
};

fn goodput_under_loss(_runs: &Runs) -> Section {
    Section::new("goodput-under-loss", "Fig. 7: goodput vs loss at large BDP")
        .verdict(VerdictStatus::NotRun, "analysis not written yet")
}
