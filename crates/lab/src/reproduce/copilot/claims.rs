//! The BBR-Copilot paper's §4.2 claims, declared once with their
//! tolerances and judged by the suite's two Startup experiments (§4.3's
//! are in experiments/copilot/probebw.toml).

use crate::reproduce::claims::{Claim, Declaration, Origin, Paper, Test};

const STARTUP: &str = "§4.2, Figs. 6-7";

/// Without Copilot, few streams leave Startup on a 200 ms path.
pub static EXIT_WITHOUT_200MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.exit-without-200ms",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "without Copilot, only 3% of the streams leave Startup within 60 s at 200 ms",
    about: "BBRv1, live 5.4 Mbit/s, 40 KB buffer",
    metric: "share of streams whose BBR declared the pipe full within 60 s, 200 ms",
    unit: "%",
    paper_says: "3% (100% at 50 ms)",
    test: Test::at_most(0.10),
    tolerance_reason:
        "'few' read as at most 10% of the streams (the paper: 3%; one of our 16 streams is 6%)",
    origin: Origin::ProjectTarget,
});

/// With Copilot, every stream leaves Startup.
pub static EXIT_WITH: Claim = Claim::new(Declaration {
    id: "copilot.startup.exit-with",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "with Copilot, every stream leaves Startup within 60 s, at every RTT",
    about: "BBRv1 with Copilot",
    metric: "lowest share of streams leaving Startup within 60 s over the RTTs",
    unit: "%",
    paper_says: "100% at 50, 100, 150 and 200 ms",
    test: Test::at_least(1.0),
    tolerance_reason: "the paper's own 100%",
    origin: Origin::Paper,
});

/// Kept in Startup, BBR paces above anything the path carries.
pub static STARTUP_RATE_OVERSHOOT: Claim = Claim::new(Declaration {
    id: "copilot.startup.rate-overshoot-200ms",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 6",
    statement: "without Copilot, BBR in Startup sends at 60.5 Mbit/s, above the path's maximum \
                of 37.2 Mbit/s within 60 s",
    about: "BBRv1 without Copilot, 200 ms",
    metric: "highest Startup pacing rate / highest capacity of the run (100 ms averages), \
             mean over streams, 200 ms",
    unit: "x",
    paper_says: "60.5 / 37.2 = 1.63x",
    test: Test::factor(60.5 / 37.2),
    tolerance_reason: "the paper's overshoot as a factor over the path's maximum, from one run of a trace we do not have; the analysis hands the highest pacing rate / the highest capacity",
    origin: Origin::Paper,
});

/// Copilot retransmits less, at every RTT.
pub static RETX_LOWER: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-lower",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "with Copilot the retransmission ratio is lower than without, at every RTT",
    about: "BBRv1 with / without Copilot",
    metric: "mean retransmission ratio over streams, with vs without, per RTT",
    unit: "",
    paper_says: "8.7-14.1% with vs 8.6-24.8% without (about equal at 50 ms)",
    test: Test::direction(),
    tolerance_reason: "a direction per RTT (the paper's own 50 ms point is about a tie)",
    origin: Origin::Paper,
});

/// The size of the cut at 200 ms.
pub static RETX_CUT_200MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-cut-200ms",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "at 200 ms Copilot cuts the retransmission ratio by 43.3% (24.8% to 14.1%)",
    about: "BBRv1 with / without Copilot, 200 ms",
    metric: "1 - (retransmission ratio with) / (without), 200 ms",
    unit: "%",
    paper_says: "43.3%",
    test: Test::cut(0.433),
    tolerance_reason:
        "the paper's cut of two means over streams; the analysis hands 1 - with / without",
    origin: Origin::Paper,
});

/// BBR's own retransmissions without Copilot at 200 ms.
pub static RETX_WITHOUT_200MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-without-200ms",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "without Copilot BBR retransmits 24.8% at 200 ms",
    about: "BBRv1 without Copilot, 200 ms",
    metric: "mean retransmission ratio over streams, 200 ms",
    unit: "%",
    paper_says: "24.8%",
    test: Test::point(0.248),
    tolerance_reason: "a mean over streams, on a trace other than the paper's Verizon drive",
    origin: Origin::Paper,
});

/// Without Copilot, every stream leaves Startup on a short path.
pub static EXIT_WITHOUT_50MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.exit-without-50ms",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "without Copilot, every stream leaves Startup within 60 s at 50 ms",
    about: "BBRv1, live 5.4 Mbit/s, 40 KB buffer",
    metric: "share of streams whose BBR declared the pipe full within 60 s, 50 ms",
    unit: "%",
    paper_says: "100%",
    test: Test::at_least(1.0),
    tolerance_reason: "the paper's own 100%",
    origin: Origin::Paper,
});

