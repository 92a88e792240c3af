//! cws: Figs. 9-12: BBR or BBR-CWS against CUBIC over time, 0.5 and 5 BDP.

use report::{Cell, Figure, Line, ReferenceLine, Section, Table};

use super::{
    between, buffer_label, drawn_run, flow_throughputs, fluctuation_over_seeds, group_share,
    retransmitted_packets, seeds_note, throughput_figure, Stat, BIN_S, PACKET_BYTES, PAYLOAD_BYTES,
    SETTLED_S,
};
use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::{mean_sd, metric, series_column};
use crate::reproduce::verdict::paper_name;
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Figs. 9-12: BBR or BBR-CWS against CUBIC over time, 0.5 and 5 BDP.
pub const VERSUS_CUBIC: Experiment = Experiment {
    id: "figs9-12-vs-cubic",
    scenario: "cws/figs9-12-vs-cubic.toml",
    series: true,
    analyze: figs9_12_vs_cubic,
};

/// The paper's figures: (figure, controller, buffer).
const FIGURES: [(u8, &str, &str); 4] = [
    (9, "bbr", SHALLOW),
    (10, "bbr", DEEP),
    (11, "bbr-cws", SHALLOW),
    (12, "bbr-cws", DEEP),
];
/// The shallow buffer of §5.4.
const SHALLOW: &str = "0.5bdp";
/// The deep buffer of §5.4.
const DEEP: &str = "5bdp";
/// The window the paper draws cwnd and RTprop in (s).
const ZOOM: (f64, f64) = (10.0, 50.0);
claim!(
    BBR_TAKES_MOST,
    Paper::Cws,
    "§5.4, Fig. 9",
    "cws.fig9.bbr-takes-most",
    "in a 0.5 BDP buffer BBR takes most of the bandwidth from CUBIC",
    "BBR",
    "BBR's goodput share against one CUBIC flow, 0.5 BDP",
    "%",
    "most of the bandwidth",
    Test::at_least(0.8),
    "the paper gives no number: 'most' read as at least 80% of the bandwidth",
    Origin::ProjectTarget
);
claim!(
    BBR_RETRANSMISSIONS,
    Paper::Cws,
    "§5.4, Fig. 9",
    "cws.fig9.bbr-retransmissions",
    "in a 0.5 BDP buffer against CUBIC BBR retransmits 16,945 packets in 150 s",
    "BBR",
    "BBR's retransmitted packets over 150 s, 0.5 BDP",
    "packets",
    "16,945",
    Test::point(16945.0),
    "one run's count, which scales with the path's loss events",
    Origin::Paper
);
claim!(
    CWS_CUT,
    Paper::Cws,
    "§5.4, Fig. 11",
    "cws.fig11.cws-cut",
    "in a 0.5 BDP buffer BBR-CWS retransmits 96% less than BBR",
    "BBR-CWS",
    "1 - BBR-CWS's retransmitted packets / BBR's, 0.5 BDP",
    "%",
    "96%",
    Test::cut(0.96),
    "the paper's cut; the analysis hands 1 - BBR-CWS's retransmitted packets / BBR's",
    Origin::Paper
);
claim!(
    CWS_FAIR_SHALLOW,
    Paper::Cws,
    "§5.4, Figs. 11 and 13a",
    "cws.fig11.cws-fair-shallow",
    "in a 0.5 BDP buffer BBR-CWS shares fairly with CUBIC",
    "BBR-CWS",
    "Jain's index of BBR-CWS and CUBIC, 0.5 BDP",
    "",
    ">= 0.9 (Fig. 13a)",
    Test::at_least(0.9),
    "the paper's own fairness bar (Fig. 13)",
    Origin::Paper
);
claim!(
    BBR_RTPROP_INFLATED,
    Paper::Cws,
    "§5.4, Fig. 10b",
    "cws.fig10.bbr-rtprop-inflated",
    "in a 5 BDP buffer BBR's RTprop estimate is completely different from the propagation delay",
    "BBR",
    "BBR's highest RTprop estimate after 10 s / the base RTT, 5 BDP",
    "x",
    "larger than the propagation RTT (10 ms)",
    Test::at_least(2.0),
    "the paper gives no number: 'completely different' read as at least twice the base RTT",
    Origin::ProjectTarget
);
claim!(
    CWS_STEADIER_SHARE,
    Paper::Cws,
    "§5.4, Figs. 10 and 12",
    "cws.fig12.cws-steadier-share",
    "in a 5 BDP buffer BBR's share with CUBIC fluctuates in cycles; BBR-CWS shares steadily",
    "BBR-CWS",
    "sd of the per-second share, BBR-CWS below BBR, 5 BDP",
    "",
    "BBR: cyclic fluctuation; BBR-CWS: fair sharing",
    Test::direction(),
    "one direction, in the 5 BDP buffer",
    Origin::Paper
);
claim!(
    CWS_FAIR_DEEP,
    Paper::Cws,
    "§5.4, Figs. 12 and 13a",
    "cws.fig12.cws-fair-deep",
    "in a 5 BDP buffer BBR-CWS shares fairly with CUBIC after the first ProbeRTT",
    "BBR-CWS",
    "Jain's index of BBR-CWS and CUBIC, 5 BDP",
    "",
    ">= 0.9 (Fig. 13a)",
    Test::at_least(0.9),
    "the paper's own fairness bar (Fig. 13)",
    Origin::Paper
);
claim!(
    CWS_STABLE_RTPROP,
    Paper::Cws,
    "§5.4, Fig. 12b",
    "cws.fig12.cws-stable-rtprop",
    "in a 5 BDP buffer BBR-CWS finds a stable RTprop, unlike BBR",
    "BBR-CWS",
    "sd of the RTprop estimate after 10 s, BBR-CWS below BBR, 5 BDP",
    "",
    "stable RTprop",
    Test::direction(),
    "one direction, in the 5 BDP buffer",
    Origin::Paper
);

