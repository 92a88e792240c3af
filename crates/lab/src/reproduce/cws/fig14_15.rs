//! cws: Figs. 14-15: three BBR or BBR-CWS flows against three CUBIC flows.

use report::{Cell, ReferenceLine, Section, Table};

use super::{
    buffer_bdp, buffer_label, drawn_run, flow_throughputs, fluctuation_over_seeds, goodput_mbps,
    group_share, retransmitted_packets, seeds_note, stat_bars, throughput_figure, Stat,
};
use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::metric;
use crate::reproduce::verdict::paper_name;
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Figs. 14-15: three BBR or BBR-CWS flows against three CUBIC flows.
pub const THREE_VS_THREE: Experiment = Experiment {
    id: "figs14-15-three-vs-three",
    scenario: "cws/figs14-15-three-vs-three.toml",
    series: true,
    analyze: figs14_15_three_vs_three,
};

/// Flows `0..BBR_FLOWS` are the BBR family, the rest CUBIC.
const BBR_FLOWS: usize = 3;
/// Every flow.
const ALL_FLOWS: usize = 6;
/// The paper's panels: (figure, controller, buffer).
const FIGURES: [(&str, &str, &str); 4] = [
    ("14a", "bbr", SHALLOW),
    ("14b", "bbr", DEEP),
    ("15a", "bbr-cws", SHALLOW),
    ("15b", "bbr-cws", DEEP),
];
/// The shallow buffer of §5.5.
const SHALLOW: &str = "0.8bdp";
/// The deep buffer of §5.5.
const DEEP: &str = "5bdp";
claim!(
    BBR_GROUP_MOST,
    Paper::Cws,
    "§5.5, Fig. 14a",
    "cws.fig14.bbr-group-most",
    "in a 0.8 BDP buffer most of the bandwidth is occupied by the three BBR flows",
    "BBR (3 flows)",
    "the three BBR flows' share of the six flows' goodput, 0.8 BDP",
    "%",
    "most of the bandwidth",
    Test::at_least(0.8),
    "the paper gives no number: 'most' read as at least 80% of the bandwidth, as in Fig. 9",
    Origin::ProjectTarget
);
claim!(
    CWS_GROUP_SIMILAR,
    Paper::Cws,
    "§5.5, Fig. 15a",
    "cws.fig15.cws-group-similar",
    "in a 0.8 BDP buffer three BBR-CWS flows and three CUBIC flows take up similar bandwidth",
    "BBR-CWS (3 flows)",
    "the three BBR-CWS flows' share of the six flows' goodput, 0.8 BDP",
    "%",
    "similar to CUBIC's (50%)",
    Test::point(0.5),
    "the paper gives no number: 'similar' read as an even split",
    Origin::ProjectTarget
);
claim!(
    BBR_FLUCTUATES,
    Paper::Cws,
    "§5.5, Figs. 14b and 15b",
    "cws.fig14.bbr-fluctuates",
    "in a 5 BDP buffer the throughputs of three BBR flows fluctuate continuously, unlike BBR-CWS's",
    "BBR vs BBR-CWS (3 flows each)",
    "sd of the BBR-family share per second, BBR above BBR-CWS, 5 BDP",
    "",
    "BBR fluctuates continuously",
    Test::direction(),
    "one direction, in the 5 BDP buffer",
    Origin::Paper
);
claim!(
    CWS_REASONABLE,
    Paper::Cws,
    "§5.5, Fig. 15b",
    "cws.fig15.cws-reasonable",
    "in a 5 BDP buffer all six flows (three BBR-CWS, three CUBIC) have reasonable bandwidth",
    "BBR-CWS (3 flows)",
    "the smallest flow's goodput / an equal share, 5 BDP",
    "%",
    "all six flows reasonable",
    Test::at_least(0.5),
    "the paper gives no number: 'reasonable' read as at least half an equal share",
    Origin::ProjectTarget
);