/// Copilot's own retransmissions at 200 ms.
pub static RETX_WITH_200MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-with-200ms",
    paper: Paper::Copilot,
    place: STARTUP,
    statement: "with Copilot BBR retransmits 14.1% at 200 ms (12.6% in the Fig. 6 run)",
    about: "BBRv1 with Copilot, 200 ms",
    metric: "mean retransmission ratio over streams, 200 ms",
    unit: "%",
    paper_says: "14.1%",
    test: Test::point(0.141),
    tolerance_reason: "a mean over streams, on a trace other than the paper's Verizon drive",
    origin: Origin::Paper,
});

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

/// The mechanism on our constant-rate path: without Copilot a 200 ms
/// stream stays in Startup.
pub static CONSTANT_EXIT_WITHOUT_200MS: Claim = Claim::new(Declaration {
    id: "copilot.startup-constant.exit-without-200ms",
    paper: Paper::Copilot,
    place: "§4.2 (mechanism, on our constant-rate path)",
    statement:
        "on a constant-rate path without dips, without Copilot a 200 ms stream stays in Startup",
    about: "BBRv1, live 5.4 Mbit/s, constant 37 Mbit/s (our path model)",
    metric: "share of streams leaving Startup within 60 s without Copilot, 200 ms",
    unit: "%",
    paper_says: "3% on the paper's trace",
    test: Test::at_most(0.10),
    tolerance_reason: "the project's constant-rate control beside the paper's trace; 'few' read as at most 10% of the streams",
    origin: Origin::Analysis,
});

/// The mechanism on our constant-rate path: Copilot takes every stream out.
pub static CONSTANT_EXIT_WITH: Claim = Claim::new(Declaration {
    id: "copilot.startup-constant.exit-with",
    paper: Paper::Copilot,
    place: "§4.2 (mechanism, on our constant-rate path)",
    statement: "on a constant-rate path without dips, with Copilot every stream leaves Startup at every RTT",
    about: "BBRv1 with Copilot, constant 37 Mbit/s (our path model)",
    metric: "lowest share of streams leaving Startup within 60 s with Copilot over the RTTs",
    unit: "%",
    paper_says: "100% on the paper's trace",
    test: Test::at_least(1.0),
    tolerance_reason: "the project's constant-rate control beside the paper's trace; the paper's 100% on its trace",
    origin: Origin::Analysis,
});

/// The retransmission half of §4.2 on the constant-rate path, where the
/// Startup mechanism shows without the trace's dips.
pub static CONSTANT_RETX_LOWER: Claim = Claim::new(Declaration {
    id: "copilot.startup-constant.retx-lower",
    paper: Paper::Copilot,
    place: "§4.2 (mechanism, on our constant-rate path)",
    statement: "on a constant-rate path without dips, with Copilot the retransmission ratio is \
                lower than without, at every RTT",
    about: "BBRv1 with / without Copilot, constant 37 Mbit/s (our path model)",
    metric: "retransmission ratio with vs without Copilot, per RTT (one stream per point)",
    unit: "",
    paper_says: "8.7-14.1% with vs 8.6-24.8% without, on the paper's trace",
    test: Test::direction(),
    tolerance_reason: "the project's constant-rate control beside the paper's trace; a direction \
                       per RTT, as copilot.startup.retx-lower on the trace",
    origin: Origin::Analysis,
});

/// Fig. 6's run without Copilot: its retransmissions.
pub static FIG6_RETX_WITHOUT: Claim = Claim::new(Declaration {
    id: "copilot.startup.fig6-retx-without",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 6",
    statement:
        "in the Fig. 6 run (200 ms) BBR without Copilot stays in Startup and retransmits 27.5%",
    about: "BBRv1 without Copilot, 200 ms",
    metric: "mean retransmission ratio over the 200 ms streams (the paper's Fig. 6 is one of its \
             streams; ours are 16 starts in the trace)",
    unit: "%",
    paper_says: "27.5%",
    test: Test::point(0.275),
    tolerance_reason: "a point number of one run, judged on the mean over our streams of the \
                       same condition, the best estimate of any one of them",
    origin: Origin::Paper,
});