/// A flow-0 series column of a run, if recorded.
fn column(runs: &Runs, run: &RunRecord, name: &str) -> Option<Vec<(f64, f64)>> {
    let rows = runs.flow_series(run).ok()?;
    Some(series_column(&rows, 0, name))
}

/// Mean and standard deviation of flow 0's RTprop estimate (ms) after the
/// first ProbeRTT, and its maximum.
fn rtprop_after_start(runs: &Runs, run: &RunRecord) -> Option<(f64, f64, f64)> {
    let values: Vec<f64> = column(runs, run, "min_rtt_ms")?
        .into_iter()
        .filter(|(t, _)| *t >= SETTLED_S)
        .map(|(_, v)| v)
        .collect();
    if values.is_empty() {
        return None;
    }
    let (mean, sd) = mean_sd(&values);
    Some((mean, sd, values.iter().copied().fold(f64::MIN, f64::max)))
}

fn figs9_12_vs_cubic(runs: &Runs) -> Analysis {
    let at = |cc: &'static str, b: &'static str| [("flow.0.cc", cc), ("link.buffer", b)];
    let stat = |cc, b, f: &dyn Fn(&RunRecord) -> Option<f64>| runs.over_seeds(&at(cc, b), f);
    let jain = |cc, b| stat(cc, b, &|r| metric(r, "/jain_index"));
    let share = |cc, b| stat(cc, b, &|r| group_share(r, 1, 2));
    let retx = |cc, b, flow| stat(cc, b, &move |r| retransmitted_packets(r, flow));
    let rtprop = |cc, b, pick: fn((f64, f64, f64)) -> f64| {
        stat(cc, b, &|r| rtprop_after_start(runs, r).map(pick))
    };
    let base_rtt = |cc, b| stat(cc, b, &|r| metric(r, "/flows/0/base_rtt_ms")).mean;

    let mut section = Section::new(
        "figs9-12-vs-cubic",
        "Figs. 9-12: BBR or BBR-CWS against CUBIC, 50 Mbit/s, 10 ms, 0.5 and 5 BDP, 150 s",
    )
    .description(format!(
        "One BBR (Figs. 9, 10) or BBR-CWS (Figs. 11, 12) flow and one CUBIC flow start together. Throughput per \
         {bin} s (the paper plots 0.1 s), cwnd and RTprop from 10 to 50 s as the paper draws them, from the first \
         seed; the table is over {seeds}. Fluctuation is measured from {from} s on (after the first ProbeRTT): \
         the standard deviation of the BBR-family flow's share of each second's throughput, and the mean of each \
         second's Jain's index, which stays low when the flows take turns even if their long-run means are equal. \
         The paper: in the shallow buffer BBR starves CUBIC with 16,945 retransmissions and BBR-CWS shares fairly \
         with 96% fewer; in the deep buffer BBR and CUBIC take turns as BBR's RTprop inflates after each ProbeRTT, \
         while BBR-CWS settles on an RTprop at which it shares fairly.",
        bin = BIN_S,
        from = SETTLED_S,
        seeds = seeds_note(runs),
    ));

    // Per figure: throughput of both flows, cwnd of both flows (10-50 s).
    let mut retransmission_lines = Vec::new();
    let mut rtprop_lines = Vec::new();
    for (fig, cc, b) in FIGURES {
        let Some(run) = drawn_run(runs, &at(cc, b)) else {
            continue;
        };
        let name = format!(
            "Fig. {fig}: {} vs CUBIC, {}",
            paper_name(cc),
            buffer_label(b)
        );
        let labels = [paper_name(cc), "CUBIC".to_string()];
        if let Some(t) = flow_throughputs(runs, run, 2) {
            section = section.figure(throughput_figure(
                &format!("{name}: throughput"),
                t,
                &labels,
            ));
        }
        if let Ok(rows) = runs.flow_series(run) {
            let cwnd = |flow| {
                between(series_column(&rows, flow, "cwnd"), ZOOM.0, ZOOM.1)
                    .into_iter()
                    .map(|(t, c)| (t, c / PACKET_BYTES))
                    .collect()
            };
            section = section.figure(
                Figure::lines(
                    format!("{name}: cwnd"),
                    "time (s)",
                    "cwnd (packets)",
                    vec![
                        Line::new(labels[0].clone(), cwnd(0)),
                        Line::new(labels[1].clone(), cwnd(1)),
                    ],
                )
                .x_range(ZOOM.0, ZOOM.1),
            );
            let retransmitted =
                crate::stats::binned_rate(&series_column(&rows, 0, "retransmitted"), BIN_S)
                    .into_iter()
                    .map(|(t, bytes_per_s)| (t, bytes_per_s / PAYLOAD_BYTES))
                    .collect();
            retransmission_lines.push(Line::new(
                format!("Fig. {fig}: {}", paper_name(cc)),
                retransmitted,
            ));
            rtprop_lines.push(Line::new(
                format!("Fig. {fig}: {}", paper_name(cc)),
                between(series_column(&rows, 0, "min_rtt_ms"), ZOOM.0, ZOOM.1),
            ));
        }
    }
    section = section
        .figure(Figure::lines(
            "Retransmissions of the BBR-family flow",
            "time (s)",
            format!("retransmitted packets per {} s", BIN_S),
            retransmission_lines,
        ))
        .figure(
            Figure::lines(
                "RTprop estimate of the BBR-family flow",
                "time (s)",
                "RTprop (ms)",
                rtprop_lines,
            )
            .x_range(ZOOM.0, ZOOM.1)
            .reference(ReferenceLine::horizontal(
                base_rtt("bbr", SHALLOW),
                "propagation RTT",
            )),
        );

    let mut ours = Table::new(
        format!("Over the whole run ({})", seeds_note(runs)),
        [
            "figure",
            "controller",
            "buffer",
            "Jain's index",
            "BBR-family share",
            "retransmitted packets (BBR family)",
            "retransmitted packets (CUBIC)",
            "share sd per second",
            "mean Jain per second",
            "RTprop mean (ms)",
            "RTprop sd (ms)",
        ],
    );
    for (fig, cc, b) in FIGURES {
        let (share_sd, second_jain) =
            fluctuation_over_seeds(runs, &at(cc, b), 1, 2, BIN_S, SETTLED_S);
        ours = ours.row([
            Cell::text(format!("Fig. {fig}")),
            Cell::text(paper_name(cc)),
            Cell::text(buffer_label(b)),
            jain(cc, b).cell(3),
            share(cc, b).cell(3),
            retx(cc, b, 0).cell(0),
            retx(cc, b, 1).cell(0),
            share_sd.cell(3),
            second_jain.cell(3),
            rtprop(cc, b, |r| r.0).cell(1),
            rtprop(cc, b, |r| r.1).cell(1),
        ]);
    }

    let bbr_retx = retx("bbr", SHALLOW, 0);
    let cws_cut = 1.0 - retx("bbr-cws", SHALLOW, 0).mean / bbr_retx.mean;
    let share_sd = |cc, b| fluctuation_over_seeds(runs, &at(cc, b), 1, 2, BIN_S, SETTLED_S).0;
    let second_jain = |cc, b| fluctuation_over_seeds(runs, &at(cc, b), 1, 2, BIN_S, SETTLED_S).1;
    let bbr_rtprop_max = rtprop("bbr", DEEP, |r| r.2);
    let base = base_rtt("bbr", DEEP);
    let two = |a: Stat, b: Stat, d: u8| match (a.n, b.n) {
        (0, _) | (_, 0) => Cell::Empty,
        _ => Cell::text(format!("{} (BBR) vs {} (BBR-CWS)", a.text(d), b.text(d))),
    };
    let paper = Table::new(
        "The paper's Figs. 9-12 and ours",
        ["claim (§5.4)", "paper", "ours"],
    )
    .row([
        Cell::text("Fig. 9: BBR's retransmitted packets, 0.5 BDP"),
        Cell::text("16,945"),
        bbr_retx.cell(0),
    ])
    .row([
        Cell::text("Fig. 9: BBR's share, 0.5 BDP"),
        Cell::text("most of the bandwidth"),
        share("bbr", SHALLOW).cell(3),
    ])
    .row([
        Cell::text("Fig. 9: Jain's index, 0.5 BDP"),
        Cell::text("seriously unfair (0.5-0.6 in Fig. 13a)"),
        jain("bbr", SHALLOW).cell(3),
    ])
    .row([
        Cell::text("Fig. 11: BBR-CWS's retransmissions cut vs BBR's, 0.5 BDP"),
        Cell::text("96%"),
        Cell::percent(cws_cut, 1),
    ])
    .row([
        Cell::text("Fig. 11: Jain's index, 0.5 BDP"),
        Cell::text("fair (>= 0.9 in Fig. 13a)"),
        jain("bbr-cws", SHALLOW).cell(3),
    ])
    .row([
        Cell::text("Figs. 10/12: share sd per second, 5 BDP"),
        Cell::text("BBR: cyclic fluctuation; BBR-CWS: fair sharing"),
        two(share_sd("bbr", DEEP), share_sd("bbr-cws", DEEP), 3),
    ])
    .row([
        Cell::text("Figs. 10/12: mean Jain per second, 5 BDP"),
        Cell::text("(not given)"),
        two(second_jain("bbr", DEEP), second_jain("bbr-cws", DEEP), 3),
    ])
    .row([
        Cell::text("Fig. 10b: BBR's highest RTprop after 10 s, 5 BDP (ms)"),
        Cell::text("larger than the propagation RTT (10 ms)"),
        bbr_rtprop_max.cell(1),
    ])
    .row([
        Cell::text("Fig. 12: Jain's index, 5 BDP"),
        Cell::text("fair after the first ProbeRTT (>= 0.9 in Fig. 13a)"),
        jain("bbr-cws", DEEP).cell(3),
    ])
    .row([
        Cell::text("Fig. 12b: RTprop estimate after 10 s, 5 BDP: sd (ms)"),
        Cell::text("BBR-CWS finds a stable RTprop"),
        two(
            rtprop("bbr", DEEP, |r| r.1),
            rtprop("bbr-cws", DEEP, |r| r.1),
            1,
        ),
    ]);
    let section = section.table(ours).table(paper);
    let single = |name: &str, holds: bool| Measured::conditions([(name, holds)]);
    let judged = vec![
        BBR_TAKES_MOST.judge(Measured::Value(share("bbr", SHALLOW).mean)),
        BBR_RETRANSMISSIONS.judge(Measured::Value(bbr_retx.mean)),
        CWS_CUT.judge(Measured::Value(cws_cut)),
        CWS_FAIR_SHALLOW.judge(Measured::Value(jain("bbr-cws", SHALLOW).mean)),
        BBR_RTPROP_INFLATED.judge(Measured::Value(bbr_rtprop_max.mean / base)),
        CWS_STEADIER_SHARE.judge(single(
            "5 BDP",
            share_sd("bbr-cws", DEEP).mean < share_sd("bbr", DEEP).mean,
        )),
        CWS_FAIR_DEEP.judge(Measured::Value(jain("bbr-cws", DEEP).mean)),
        CWS_STABLE_RTPROP.judge(single(
            "5 BDP",
            rtprop("bbr-cws", DEEP, |r| r.1).mean < rtprop("bbr", DEEP, |r| r.1).mean,
        )),
    ];
    Analysis::judged(
        section,
        judged,
        "BBR starves CUBIC in the shallow buffer and takes turns with it in the deep one; BBR-CWS shares fairly in \
         both with far fewer retransmissions.",
    )
}
