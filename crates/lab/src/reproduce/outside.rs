//! Claims of the papers' evaluations that a simulated dumbbell cannot
//! measure: a real Internet path, a video player on such a path, an
//! experiment grid the paper does not list. They are declared like every
//! other claim, so the claims table is complete, and judged "not run" with
//! what they would need.

use super::claims::{Claim, Declaration, Measured, Origin, Paper, Test};

/// A claim no suite can run, and what it would need.
pub struct Outside {
    /// The claim.
    pub claim: &'static Claim,
    /// What running it would need.
    pub needs: &'static str,
}

impl Outside {
    /// The claim judged "not run", with what it needs.
    pub fn judged(&self) -> super::claims::Judged {
        self.claim.judge(Measured::NotRun(self.needs.to_string()))
    }
}

static OBBR_FIG13_GOODPUT: Claim = Claim::new(Declaration {
    id: "obbr.fig13.internet-goodput",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 13",
    statement:
        "over the Internet (Virginia to Shandong, 270 ms) oBBR-0.75 gets 1.54x BBRv2's goodput",
    about: "oBBR mu 0.75",
    metric: "goodput oBBR-0.75 / BBRv2",
    unit: "x",
    paper_says: "27.17 vs 17.66 Mbit/s (CUBIC 6.30, BBR-S 26.94)",
    test: Test::near(1.54, 0.2, 0.5),
    tolerance_reason: "one Internet path at one time",
    origin: Origin::Paper,
});

static OBBR_FIG13_RETX: Claim = Claim::new(Declaration {
    id: "obbr.fig13.internet-retx",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 13",
    statement: "over the Internet oBBR retransmits 39.48% less than BBR-S",
    about: "oBBR mu 0.5",
    metric: "retransmission ratio oBBR / BBR-S",
    unit: "x",
    paper_says: "6.30% vs 10.41% (CUBIC 0.16%, BBRv2 6.71%)",
    test: Test::near(0.605, 0.2, 0.5),
    tolerance_reason: "one Internet path at one time",
    origin: Origin::Paper,
});

static OBBR_FIG14_QOE: Claim = Claim::new(Declaration {
    id: "obbr.fig14.internet-dash",
    paper: Paper::Obbr,
    place: "§5.3, Fig. 14",
    statement: "in Internet DASH sessions oBBR-0.5 reaches average quality 6.37 with 4 switches and 0.28% rebuffering",
    about: "oBBR mu 0.5",
    metric: "average quality index (0..9)",
    unit: "",
    paper_says: "AQ 6.37, QS 4, RB 0.28%, retransmissions < 4%",
    test: Test::near(6.37, 0.1, 0.3),
    tolerance_reason: "one Internet path at one time",
    origin: Origin::Paper,
});

static DRUCKER_FIG1_TREE: Claim = Claim::new(Declaration {
    id: "bbr2.fig1.decision-tree",
    paper: Paper::Bbr2,
    place: "§IV, Fig. 1",
    statement: "with loss BBR beats BBRv2 by 7% to 871% over Table I's grid; without loss the only >10% case is BBRv2 +13% at the smallest BDP and largest buffer",
    about: "BBR vs BBRv2",
    metric: "goodput ratio over the condition grid",
    unit: "",
    paper_says: "7% to 871%",
    test: Test::holds(1.0),
    tolerance_reason: "a direction over the grid",
    origin: Origin::Paper,
});

static DRUCKER_WAN: Claim = Claim::new(Declaration {
    id: "bbr2.fig2.wan",
    paper: Paper::Bbr2,
    place: "§III-A, Fig. 2 right",
    statement: "over the WAN (South Korea to the US east coast, ~200 ms) BBRv2's goodput is 6.5x below BBR's at 2% loss",
    about: "BBRv2",
    metric: "goodput BBR / BBRv2 at 2% loss",
    unit: "x",
    paper_says: "6.5x",
    test: Test::near(6.5, 0.3, 0.8),
    tolerance_reason: "one WAN path at one time",
    origin: Origin::Paper,
});

static DRUCKER_CELL_FAIRNESS: Claim = Claim::new(Declaration {
    id: "bbr2.vi-d.cellular-fairness",
    paper: Paper::Bbr2,
    place: "§VI-D",
    statement:
        "against CUBIC in the small cellular buffer adaptive BBRv2 gets about 3x BBRv2's goodput",
    about: "adaptive BBRv2",
    metric: "goodput adaptive BBRv2 / BBRv2, each against CUBIC",
    unit: "x",
    paper_says: "~3x",
    test: Test::near(3.0, 0.3, 0.7),
    tolerance_reason: "an approximate number in the text",
    origin: Origin::Paper,
});

