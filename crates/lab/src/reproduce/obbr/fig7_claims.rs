//! The claims of the oBBR paper's Fig. 7 (§1, §5.2.1) that the buffers
//! experiment judges in Rust; experiments/obbr/fig7-long-link.toml declares
//! them too, for the two links with random loss and the quick tour's stable
//! link, until the buffers move to a file.
//!
//! Claims about oBBR are judged on the paper's algorithm (`obbr:mu=0.5`,
//! its text's defaults).

use crate::reproduce::claims::{Claim, Declaration, Origin, Paper, Test};

const FIG7: &str = "§5.2.1, Fig. 7";

/// Every oBBR retransmits less than BBR in every condition.
pub static OBBR_BELOW_BBR: Claim = Claim::new(Declaration {
    id: "obbr.fig7.obbr-below-bbr",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "every oBBR (mu 0.5, 0.75, 1) retransmits less than BBR in every condition",
    about: "oBBR (paper's algorithm)",
    metric: "retransmission ratio, oBBR vs BBR, per mu and condition",
    unit: "",
    paper_says: "oBBR below BBR throughout Fig. 7",
    test: Test::direction(),
    tolerance_reason:
        "a direction per (mu, condition) pair: the paper has every oBBR below BBR throughout Fig. 7",
    origin: Origin::Paper,
});

/// The headline: up to 30x fewer losses than BBR.
pub static UP_TO_30X: Claim = Claim::new(Declaration {
    id: "obbr.fig7.up-to-30x",
    paper: Paper::Obbr,
    place: "§1, §5.2.1, Fig. 7",
    statement: "oBBR reduces BBR's loss ratio by up to 30x",
    about: "oBBR (paper's algorithm, any mu)",
    metric: "largest BBR / oBBR retransmission ratio over mu and conditions",
    unit: "x",
    paper_says: "up to 30x",
    test: Test::factor(30.0),
    tolerance_reason: "the paper's headline factor, judged where the paper makes it (Fig. 7's single flows, whose own 17.42% vs 0.51% give about 34x); the analysis hands the largest BBR / oBBR ratio",
    origin: Origin::Paper,
});

/// BBR's own retransmission ratio in Fig. 7.
pub static BBR_MEAN_RETX: Claim = Claim::new(Declaration {
    id: "obbr.fig7.bbr-mean-retx",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "BBR retransmits 17.42% on average over Fig. 7",
    about: "BBR (Linux-like, our default)",
    metric: "BBR's retransmission ratio, mean over the experiment's conditions",
    unit: "%",
    paper_says: "17.42%",
    test: Test::point(0.1742),
    tolerance_reason: "the mean over Fig. 7's links of one testbed",
    origin: Origin::Paper,
});

/// oBBR's goodput floor.
pub static OBBR_MIN_GOODPUT: Claim = Claim::new(Declaration {
    id: "obbr.fig7.obbr-min-goodput",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "oBBR keeps at least 82.76% of the capacity in every case",
    about: "oBBR (paper's algorithm, any mu)",
    metric: "lowest oBBR goodput / capacity over mu and conditions",
    unit: "%",
    paper_says: ">= 82.76%",
    test: Test::at_least(0.8276),
    tolerance_reason: "the paper's lowest value over Fig. 7 is its own floor",
    origin: Origin::Paper,
});

/// oBBR's retransmissions rise with mu.
pub static MU_ORDER: Claim = Claim::new(Declaration {
    id: "obbr.fig7.mu-order",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "oBBR's retransmission ratio rises with mu (0.5 <= 0.75 <= 1)",
    about: "oBBR (paper's algorithm)",
    metric: "retransmission ratio per mu, in the conditions the paper gives numbers for",
    unit: "",
    paper_says: "0.51% < 0.62% < 1.97% (no loss), 2.82% < 3.06% < 3.93% (2% loss)",
    test: Test::direction(),
    tolerance_reason: "a direction per condition the paper gives per-mu numbers for",
    origin: Origin::Paper,
});