/// Fig. 6's run with Copilot: its retransmissions.
pub static FIG6_RETX_WITH: Claim = Claim::new(Declaration {
    id: "copilot.startup.fig6-retx-with",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 6",
    statement: "in the Fig. 6 run (200 ms) BBR with Copilot leaves Startup and retransmits 12.6%",
    about: "BBRv1 with Copilot, 200 ms",
    metric: "mean retransmission ratio over the 200 ms streams (the paper's Fig. 6 is one of its \
             streams; ours are 16 starts in the trace)",
    unit: "%",
    paper_says: "12.6%",
    test: Test::point(0.126),
    tolerance_reason: "as without Copilot: a point number of one run, judged on the mean over \
                       our streams",
    origin: Origin::Paper,
});

/// Fig. 7(b) at 50 ms without Copilot.
pub static RETX_WITHOUT_50MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-without-50ms",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 7(b)",
    statement: "without Copilot BBR retransmits 8.6% at 50 ms",
    about: "BBRv1 without Copilot, 50 ms",
    metric: "mean retransmission ratio over streams, 50 ms",
    unit: "%",
    paper_says: "8.6%",
    test: Test::point(0.086),
    tolerance_reason: "a point number: the mean over the paper's streams at one RTT",
    origin: Origin::Paper,
});

/// Fig. 7(b) at 50 ms with Copilot.
pub static RETX_WITH_50MS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-with-50ms",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 7(b)",
    statement: "with Copilot BBR retransmits 8.7% at 50 ms",
    about: "BBRv1 with Copilot, 50 ms",
    metric: "mean retransmission ratio over streams, 50 ms",
    unit: "%",
    paper_says: "8.7%",
    test: Test::point(0.087),
    tolerance_reason: "a point number: the mean over the paper's streams at one RTT",
    origin: Origin::Paper,
});

/// Fig. 7(b): without Copilot, retransmissions grow with the RTT.
pub static RETX_WITHOUT_GROWS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-without-grows",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 7(b)",
    statement: "without Copilot the retransmission ratio gradually increases with the RTT, from \
                8.6% at 50 ms to 24.8% at 200 ms",
    about: "BBRv1 without Copilot",
    metric: "mean retransmission ratio over streams at each RTT above that at the next shorter one",
    unit: "",
    paper_says: "8.6% to 24.8%, gradually",
    test: Test::direction(),
    tolerance_reason: "a direction per step of the RTT axis (50-100, 100-150, 150-200 ms): \
                       \"gradually increases\"",
    origin: Origin::Paper,
});

/// Fig. 7(b): with Copilot, retransmissions also grow with the RTT.
pub static RETX_WITH_GROWS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-with-grows",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 7(b)",
    statement:
        "with Copilot the retransmission ratio increases from 8.7% at 50 ms to 14.1% at 200 ms",
    about: "BBRv1 with Copilot",
    metric: "mean retransmission ratio over streams at 200 ms above that at 50 ms",
    unit: "",
    paper_says: "8.7% to 14.1%",
    test: Test::direction(),
    tolerance_reason: "a single direction between the two RTTs the paper names (it says \
                       \"gradually\" of the other two trends only)",
    origin: Origin::Paper,
});

/// Fig. 7(b): Copilot's cut grows with the RTT.
pub static CUT_GROWS: Claim = Claim::new(Declaration {
    id: "copilot.startup.retx-cut-grows",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 7(b)",
    statement: "Copilot's cut of the retransmission ratio gradually increases with the RTT, \
                from nearly 0% at 50 ms to 43.3% at 200 ms",
    about: "BBRv1 with / without Copilot",
    metric: "1 - (retransmission ratio with) / (without) at each RTT above that at the next \
             shorter one",
    unit: "",
    paper_says: "nearly 0% to 43.3%, gradually",
    test: Test::direction(),
    tolerance_reason: "a direction per step of the RTT axis (50-100, 100-150, 150-200 ms): \
                       \"gradually increases\"",
    origin: Origin::Paper,
});

/// Fig. 7(a): without Copilot, fewer streams leave Startup as the RTT grows.
pub static EXIT_WITHOUT_FALLS: Claim = Claim::new(Declaration {
    id: "copilot.startup.exit-without-falls",
    paper: Paper::Copilot,
    place: "§4.2, Fig. 7(a)",
    statement: "without Copilot, as the RTT increases from 50 to 200 ms the share of streams \
                leaving Startup within 60 s decreases from 100% to 3%",
    about: "BBRv1 without Copilot",
    metric: "share of streams leaving Startup at each RTT not above that at the next shorter \
             one, and lower at 200 ms than at 50 ms",
    unit: "",
    paper_says: "100% to 3%",
    test: Test::direction(),
    tolerance_reason: "a direction per step of the RTT axis and over the whole axis; a share \
                       can rest at 0% or 100% over two RTTs, so a step holds when it does not rise",
    origin: Origin::Paper,
});
