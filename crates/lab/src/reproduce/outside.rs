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

// Claims found uncovered by a reading of the three papers; each is
// declared with its test and listed "not run" with what judging it needs.

static O_LONG_LINK_RETX: Claim = Claim::new(Declaration {
    id: "obbr.1.internet-retx-levels",
    paper: Paper::Obbr,
    place: "§1",
    statement: "on the long Internet link oBBR retransmits ~6.5% and BBRv2 6.71%",
    about: "oBBR, BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "~6.5% / 6.71%",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_DEEP_SHARE: Claim = Claim::new(Declaration {
    id: "obbr.1.bbr-40pct-deep",
    paper: Paper::Obbr,
    place: "§1 (cited)",
    statement:
        "with a cwnd cap of 2 BDP BBR gets about 40% against a loss-based flow in a deep buffer",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "~40%",
    test: Test::near(0.4, 0.3, 0.6),
    tolerance_reason: "a number of one testbed: 30% relative, 60% partly",
    origin: Origin::Paper,
});

static O_HALF_BUFFER: Claim = Claim::new(Declaration {
    id: "obbr.3-1.half-buffer-any-n",
    paper: Paper::Obbr,
    place: "§3.1, Fig. 2",
    statement: "with g = 2 and R = 16 BBR occupies about half the buffer however many loss-based flows share it",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "~half, independent of N",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_R1_NO_COMPETE: Claim = Claim::new(Declaration {
    id: "obbr.3-1.r1-no-compete",
    paper: Paper::Obbr,
    place: "§3.1, Fig. 2",
    statement: "at R = 1 loss-based flows can no longer compete with BBR",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "direction (model)",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_PROBERTT_DIPS: Claim = Claim::new(Declaration {
    id: "obbr.3-2.probertt-dips",
    paper: Paper::Obbr,
    place: "§3.2, Fig. 4",
    statement: "the RTT drops during the overestimation are ProbeRTT and do not correct the BDP",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "direction (trace)",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_KNEE: Claim = Claim::new(Declaration {
    id: "obbr.4-1.loss-knee",
    paper: Paper::Obbr,
    place: "§4.1",
    statement: "BBR's loss ratio rises sharply when the buffer is shallower than (g - 1) BDP",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "knee at R = 1",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_GMAX_ORDER: Claim = Claim::new(Declaration {
    id: "obbr.4-3.gmax-order",
    paper: Paper::Obbr,
    place: "§4.3",
    statement: "a smaller or greater g_max weakens or strengthens oBBR's competitiveness",
    about: "oBBR",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_THROTTLE_20: Claim = Claim::new(Declaration {
    id: "obbr.5-2-1.throttle-at-20pct",
    paper: Paper::Obbr,
    place: "§5.2.1",
    statement: "BBR does not throttle its sending rate until the loss ratio reaches about 20%",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "~20%",
    test: Test::near(0.2, 0.3, 0.6),
    tolerance_reason: "a number of one testbed: 30% relative, 60% partly",
    origin: Origin::Paper,
});

static O_BBR2_LIKE_OBBR: Claim = Claim::new(Declaration {
    id: "obbr.fig7.bbr2-like-obbr",
    paper: Paper::Obbr,
    place: "§5.2.1, Fig. 7",
    statement: "BBRv2's goodput in the 60 Mbit/s sweep is similar to oBBR's",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "similar to oBBR",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_FIG11_WINNERS: Claim = Claim::new(Declaration {
    id: "obbr.fig11.winner-goodputs",
    paper: Paper::Obbr,
    place: "§5.2.3, Fig. 11",
    statement: "the winners' goodputs are 35 (static1), 32 (static2) and 13 (car1) Mbit/s",
    about: "oBBR",
    metric: "see the statement",
    unit: "",
    paper_says: "35 / 32 / 13 Mbit/s",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_TABLE1: Claim = Claim::new(Declaration {
    id: "obbr.table1.trace-stats",
    paper: Paper::Obbr,
    place: "§5.2.3, Table 1",
    statement: "the four 5G traces have the statistics of Table 1",
    about: "the traces",
    metric: "see the statement",
    unit: "",
    paper_says: "45±62, 70±80, 32±64, 10±15 Mbit/s",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_HARDLY_ANY: Claim = Claim::new(Declaration {
    id: "obbr.fig12.hardly-any",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 12",
    statement: "against BBR at 0.5 BDP oBBR-0.5 can hardly gain bandwidth",
    about: "oBBR mu 0.5",
    metric: "see the statement",
    unit: "",
    paper_says: "hardly any",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_BBR_ALMOST_ALL: Claim = Claim::new(Declaration {
    id: "obbr.fig12.bbr-almost-all",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 12",
    statement: "against CUBIC at 0.5 BDP BBR takes almost all the bandwidth",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "almost all",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_INTERNET_CUBIC: Claim = Claim::new(Declaration {
    id: "obbr.fig13.internet-cubic",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 13",
    statement: "over the Internet CUBIC has the lowest retransmissions and goodput",
    about: "CUBIC",
    metric: "see the statement",
    unit: "",
    paper_says: "0.16%, 6.30 Mbit/s",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_INTERNET_BBR2: Claim = Claim::new(Declaration {
    id: "obbr.fig13.internet-bbr2",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 13",
    statement: "over the Internet BBRv2 retransmits more than oBBR",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "6.71% at 17.66 Mbit/s",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_INTERNET_MU: Claim = Claim::new(Declaration {
    id: "obbr.fig13.internet-mu",
    paper: Paper::Obbr,
    place: "§5.2.4, Fig. 13",
    statement:
        "over the Internet oBBR-0.75 and oBBR-1 retransmit 36.79% and 36.11% less than BBR-S",
    about: "oBBR mu 0.75, 1",
    metric: "see the statement",
    unit: "",
    paper_says: "36.79% / 36.11%",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static O_DASH_RETX_ALIKE: Claim = Claim::new(Declaration {
    id: "obbr.fig14.retx-alike",
    paper: Paper::Obbr,
    place: "§5.3.3, Fig. 14",
    statement: "in the streaming sessions BBR-S, BBRv2, CUBIC and oBBR retransmit alike, far below BBR and B3R",
    about: "oBBR, BBR-S, BBRv2, CUBIC",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_FIG4_SHALLOW: Claim = Claim::new(Declaration {
    id: "cws.fig4.bbr-takes-shallow",
    paper: Paper::Cws,
    place: "§3, Fig. 4",
    statement: "below 1 BDP BBR takes most of the bandwidth from CUBIC (100 Mbit/s, 10 ms)",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_FIG4_DEEP: Claim = Claim::new(Declaration {
    id: "cws.fig4.cubic-grows-deep",
    paper: Paper::Cws,
    place: "§3, Fig. 4",
    statement: "above 1 BDP CUBIC takes more bandwidth as the buffer grows",
    about: "CUBIC",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_FIG5A: Claim = Claim::new(Declaration {
    id: "cws.fig5.cubic-cannot-grow",
    paper: Paper::Cws,
    place: "§3.1, Fig. 5a",
    statement: "at 0.8 BDP one CUBIC flow cannot grow its window against one BBR flow",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_PERIOD: Claim = Claim::new(Declaration {
    id: "cws.fig6.ten-second-swing",
    paper: Paper::Cws,
    place: "§3.2, Figs. 5b and 6",
    statement: "at 5 BDP BBR and CUBIC take turns about every 10 s (the ProbeRTT period)",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "~10 s",
    test: Test::near(10.0, 0.3, 0.6),
    tolerance_reason: "a number of one testbed: 30% relative, 60% partly",
    origin: Origin::Paper,
});

static C_BBR2_IETF: Claim = Claim::new(Declaration {
    id: "cws.2-4.bbr2-fairer-below-2bdp",
    paper: Paper::Cws,
    place: "§2.4 (cited)",
    statement: "BBRv2 is fairer to CUBIC than BBR below 2 BDP and no better above",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "direction (cited)",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_QUEUE_1BDP: Claim = Claim::new(Declaration {
    id: "cws.5-3.queue-at-most-1bdp",
    paper: Paper::Cws,
    place: "§5.3, §6",
    statement: "BBR-CWS never builds a queue above 1 BDP in deep buffers",
    about: "BBR-CWS",
    metric: "see the statement",
    unit: "",
    paper_says: "<= 1 BDP",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_LOSS_WHILE_LEADING: Claim = Claim::new(Declaration {
    id: "cws.fig10.loss-while-leading",
    paper: Paper::Cws,
    place: "§5.4, Fig. 10",
    statement: "at 5 BDP BBR retransmits heavily while it overwhelms CUBIC",
    about: "BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_FACTOR_TRANSIENT: Claim = Claim::new(Declaration {
    id: "cws.fig11.factor-transient",
    paper: Paper::Cws,
    place: "§5.4, Fig. 11b",
    statement: "at 0.5 BDP BBR-CWS starts aggressive and then lowers its scaling factor",
    about: "BBR-CWS",
    metric: "see the statement",
    unit: "",
    paper_says: "transient",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_BEFORE_PROBERTT: Claim = Claim::new(Declaration {
    id: "cws.fig12.cubic-first",
    paper: Paper::Cws,
    place: "§5.4, Fig. 12",
    statement: "at 5 BDP CUBIC takes most of the bandwidth before BBR-CWS's first ProbeRTT",
    about: "CUBIC",
    metric: "see the statement",
    unit: "",
    paper_says: "transient",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_OWN_FALL: Claim = Claim::new(Declaration {
    id: "cws.fig13.cws-own-fall",
    paper: Paper::Cws,
    place: "§5.4, Fig. 13",
    statement: "BBR-CWS's fairness also decreases above 1 BDP as the buffer grows",
    about: "BBR-CWS",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_SYNC: Claim = Claim::new(Declaration {
    id: "cws.6.stable-sync",
    paper: Paper::Cws,
    place: "§6",
    statement: "BBR-CWS flows synchronise stably with each other",
    about: "BBR-CWS",
    metric: "see the statement",
    unit: "",
    paper_says: "vague direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static C_MODEST_MATCH: Claim = Claim::new(Declaration {
    id: "cws.5-2.modest-matches-zhang",
    paper: Paper::Cws,
    place: "§5.2 (cited)",
    statement: "the Modest BBR implementation matches Zhang et al. (+7.1% throughput)",
    about: "Modest BBR",
    metric: "see the statement",
    unit: "",
    paper_says: "+7.1%",
    test: Test::near(0.071, 0.3, 0.6),
    tolerance_reason: "a number of one testbed: 30% relative, 60% partly",
    origin: Origin::Paper,
});

static D_GROWS_WITH_BDP: Claim = Claim::new(Declaration {
    id: "bbr2.abstract.grows-with-bdp",
    paper: Paper::Bbr2,
    place: "abstract",
    statement: "BBRv2's goodput penalty under loss grows with the BDP",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_CLOSE_TO_CAPACITY: Claim = Claim::new(Declaration {
    id: "bbr2.fig7.close-to-capacity",
    paper: Paper::Bbr2,
    place: "§III-B a",
    statement: "without induced loss BBR and BBRv2 get close to the full bandwidth",
    about: "BBR, BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "close to the bandwidth",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_HIT_169: Claim = Claim::new(Declaration {
    id: "bbr2.4.hit-16-9x",
    paper: Paper::Bbr2,
    place: "§IV",
    statement: "BBRv2 takes a hit of as much as 16.9x under sustained and bursty losses",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "16.9x",
    test: Test::near(16.9, 0.3, 0.6),
    tolerance_reason: "a number of one testbed: 30% relative, 60% partly",
    origin: Origin::Paper,
});

static D_HEADROOM: Claim = Claim::new(Declaration {
    id: "bbr2.fig5.headroom-15pct",
    paper: Paper::Bbr2,
    place: "§IV-B, Fig. 5a",
    statement: "the delivery rate stays 15% below inflight_hi",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "15%",
    test: Test::near(0.15, 0.3, 0.6),
    tolerance_reason: "a number of one testbed: 30% relative, 60% partly",
    origin: Origin::Paper,
});

static D_LO_CAPPED: Claim = Claim::new(Declaration {
    id: "bbr2.fig5.lo-capped",
    paper: Paper::Bbr2,
    place: "§IV-B, Fig. 5b",
    statement: "with 2% loss inflight_lo falls and is capped by inflight_hi each cycle",
    about: "BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_THRESHOLD_NEVER: Claim = Claim::new(Declaration {
    id: "bbr2.fig6.threshold-never-exceeded",
    paper: Paper::Bbr2,
    place: "§VI-B, Fig. 6",
    statement: "with adaptive BBRv2 the loss threshold is never exceeded",
    about: "adaptive BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "never",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_WAN_ADAPTIVE: Claim = Claim::new(Declaration {
    id: "bbr2.fig7.wan-adaptive",
    paper: Paper::Bbr2,
    place: "§VI-B, Fig. 7",
    statement: "over the WAN adaptive BBRv2 outperforms BBRv2 under 1-2% loss",
    about: "adaptive BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_CLOSE_FAIRNESS: Claim = Claim::new(Declaration {
    id: "bbr2.8.close-to-bbr2-fairness",
    paper: Paper::Bbr2,
    place: "§VIII",
    statement: "adaptive BBRv2 achieves close to BBRv2's fairness",
    about: "adaptive BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "close to BBRv2",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_OTHER_CONDITIONS: Claim = Claim::new(Declaration {
    id: "bbr2.vi-d.good-poor-gains",
    paper: Paper::Bbr2,
    place: "§VI-D",
    statement:
        "adaptive BBRv2 gains alike in the good and poor cellular conditions at 10 and 100 Mbit/s",
    about: "adaptive BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "direction (not shown)",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_STILL_BELOW_BBR: Claim = Claim::new(Declaration {
    id: "bbr2.vi-d.still-below-bbr",
    paper: Paper::Bbr2,
    place: "§VI-D",
    statement: "in the small cellular buffer adaptive BBRv2 still gets less than BBR",
    about: "adaptive BBRv2",
    metric: "see the statement",
    unit: "",
    paper_says: "direction",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
    origin: Origin::Paper,
});

static D_BURSTS_80: Claim = Claim::new(Declaration {
    id: "bbr2.vi-d.bursts-80pct",
    paper: Paper::Bbr2,
    place: "§VI-D",
    statement: "the median cellular trace has loss bursts of up to 80%",
    about: "the trace",
    metric: "see the statement",
    unit: "",
    paper_says: "80% bursts",
    test: Test::holds(0.5),
    tolerance_reason: "a direction; partly in half the conditions",
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
    Outside {
        claim: &O_LONG_LINK_RETX,
        needs: "the Internet path (its loss and cross traffic are unknown)",
    },
    Outside {
        claim: &O_DEEP_SHARE,
        needs: "runs exist in scenarios/obbr/fig3-buffer.toml (R = 16); the analysis does not judge this claim yet",
    },
    Outside {
        claim: &O_HALF_BUFFER,
        needs: "a sweep of 1 BBR against 1-4 CUBIC flows at 16 BDP, which no suite runs yet",
    },
    Outside {
        claim: &O_R1_NO_COMPETE,
        needs: "runs exist in scenarios/obbr/fig3-buffer.toml (R = 1); the analysis does not judge this claim yet",
    },
    Outside {
        claim: &O_PROBERTT_DIPS,
        needs: "runs exist in scenarios/obbr/fig4-drop.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &O_KNEE,
        needs: "a single-flow sweep across R = 0.25 to 2, which no suite runs yet (Fig. 7 covers R = 0.2 to 0.6)",
    },
    Outside {
        claim: &O_GMAX_ORDER,
        needs: "a g_max sweep in the competitiveness-deep setting, not yet run",
    },
    Outside {
        claim: &O_THROTTLE_20,
        needs: "a random-loss sweep of one BBR flow from 5% to 30%, not yet run",
    },
    Outside {
        claim: &O_BBR2_LIKE_OBBR,
        needs: "runs exist in scenarios/obbr/fig7-buffers.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &O_FIG11_WINNERS,
        needs: "runs exist in scenarios/obbr/fig11-traces.toml; the analysis does not judge this claim yet (the paper's R is not given; ours is 0.5)",
    },
    Outside {
        claim: &O_TABLE1,
        needs: "a check of the trace files rather than a run; fig11-traces.toml states the match in its comment",
    },
    Outside {
        claim: &O_HARDLY_ANY,
        needs: "runs exist in scenarios/obbr/fig12-competing.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &O_BBR_ALMOST_ALL,
        needs: "runs exist in scenarios/obbr/fig12-competing.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &O_INTERNET_CUBIC,
        needs: "the Internet path",
    },
    Outside {
        claim: &O_INTERNET_BBR2,
        needs: "the Internet path",
    },
    Outside {
        claim: &O_INTERNET_MU,
        needs: "the Internet path",
    },
    Outside {
        claim: &O_DASH_RETX_ALIKE,
        needs: "runs exist in scenarios/obbr/fig14-dash.toml; the analysis does not judge this claim yet (the paper's sessions ran over the Internet)",
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
        needs: "Table I's full condition grid: the paper's text names its buffers (100 KB to 100 MB) but its table's rate and RTT values are not in the text we hold",
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
        needs: "a CUBIC flow added to bbr2/cellular.toml (runnable; not yet run); the paper omits its own results",
    },
    Outside {
        claim: &DRUCKER_FIG2_BUFFERS,
        needs: "Fig. 2's sweep over buffers: the suite runs its 2 MB point (goodput-under-loss, judged by bbr2.fig7.bbr-over-bbr2-2pct); the other buffers are not yet run",
    },
    Outside {
        claim: &D_GROWS_WITH_BDP,
        needs: "a BDP sweep under 2% loss, not yet run",
    },
    Outside {
        claim: &D_CLOSE_TO_CAPACITY,
        needs: "runs exist in scenarios/bbr2/goodput-under-loss.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &D_HIT_169,
        needs: "the condition behind the number, which the paper does not state",
    },
    Outside {
        claim: &D_HEADROOM,
        needs: "runs exist in scenarios/bbr2/figs5-6-bounds.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &D_LO_CAPPED,
        needs: "runs exist in scenarios/bbr2/figs5-6-bounds.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &D_THRESHOLD_NEVER,
        needs: "runs exist in scenarios/bbr2/figs5-6-bounds.toml; the analysis does not judge this claim yet (needs the per-round loss rate recorded)",
    },
    Outside {
        claim: &D_WAN_ADAPTIVE,
        needs: "the WAN path",
    },
    Outside {
        claim: &D_CLOSE_FAIRNESS,
        needs: "runs exist in scenarios/bbr2/table2-harm.toml; the analysis does not judge this claim yet (the ordering is judged by bbr2.fig8.adaptive-between)",
    },
    Outside {
        claim: &D_OTHER_CONDITIONS,
        needs: "runs exist in scenarios/bbr2/cellular.toml; the analysis does not judge this claim yet for 10 Mbit/s; the 100 Mbit/s links are not run",
    },
    Outside {
        claim: &D_STILL_BELOW_BBR,
        needs: "runs exist in scenarios/bbr2/cellular.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &D_BURSTS_80,
        needs: "the paper's trace script; our Gilbert-Elliott model of it caps bursts at 36.7% (a condition, not a result)",
    },
];

/// The BBR-CWS paper's claims no suite judges yet.
pub static CWS: &[Outside] = &[
    Outside {
        claim: &C_FIG4_SHALLOW,
        needs: "the 100 Mbit/s buffer sweep, not yet run (the 50 Mbit/s one is judged by cws.fig13.bbr-shallow-unfair)",
    },
    Outside {
        claim: &C_FIG4_DEEP,
        needs: "runs exist in scenarios/cws/fig13-fairness.toml; the analysis does not judge this claim yet (at 50 Mbit/s; the paper's is 100)",
    },
    Outside {
        claim: &C_FIG5A,
        needs: "a 1-vs-1 run at 100 Mbit/s, 10 ms, 0.8 BDP, not yet run",
    },
    Outside {
        claim: &C_PERIOD,
        needs: "runs exist in scenarios/cws/figs9-12-vs-cubic.toml; the analysis does not judge this claim yet (the period is not measured yet)",
    },
    Outside {
        claim: &C_BBR2_IETF,
        needs: "BBRv2 added to the Fig. 13 sweep, not yet run",
    },
    Outside {
        claim: &C_QUEUE_1BDP,
        needs: "a single-flow deep-buffer run measuring the queue, not yet run",
    },
    Outside {
        claim: &C_LOSS_WHILE_LEADING,
        needs: "runs exist in scenarios/cws/figs9-12-vs-cubic.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &C_FACTOR_TRANSIENT,
        needs: "runs exist in scenarios/cws/figs9-12-vs-cubic.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &C_BEFORE_PROBERTT,
        needs: "runs exist in scenarios/cws/figs9-12-vs-cubic.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &C_OWN_FALL,
        needs: "runs exist in scenarios/cws/fig13-fairness.toml; the analysis does not judge this claim yet",
    },
    Outside {
        claim: &C_SYNC,
        needs: "runs exist in scenarios/cws/figs14-15-three-vs-three.toml; the analysis does not judge this claim yet (the paper gives no measure)",
    },
    Outside {
        claim: &C_MODEST_MATCH,
        needs: "the cited experiment, whose conditions are unknown",
    },
];
