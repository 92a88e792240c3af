//! cws: Fig. 8: one flow alone over shallow buffers (0.5, 0.8, 1 BDP).

use report::{Cell, Figure, Line, LineStyle, ReferenceLine, Section, Table};

use super::{
    buffer_bdp, buffer_label, drawn_run, goodput_mbps, mean_cwnd_packets, retransmitted_packets,
    stat_bars, Stat, LINK_MBPS, PACKET_BYTES,
};
use crate::reproduce::data::{mean_sd, series_column};
use crate::reproduce::verdict::judge;
use crate::reproduce::{Experiment, Runs};
use crate::store::RunRecord;

/// Fig. 8: one flow alone over shallow buffers (0.5, 0.8, 1 BDP).
pub const SINGLE_FLOW: Experiment = Experiment {
    id: "fig8-single-flow",
    scenario: "cws/fig8-single-flow.toml",
    series: true,
    analyze: |runs| fig8_single_flow(runs).into(),
};

/// BBR-CWS's scaling factor in `series_controller.csv` (its `snapshot()`).
const SCALING_FACTOR: &str = "upper_scaling_factor";
/// The link's BDP in packets: 50 Mbit/s x 10 ms / 1500 B.
const BDP_PACKETS: f64 = LINK_MBPS * 1e6 * 0.010 / 8.0 / PACKET_BYTES;
/// "Similar regardless of buffer size": BBR's mean cwnd may vary this much
/// (max / min) over the buffers.
const SIMILAR_CWND: f64 = 1.2;
/// "Similar throughput to the original BBR": BBR-CWS keeps this share.
const SIMILAR_GOODPUT: f64 = 0.9;
/// BBR-CWS's mean cwnd relative to BBR's: the paper's 50 / 82 MSS at
/// 0.5 BDP and 71 / ~82 at 1 BDP (BBR's is "similar regardless of buffer
/// size") are 0.61 and 0.87; "smaller" is taken as at most 0.9.
const SMALLER_CWND: f64 = 0.9;
/// Modest BBR "reducing retransmission by up to 75%".
const MODEST_CUT: f64 = 0.75;

/// BBR-CWS's time-averaged scaling factor in one run (uniform samples).
fn mean_scaling_factor(runs: &Runs, run: &RunRecord) -> Option<f64> {
    let samples = runs.controller_series(run, 0, SCALING_FACTOR).ok()?;
    let values: Vec<f64> = samples.iter().map(|(_, v)| *v).collect();
    (!values.is_empty()).then(|| mean_sd(&values).0)
}

fn fig8_single_flow(runs: &Runs) -> Section {
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
            Some(Line::new(cc.clone(), points))
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
        "One flow, 50 Mbit/s, 10 ms, 60 s (mean ± sd over seeds)",
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

    let cws_below_bbr = !buffers.is_empty()
        && buffers.iter().all(|b| {
            mean("bbr-cws", b, mean_cwnd_packets)
                <= SMALLER_CWND * mean("bbr", b, mean_cwnd_packets)
        });
    let cws_similar_goodput = !buffers.is_empty()
        && buffers
            .iter()
            .all(|b| cws_goodput_ratio(b) >= SIMILAR_GOODPUT);
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
    judge(
        section,
        &[
            (
                "BBR's mean cwnd varies by <= 20% over the buffers",
                bbr_cwnd_spread <= SIMILAR_CWND,
            ),
            (
                "BBR-CWS's mean cwnd is <= 90% of BBR's at every buffer",
                cws_below_bbr,
            ),
            (
                "BBR-CWS's mean cwnd is smaller in the shallowest buffer than at 1 BDP",
                mean("bbr-cws", &shallowest, mean_cwnd_packets)
                    < mean("bbr-cws", one_bdp, mean_cwnd_packets),
            ),
            (
                "BBR-CWS keeps >= 90% of BBR's goodput at every buffer",
                cws_similar_goodput,
            ),
            (
                "BBR-CWS's scaling factor is lower in the shallowest buffer than at 1 BDP",
                factor(&shallowest).mean < factor(one_bdp).mean,
            ),
            (
                "Modest BBR retransmits >= 75% less than BBR at some buffer",
                best_modest_cut >= MODEST_CUT,
            ),
            (
                "Modest BBR's mean cwnd is below BBR's in the shallowest buffer",
                mean("modest-bbr", &shallowest, mean_cwnd_packets)
                    < mean("bbr", &shallowest, mean_cwnd_packets),
            ),
        ],
        "BBR keeps its window whatever the buffer; Modest BBR and BBR-CWS shrink theirs in shallow buffers, \
         BBR-CWS through a scaling factor that falls with the buffer, at BBR's throughput.",
    )
}
