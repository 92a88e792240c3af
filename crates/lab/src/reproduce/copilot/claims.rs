//! The BBR-Copilot paper's claim that no simulation can run (§2.4's
//! production flows); the claims of §4's experiments are declared in their
//! files (experiments/copilot/).

use crate::reproduce::claims::{Claim, Declaration, Origin, Paper, Test};

/// Production flows that never left Startup (needs the CDN's logs).
pub static PRODUCTION_IN_STARTUP: Claim = Claim::new(Declaration {
    id: "copilot.2-4.production-startup",
    paper: Paper::Copilot,
    place: "§2.4",
    statement: "88.4% of 570,000 production live-streaming flows ended in Startup",
    about: "BBRv1 in production",
    metric: "share of production flows that never left Startup",
    unit: "%",
    paper_says: "88.4%",
    test: Test::point(0.884),
    tolerance_reason: "a production measurement over 570,000 flows",
    origin: Origin::Paper,
});