/// The smallest flow's goodput as a fraction of an equal share.
fn smallest_flow_of_fair_share(run: &RunRecord) -> Option<f64> {
    let goodputs: Option<Vec<f64>> = (0..ALL_FLOWS).map(|f| goodput_mbps(run, f)).collect();
    let goodputs = goodputs?;
    let fair = goodputs.iter().sum::<f64>() / ALL_FLOWS as f64;
    (fair > 0.0).then(|| goodputs.iter().copied().fold(f64::INFINITY, f64::min) / fair)
}

/// Retransmitted packets of flows `flows`, summed.
fn retransmitted_by(run: &RunRecord, flows: std::ops::Range<usize>) -> Option<f64> {
    flows.map(|f| retransmitted_packets(run, f)).sum()
}

fn figs14_15_three_vs_three(runs: &Runs) -> Analysis {
    let ccs = runs.axis("flow.0.cc");
    let mut buffers = runs.axis("link.buffer");
    buffers.sort_by(|a, b| buffer_bdp(a).total_cmp(&buffer_bdp(b)));
    let stat = |cc: &str, b: &str, f: &dyn Fn(&RunRecord) -> Option<f64>| {
        runs.over_seeds(&[("flow.0.cc", cc), ("link.buffer", b)], f)
    };
    let share = |cc: &str, b: &str| stat(cc, b, &|r| group_share(r, BBR_FLOWS, ALL_FLOWS));
    let jain = |cc: &str, b: &str| stat(cc, b, &|r| metric(r, "/jain_index"));
    let smallest = |cc: &str, b: &str| stat(cc, b, &smallest_flow_of_fair_share);
    let fluctuation = |cc: &str, b: &str| {
        fluctuation_over_seeds(
            runs,
            &[("flow.0.cc", cc), ("link.buffer", b)],
            BBR_FLOWS,
            ALL_FLOWS,
            super::BIN_S,
            super::SETTLED_S,
        )
    };

    let mut section = Section::new(
        "figs14-15-three-vs-three",
        "Figs. 14-15: three BBR or BBR-CWS flows against three CUBIC flows, 0.8 and 5 BDP, 150 s",
    )
    .description(format!(
        "Six flows start together on 50 Mbit/s, 10 ms (§5.5 does not give the link; this is Table 2's scenario 1). \
         Throughput over time from the first seed; the table is over {}. The paper: three BBR flows take \
         most of a shallow buffer's link and fluctuate continuously in a deep one; three BBR-CWS flows and three \
         CUBIC flows take similar bandwidth in the shallow buffer and every flow gets reasonable bandwidth in the \
         deep one. Fluctuation as in Figs. 9-12: the sd of the BBR family's share of each second's throughput. \
         At 0.8 BDP our three BBR-CWS flows yield more than the paper's: each one's scaling factor settles near \
         0.45 and its window near 9 packets, against ~16 for each CUBIC flow, so they get about a third of the link \
         (one BBR-CWS flow against one CUBIC flow shares equally, Fig. 13).",
        seeds_note(runs)
    ));
    for (fig, cc, b) in FIGURES {
        let Some(run) = drawn_run(runs, &[("flow.0.cc", cc), ("link.buffer", b)]) else {
            continue;
        };
        let Some(throughputs) = flow_throughputs(runs, run, ALL_FLOWS) else {
            continue;
        };
        let labels: Vec<String> = (0..ALL_FLOWS)
            .map(|f| {
                if f < BBR_FLOWS {
                    format!("{} #{}", paper_name(cc), f + 1)
                } else {
                    format!("CUBIC #{}", f - BBR_FLOWS + 1)
                }
            })
            .collect();
        section = section.figure(throughput_figure(
            &format!(
                "Fig. {fig}: three {} vs three CUBIC, {}",
                paper_name(cc),
                buffer_label(b)
            ),
            throughputs,
            &labels,
        ));
    }
    let per_cc = |f: &dyn Fn(&str, &str) -> Stat| -> Vec<(String, Vec<Stat>)> {
        ccs.iter()
            .map(|cc| (cc.clone(), buffers.iter().map(|b| f(cc, b)).collect()))
            .collect()
    };
    section = section
        .figure(
            stat_bars(
                "Aggregate share of the three BBR-family flows",
                "share of total goodput",
                &buffers,
                per_cc(&share),
            )
            .y_range(0.0, 1.0)
            .reference(ReferenceLine::horizontal(0.5, "equal split")),
        )
        .figure(
            stat_bars(
                "Jain's index of the six flows",
                "Jain's index",
                &buffers,
                per_cc(&jain),
            )
            .y_range(0.0, 1.0),
        );

    let mut ours = Table::new(
        format!("Six flows over the whole run ({})", seeds_note(runs)),
        [
            "figure",
            "BBR family",
            "buffer",
            "Jain's index (6 flows)",
            "BBR-family share",
            "smallest flow / equal share",
            "share sd per second",
            "mean Jain per second",
            "retransmitted packets (BBR family)",
            "retransmitted packets (CUBIC)",
        ],
    );
    for (fig, cc, b) in FIGURES {
        let (share_sd, second_jain) = fluctuation(cc, b);
        ours = ours.row([
            Cell::text(fig),
            Cell::text(paper_name(cc)),
            Cell::text(buffer_label(b)),
            jain(cc, b).cell(3),
            share(cc, b).cell(3),
            smallest(cc, b).cell(2),
            share_sd.cell(3),
            second_jain.cell(3),
            stat(cc, b, &|r| retransmitted_by(r, 0..BBR_FLOWS)).cell(0),
            stat(cc, b, &|r| retransmitted_by(r, BBR_FLOWS..ALL_FLOWS)).cell(0),
        ]);
    }
    let paper = Table::new(
        "The paper's Figs. 14-15 and ours",
        ["claim (§5.5)", "paper", "ours"],
    )
    .row([
        Cell::text("Fig. 14a: three BBR flows' share, 0.8 BDP"),
        Cell::text("most of the bandwidth"),
        share("bbr", SHALLOW).cell(3),
    ])
    .row([
        Cell::text("Fig. 15a: three BBR-CWS flows' share, 0.8 BDP"),
        Cell::text("similar to CUBIC's"),
        share("bbr-cws", SHALLOW).cell(3),
    ])
    .row([
        Cell::text("Fig. 14b / 15b: share sd per second, 5 BDP (BBR / BBR-CWS)"),
        Cell::text("BBR fluctuates continuously"),
        Cell::text(format!(
            "{} / {}",
            fluctuation("bbr", DEEP).0.text(3),
            fluctuation("bbr-cws", DEEP).0.text(3)
        )),
    ])
    .row([
        Cell::text("Fig. 15b: smallest flow / equal share, 5 BDP"),
        Cell::text("all six flows have reasonable bandwidth"),
        smallest("bbr-cws", DEEP).cell(2),
    ]);
    let section = section.table(ours).table(paper);
    let judged = vec![
        BBR_GROUP_MOST.judge(Measured::Value(share("bbr", SHALLOW).mean)),
        CWS_GROUP_SIMILAR.judge(Measured::Value(share("bbr-cws", SHALLOW).mean)),
        BBR_FLUCTUATES.judge(Measured::conditions([(
            "5 BDP",
            fluctuation("bbr", DEEP).0.mean > fluctuation("bbr-cws", DEEP).0.mean,
        )])),
        CWS_REASONABLE.judge(Measured::Value(smallest("bbr-cws", DEEP).mean)),
    ];
    Analysis::judged(
        section,
        judged,
        "Three BBR flows crowd CUBIC out of a shallow buffer and oscillate in a deep one; three BBR-CWS flows share \
         with CUBIC in both.",
    )
}