/// The ordering of the other BBR variants.
pub static VARIANT_ORDER: Claim = Claim::new(Declaration {
    id: "obbr.fig7.variant-order",
    paper: Paper::Obbr,
    place: "§5.2.1",
    statement: "B3R retransmits like BBR; BBR-S less than BBR and B3R, more than oBBR",
    about: "BBR-S, B3R",
    metric: "retransmission ratios per condition: |B3R - BBR| <= 25% of BBR, BBR-S < min(BBR, B3R), BBR-S > oBBR mu 0.5",
    unit: "",
    paper_says: "B3R ~ BBR > BBR-S > oBBR",
    test: Test::direction(),
    tolerance_reason: "a direction per condition; 'like BBR' read as within a quarter of BBR's ratio",
    origin: Origin::ProjectTarget,
});

/// oBBR's Fig. 7 per-mu numbers on the 40 Mbit/s link and at R 0.2 / 0.4.
pub static PER_MU_NUMBERS: Claim = Claim::new(Declaration {
    id: "obbr.fig7.per-mu-numbers",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "oBBR's retransmission ratio per mu matches the paper's numbers",
    about: "oBBR (paper's algorithm)",
    metric: "per mu and condition, whether the retransmission ratio is within the point rule's distance of the paper's number",
    unit: "",
    paper_says: "e.g. 0.51% / 0.62% / 1.97% (40 Mbit/s, no loss)",
    test: Test::direction(),
    tolerance_reason:
        "the paper's per-mu numbers, each judged by the rule for point numbers and counted as conditions",
    origin: Origin::Paper,
});

/// Buffer depth: BBR-like controllers retransmit less as R grows.
pub static FALLS_WITH_R: Claim = Claim::new(Declaration {
    id: "obbr.fig7.falls-with-r",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "BBR, B3R and BBR-S retransmit less as the buffer grows",
    about: "BBR, B3R, BBR-S",
    metric: "retransmission ratio over R = 0.2, 0.4, 0.6",
    unit: "",
    paper_says: "falls as R grows",
    test: Test::direction(),
    tolerance_reason: "a direction per controller over R = 0.2, 0.4, 0.6",
    origin: Origin::Paper,
});

/// Fewer retransmissions raise their goodput as the buffer grows.
pub static GOODPUT_RISES_WITH_R: Claim = Claim::new(Declaration {
    id: "obbr.fig7.goodput-rises-with-r",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "BBR, B3R and BBR-S gain goodput as the buffer grows (fewer retransmissions)",
    about: "BBR, B3R, BBR-S",
    metric: "goodput over R = 0.2, 0.4, 0.6, per controller",
    unit: "",
    paper_says: "rises as R grows",
    test: Test::direction(),
    tolerance_reason: "a direction per controller over R = 0.2, 0.4, 0.6",
    origin: Origin::Paper,
});

/// oBBR's floor of 1.25 while probing costs it at R = 0.2.
pub static OBBR_FLOOR_AT_02: Claim = Claim::new(Declaration {
    id: "obbr.fig7.obbr-floor",
    paper: Paper::Obbr,
    place: FIG7,
    statement:
        "oBBR retransmits more at R = 0.2 than at 0.4 (its gain floor of 1.25 while probing)",
    about: "oBBR (paper's algorithm)",
    metric: "retransmission ratio at R 0.2 vs 0.4, per mu",
    unit: "",
    paper_says: "1.54% vs 0.51% (mu 0.5)",
    test: Test::direction(),
    tolerance_reason: "a direction per mu (the paper: 1.54% vs 0.51% for mu 0.5)",
    origin: Origin::Paper,
});

/// CUBIC and BBRv2 retransmit least.
pub static LOSS_BASED_LEAST: Claim = Claim::new(Declaration {
    id: "obbr.fig7.loss-based-least",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "CUBIC and BBRv2 retransmit least at every R",
    about: "CUBIC, BBRv2",
    metric: "every other controller's retransmission ratio above both, per R",
    unit: "",
    paper_says: "CUBIC and BBRv2 lowest",
    test: Test::direction(),
    tolerance_reason: "a direction per buffer size",
    origin: Origin::Paper,
});

/// BBRv2 above CUBIC in goodput.
pub static BBR2_ABOVE_CUBIC: Claim = Claim::new(Declaration {
    id: "obbr.fig7.bbr2-above-cubic",
    paper: Paper::Obbr,
    place: FIG7,
    statement: "BBRv2's goodput is above CUBIC's in shallow buffers",
    about: "BBRv2",
    metric: "goodput BBRv2 > CUBIC, per R",
    unit: "",
    paper_says: "BBRv2 higher (similar to oBBR)",
    test: Test::direction(),
    tolerance_reason: "a direction per buffer size",
    origin: Origin::Paper,
});
