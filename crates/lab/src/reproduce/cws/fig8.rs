//! cws: Fig. 8: one flow alone over shallow buffers (0.5, 0.8, 1 BDP).

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use super::{
    buffer_bdp, buffer_label, drawn_run, goodput_mbps, mean_cwnd_packets, retransmitted_packets,
    stat_bars, Stat, LINK_MBPS, PACKET_BYTES,
};
use crate::reproduce::claims::{claim, Measured, Origin, Paper, Test};
use crate::reproduce::data::seeds_note;
use crate::reproduce::data::{mean_sd, series_column};
use crate::reproduce::verdict::paper_name;
use crate::reproduce::{Analysis, Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 8: one flow alone over shallow buffers (0.5, 0.8, 1 BDP).
pub const SINGLE_FLOW: Experiment = Experiment {
    id: "fig8-single-flow",
    scenario: "cws/fig8-single-flow.toml",
    series: true,
    analyze: fig8_single_flow,
};

/// BBR-CWS's scaling factor in `series_controller.csv` (its `snapshot()`).
const SCALING_FACTOR: &str = "upper_scaling_factor";
/// The link's BDP in packets: 50 Mbit/s x 10 ms / 1500 B.
const BDP_PACKETS: f64 = LINK_MBPS * 1e6 * 0.010 / 8.0 / PACKET_BYTES;
const FIG8: &str = "§5.3, Fig. 8";

claim!(
    BBR_CWND_SIMILAR,
    Paper::Cws,
    FIG8,
    "cws.fig8.bbr-cwnd-similar",
    "BBR's mean cwnd is similar regardless of the buffer size",
    "BBR",
    "BBR's largest mean cwnd over the buffers / its smallest",
    "x",
    "similar (82 MSS at 0.5 BDP)",
    Test::at_most(1.2),
    "the paper gives no number: 'similar' read as the largest within 20% of the smallest",
    Origin::ProjectTarget
);
claim!(
    BBR_CWND,
    Paper::Cws,
    FIG8,
    "cws.fig8.bbr-cwnd-half-bdp",
    "in a 0.5 BDP buffer BBR's mean cwnd is 82 MSS",
    "BBR",
    "BBR's mean cwnd (1500-byte packets), 0.5 BDP",
    "MSS",
    "82 MSS",
    Test::point(82.0),
    "one run's time-averaged window",
    Origin::Paper
);
claim!(
    CWS_CWND_HALF,
    Paper::Cws,
    FIG8,
    "cws.fig8.cws-cwnd-half-bdp",
    "in a 0.5 BDP buffer BBR-CWS's mean cwnd is 50 MSS",
    "BBR-CWS",
    "BBR-CWS's mean cwnd (1500-byte packets), 0.5 BDP",
    "MSS",
    "50 MSS",
    Test::point(50.0),
    "one run's time-averaged window",
    Origin::Paper
);
claim!(
    CWS_CWND_ONE,
    Paper::Cws,
    FIG8,
    "cws.fig8.cws-cwnd-one-bdp",
    "in a 1 BDP buffer BBR-CWS's mean cwnd is 71 MSS",
    "BBR-CWS",
    "BBR-CWS's mean cwnd (1500-byte packets), 1 BDP",
    "MSS",
    "71 MSS",
    Test::point(71.0),
    "one run's time-averaged window",
    Origin::Paper
);
claim!(
    CWS_SMALLER,
    Paper::Cws,
    FIG8,
    "cws.fig8.cws-cwnd-smaller",
    "BBR-CWS keeps a smaller cwnd than BBR in shallow buffers",
    "BBR-CWS",
    "BBR-CWS's mean cwnd / BBR's, the largest over the buffers",
    "x",
    "50 / 82 = 0.61 at 0.5 BDP, 71 / ~82 = 0.87 at 1 BDP",
    Test::at_most(0.9),
    "the paper's largest ratio, 0.87 (71 over about 82 MSS), rounded up to 0.9",
    Origin::ProjectTarget
);
claim!(
    CWS_CWND_GROWS,
    Paper::Cws,
    FIG8,
    "cws.fig8.cws-cwnd-grows",
    "BBR-CWS's mean cwnd is smaller in the shallowest buffer than at 1 BDP",
    "BBR-CWS",
    "BBR-CWS's mean cwnd, shallowest buffer below 1 BDP",
    "",
    "50 MSS vs 71 MSS",
    Test::direction(),
    "one direction: the shallowest buffer against 1 BDP",
    Origin::Paper
);
claim!(
    CWS_GOODPUT,
    Paper::Cws,
    FIG8,
    "cws.fig8.cws-goodput",
    "BBR-CWS has similar throughput to BBR",
    "BBR-CWS",
    "BBR-CWS's goodput / BBR's, the smallest over the buffers",
    "%",
    "similar",
    Test::at_least(0.9),
    "the paper gives no number: 'similar' read as at least 90% of BBR's goodput",
    Origin::ProjectTarget
);
claim!(
    FACTOR_LOWER,
    Paper::Cws,
    FIG8,
    "cws.fig8.factor-lower-shallow",
    "BBR-CWS's scaling factor settles lower when the buffer is smaller",
    "BBR-CWS",
    "BBR-CWS's mean upper_scaling_factor, shallowest buffer below 1 BDP",
    "",
    "lower in smaller buffers",
    Test::direction(),
    "one direction: the shallowest buffer against 1 BDP",
    Origin::Paper
);
claim!(
    MODEST_CUT,
    Paper::Cws,
    FIG8,
    "cws.fig8.modest-cut",
    "Modest BBR reduces retransmissions by up to 75%",
    "Modest BBR",
    "Modest BBR's largest cut of BBR's retransmitted packets over the buffers",
    "%",
    "up to 75%",
    Test::cut(0.75),
    "the paper's 'up to' cut; the analysis hands the largest cut of BBR's retransmitted packets",
    Origin::Paper
);
claim!(
    MODEST_SMALLER,
    Paper::Cws,
    FIG8,
    "cws.fig8.modest-cwnd-smaller",
    "Modest BBR's mean cwnd is below BBR's in the shallowest buffer",
    "Modest BBR",
    "Modest BBR's mean cwnd below BBR's, shallowest buffer",
    "",
    "shrinks its window on retransmission",
    Test::direction(),
    "one direction, in the shallowest buffer",
    Origin::Paper
);

/// BBR-CWS's time-averaged scaling factor in one run (uniform samples).
fn mean_scaling_factor(runs: &Runs, run: &RunRecord) -> Option<f64> {
    let samples = runs.controller_series(run, 0, SCALING_FACTOR).ok()?;
    let values: Vec<f64> = samples.iter().map(|(_, v)| *v).collect();
    (!values.is_empty()).then(|| mean_sd(&values).0)
}

fn fig8_single_flow(runs: &Runs) -> Analysis {
    let ccs = runs.axis("flow.0.cc");
    let mut buffers = runs.axis("link.buffer");
    buffers.sort_by(|a, b| buffer_bdp(a).total_cmp(&buffer_bdp(b)));
    let stat = |cc: &str, b: &str, f: fn(&RunRecord, usize) -> Option<f64>| {
        runs.over_seeds(&[("flow.0.cc", cc), ("link.buffer", b)], |r| f(r, 0))
    };
    let per_cc = |f: fn(&RunRecord, usize) -> Option<f64>| -> Vec<(String, Vec<Stat>)> {
        ccs.iter()
            .map(|cc| (cc.clone(), buffers.iter().map(|b| stat(cc, b, f)).collect()))
            .collect()
    };
    let factor = |b: &str| {
        runs.over_seeds(&[("flow.0.cc", "bbr-cws"), ("link.buffer", b)], |r| {
            mean_scaling_factor(runs, r)
        })
    };

    // Figures: Fig. 8a's three quantities as bars, Fig. 8b's factor over
    // time, and the windows behind the mean cwnd in the shallowest buffer.
    let goodput = stat_bars(
        "Fig. 8a: throughput",
        "goodput (Mbit/s)",
        &buffers,
        per_cc(goodput_mbps),
    )
    .reference(ReferenceLine::horizontal(LINK_MBPS, "capacity"));
    let retransmissions = stat_bars(
        "Fig. 8a: retransmissions in 60 s",
        "retransmitted packets",
        &buffers,
        per_cc(retransmitted_packets),
    )
    .log_y();
    let cwnd = stat_bars(
        "Fig. 8a: mean cwnd",
        "mean cwnd (packets)",
        &buffers,
        per_cc(mean_cwnd_packets),
    )
    .reference(ReferenceLine::horizontal(BDP_PACKETS, "1 BDP"));
    let factor_lines: Vec<Line> = buffers
        .iter()
        .filter_map(|b| {
            let run = drawn_run(runs, &[("flow.0.cc", "bbr-cws"), ("link.buffer", b)])?;
            let series = runs.controller_series(run, 0, SCALING_FACTOR).ok()?;
            Some(Line::new(buffer_label(b), series).style(LineStyle::Step))
        })
        .collect();
    let factor_figure = Figure::lines(
        "Fig. 8b: BBR-CWS's upper_scaling_factor",
        "time (s)",
        "upper_scaling_factor",
        factor_lines,
    )
    .y_range(0.0, 1.05);
    let shallowest = buffers.first().cloned().unwrap_or_default();
    let cwnd_lines: Vec<Line> = ccs
        .iter()
        .filter_map(|cc| {
            let run = drawn_run(runs, &[("flow.0.cc", cc), ("link.buffer", &shallowest)])?;
            let rows = runs.flow_series(run).ok()?;
            let points = series_column(&rows, 0, "cwnd")
                .into_iter()
                .map(|(t, c)| (t, c / PACKET_BYTES))
                .collect();
            Some(Line::new(paper_name(cc), points))
        })
        .collect();
    let cwnd_over_time = Figure::lines(
        format!("cwnd over time at {}", buffer_label(&shallowest)),
        "time (s)",
        "cwnd (packets)",
        cwnd_lines,
    )
    .reference(ReferenceLine::horizontal(BDP_PACKETS, "1 BDP"));

    // Our numbers, per controller and buffer.
    let mut ours = Table::new(
        format!("One flow, 50 Mbit/s, 10 ms, 60 s ({})", seeds_note(runs)),
        [
            "controller",
            "buffer",
            "goodput (Mbit/s)",
            "retransmitted packets",
            "mean cwnd (packets)",
            "mean upper_scaling_factor",
        ],
    );
    for cc in &ccs {
        for b in &buffers {
            ours = ours.row([
                Cell::text(cc.clone()),
                Cell::text(buffer_label(b)),
                stat(cc, b, goodput_mbps).cell(2),
                stat(cc, b, retransmitted_packets).cell(0),
                stat(cc, b, mean_cwnd_packets).cell(1),
                if cc == "bbr-cws" {
                    factor(b).cell(2)
                } else {
                    Cell::Empty
                },
            ]);
        }
    }

    // The paper's statements (§5.3) against ours.
    let mean = |cc: &str, b: &str, f: fn(&RunRecord, usize) -> Option<f64>| stat(cc, b, f).mean;
    let over_buffers = |f: &dyn Fn(&str) -> f64, decimals: usize| {
        buffers
            .iter()
            .map(|b| format!("{:.decimals$}", f(b)))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let buffers_label = buffers
        .iter()
        .map(|b| buffer_label(b))
        .collect::<Vec<_>>()
        .join(" / ");
    let bbr_cwnds: Vec<f64> = buffers
        .iter()
        .map(|b| mean("bbr", b, mean_cwnd_packets))
        .collect();
    let bbr_cwnd_spread = bbr_cwnds.iter().copied().fold(f64::NAN, f64::max)
        / bbr_cwnds.iter().copied().fold(f64::NAN, f64::min);
    let modest_cut = |b: &str| {
        1.0 - mean("modest-bbr", b, retransmitted_packets) / mean("bbr", b, retransmitted_packets)
    };
    let cws_goodput_ratio =
        |b: &str| mean("bbr-cws", b, goodput_mbps) / mean("bbr", b, goodput_mbps);
    let one_bdp = "1bdp";
    let paper = Table::new(
        "The paper's Fig. 8 and ours (cwnd in packets = the paper's MSS)",
        ["claim (§5.3, Fig. 8)", "paper", "ours"],
    )
    .row([
        Cell::text(format!("BBR mean cwnd, {}", buffer_label(&shallowest))),
        Cell::text("82 MSS"),
        stat("bbr", &shallowest, mean_cwnd_packets).cell(1),
    ])
    .row([
        Cell::text(format!("BBR mean cwnd over {buffers_label}")),
        Cell::text("similar regardless of buffer size"),
        Cell::text(over_buffers(&|b| mean("bbr", b, mean_cwnd_packets), 1)),
    ])
    .row([
        Cell::text(format!("BBR retransmitted packets over {buffers_label}")),
        Cell::text("significant"),
        Cell::text(over_buffers(&|b| mean("bbr", b, retransmitted_packets), 0)),
    ])
    .row([
        Cell::text(format!("BBR-CWS mean cwnd, {}", buffer_label(&shallowest))),
        Cell::text("50 MSS"),
        stat("bbr-cws", &shallowest, mean_cwnd_packets).cell(1),
    ])
    .row([
        Cell::text("BBR-CWS mean cwnd, 1 BDP"),
        Cell::text("71 MSS"),
        stat("bbr-cws", one_bdp, mean_cwnd_packets).cell(1),
    ])
    .row([
        Cell::text(format!("BBR-CWS goodput / BBR's over {buffers_label}")),
        Cell::text("similar"),
        Cell::text(over_buffers(&cws_goodput_ratio, 3)),
    ])
    .row([
        Cell::text(format!(
            "BBR-CWS mean upper_scaling_factor over {buffers_label}"
        )),
        Cell::text("lower when the buffer is smaller"),
        Cell::text(over_buffers(&|b| factor(b).mean, 2)),
    ])
    .row([
        Cell::text(format!(
            "Modest BBR: retransmissions cut vs BBR over {buffers_label}"
        )),
        Cell::text("up to 75%"),
        Cell::text(
            buffers
                .iter()
                .map(|b| format!("{:.0}%", 100.0 * modest_cut(b)))
                .collect::<Vec<_>>()
                .join(" / "),
        ),
    ]);

    let over_all_buffers = |f: &dyn Fn(&str) -> f64, fold: fn(f64, f64) -> f64| {
        buffers.iter().map(|b| f(b)).fold(f64::NAN, fold)
    };
    let single = |name: &str, holds: bool| Measured::conditions([(name, holds)]);
    let best_modest_cut = buffers
        .iter()
        .map(|b| modest_cut(b))
        .fold(f64::NAN, f64::max);
    let section = Section::new(
        "fig8-single-flow",
        "Fig. 8: one flow alone, 50 Mbit/s, 10 ms, buffers of 0.5, 0.8 and 1 BDP",
    )
    .description(
        "A single BBR, Modest BBR or BBR-CWS flow for 60 s. The paper: BBR keeps a similar mean cwnd (~82 MSS, about \
         2 BDP) whatever the buffer and so retransmits heavily in buffers below 1 BDP; Modest BBR shrinks its window on \
         retransmission (up to 75% fewer); BBR-CWS's scaling factor settles lower in smaller buffers, so its mean cwnd \
         grows with the buffer (50 MSS at 0.5 BDP, 71 at 1 BDP) at BBR's throughput. Here a lone, paced BBR only \
         overflows the 0.5 BDP buffer: at 0.8 and 1 BDP its ProbeBW queue (a quarter BDP) fits and only start-up \
         loses packets, so neither Modest BBR nor BBR-CWS has a loss to react to there and all three behave alike. \
         cwnd counts 1500-byte packets (BDP = 41.7).",
    )
    .figure(goodput)
    .figure(retransmissions)
    .figure(cwnd)
    .figure(factor_figure)
    .figure(cwnd_over_time)
    .table(ours)
    .table(paper);
    let judged = vec![
        BBR_CWND_SIMILAR.judge(Measured::Value(bbr_cwnd_spread)),
        BBR_CWND.judge(Measured::Value(mean("bbr", "0.5bdp", mean_cwnd_packets))),
        CWS_CWND_HALF.judge(Measured::Value(mean(
            "bbr-cws",
            "0.5bdp",
            mean_cwnd_packets,
        ))),
        CWS_CWND_ONE.judge(Measured::Value(mean("bbr-cws", one_bdp, mean_cwnd_packets))),
        CWS_SMALLER.judge(Measured::Value(over_all_buffers(
            &|b| mean("bbr-cws", b, mean_cwnd_packets) / mean("bbr", b, mean_cwnd_packets),
            f64::max,
        ))),
        CWS_CWND_GROWS.judge(single(
            "shallowest vs 1 BDP",
            mean("bbr-cws", &shallowest, mean_cwnd_packets)
                < mean("bbr-cws", one_bdp, mean_cwnd_packets),
        )),
        CWS_GOODPUT.judge(Measured::Value(over_all_buffers(
            &cws_goodput_ratio,
            f64::min,
        ))),
        FACTOR_LOWER.judge(single(
            "shallowest vs 1 BDP",
            factor(&shallowest).mean < factor(one_bdp).mean,
        )),
        MODEST_CUT.judge(Measured::Value(best_modest_cut)),
        MODEST_SMALLER.judge(single(
            "shallowest",
            mean("modest-bbr", &shallowest, mean_cwnd_packets)
                < mean("bbr", &shallowest, mean_cwnd_packets),
        )),
    ];
    Analysis::judged(
        section,
        judged,
        "BBR keeps its window whatever the buffer; Modest BBR and BBR-CWS shrink theirs in shallow buffers, \
         BBR-CWS through a scaling factor that falls with the buffer, at BBR's throughput.",
    )
}