static DRUCKER_CELL_HARM_ORDER: Claim = Claim::new(Declaration {
    id: "bbr2.vi-d.cellular-harm-order",
    paper: Paper::Bbr2,
    place: "§VI-D",
    statement: "under cellular conditions adaptive BBRv2 is much fairer to CUBIC than BBR in the small buffer and slightly fairer in the medium and large ones, and BBRv2 is much fairer than adaptive BBRv2 in all of them",
    about: "adaptive BBRv2",
    metric: "harm to CUBIC per buffer: BBRv2 < adaptive BBRv2 < BBR",
    unit: "",
    paper_says: "BBRv2 < adaptive BBRv2 < BBR",
    test: Test::holds(0.5),
    tolerance_reason: "a direction per buffer; partly in half of them",
    origin: Origin::Paper,
});

static DRUCKER_CELL_FAIR_V2: Claim = Claim::new(Declaration {
    id: "bbr2.iii-c.cellular-bbr2-fair",
    paper: Paper::Bbr2,
    place: "§III-C",
    statement: "under cellular conditions BBRv2 is fair to CUBIC while BBR is unfair",
    about: "BBRv2 vs BBR",
    metric: "harm to CUBIC under the cellular conditions",
    unit: "",
    paper_says: "results omitted for brevity",
    test: Test::holds(1.0),
    tolerance_reason: "a direction",
    origin: Origin::Paper,
});

static DRUCKER_FIG2_BUFFERS: Claim = Claim::new(Declaration {
    id: "bbr2.fig2.buffers-8-17x",
    paper: Paper::Bbr2,
    place: "§I, §III-B, Fig. 2 left",
    statement: "at 500 Mbit/s with 2% loss BBRv2 performs 8x-17x worse than BBR across all buffer conditions",
    about: "BBRv2",
    metric: "BBR / BBRv2 goodput per buffer (100 KB to 100 MB), 2% loss",
    unit: "",
    paper_says: "8x to 17x (7.8x at 2 MB, 21.2x at 10 MB in Fig. 2)",
    test: Test::holds(0.5),
    tolerance_reason: "a band per buffer; partly in half of them",
    origin: Origin::Paper,
});

/// The oBBR paper's claims outside the simulator.
pub static OBBR: &[Outside] = &[
    Outside {
        claim: &OBBR_FIG13_GOODPUT,
        needs: "the Internet path (its loss and cross traffic are unknown)",
    },
    Outside {
        claim: &OBBR_FIG13_RETX,
        needs: "the Internet path (its loss and cross traffic are unknown)",
    },
    Outside {
        claim: &OBBR_FIG14_QOE,
        needs: "the Internet path (the simulated DASH sessions over a stated path model are judged in fig14-dash)",
    },
];

/// BBR-Copilot's claims outside the simulator.
pub static COPILOT: &[Outside] = &[Outside {
    claim: &crate::reproduce::copilot::claims::PRODUCTION_IN_STARTUP,
    needs: "the CDN's production flow logs",
}];

/// Drucker et al.'s claims outside the simulator.
pub static BBR2: &[Outside] = &[
    Outside {
        claim: &DRUCKER_FIG1_TREE,
        needs: "Table I's condition grid, which the paper's text does not give",
    },
    Outside {
        claim: &DRUCKER_WAN,
        needs: "the WAN path; the nearest simulated case (100 Mbit/s, 100 ms, 2 MB, 2% loss) is in crates/sim/tests/bbr2.rs",
    },
    Outside {
        claim: &DRUCKER_CELL_FAIRNESS,
        needs: "the cellular fairness runs, whose conditions and numbers the paper does not show",
    },
    Outside {
        claim: &DRUCKER_CELL_HARM_ORDER,
        needs: "the cellular harm runs: the paper names neither the condition, the bandwidth nor its buffers, and gives the ordering without numbers",
    },
    Outside {
        claim: &DRUCKER_CELL_FAIR_V2,
        needs: "the same cellular harm runs, whose results the paper omits",
    },
    Outside {
        claim: &DRUCKER_FIG2_BUFFERS,
        needs: "Fig. 2's sweep over buffers: the suite runs its 2 MB point (goodput-under-loss, judged by bbr2.fig7.bbr-over-bbr2-2pct); the other buffers are not yet run",
    },
];
